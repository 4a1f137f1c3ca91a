"""`engram-mcp` flags that answer without serving (in-process: coverage sees them)."""

from __future__ import annotations

import pytest

from engram import __version__
from engram.mcp.main import USAGE, main, parse

VERSION = f"engram-mcp {__version__}\n"


@pytest.mark.parametrize(("argv", "text"), [(["--help"], USAGE), (["-h"], USAGE),
                                            (["--version"], VERSION),
                                            (["-V", "--always-load"], VERSION)])
def test_help_and_version_print_and_exit_0_without_serving(
        argv: list[str], text: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(argv) == 0
    assert capsys.readouterr().out == text


def test_workspace_flag_forms() -> None:
    assert parse(["--workspace=/p"]).workspace == "/p"
    assert parse(["--workspace="]).workspace is None
    assert parse(["--workspace", "/q", "--no-elicitation"]).workspace == "/q"
    assert parse(["--workspace"]).ignored == ["--workspace"]
