"""Meta-tests: every CLI command has help and a README entry; every MCP tool is documented."""

from __future__ import annotations

import pytest

from engram.cli.main import COMMANDS, main
from tests.conftest import REPO

README = (REPO / "README.md").read_text(encoding="utf-8")


@pytest.mark.parametrize("name", [row[0] for row in COMMANDS])
def test_every_command_has_help(name: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        main([name, "--help"])
    assert info.value.code == 0
    assert f"engram {name}" in capsys.readouterr().out


@pytest.mark.parametrize("name", [row[0] for row in COMMANDS])
def test_every_command_is_in_the_readme(name: str) -> None:
    assert f"`engram {name}" in README


def test_every_mcp_tool_is_in_the_readme() -> None:
    from engram.mcp.tools import tool_list

    names = [t["name"] for t in tool_list(always_load=False)]
    assert len(names) == 11
    for name in names:
        assert f"`{name}`" in README
