"""Every host command has --help, and link/unlink/upgrade --plan never write."""

from __future__ import annotations

from pathlib import Path

import pytest

from engram.cli.main import main


@pytest.mark.parametrize("cmd", ["link", "unlink", "upgrade", "doctor", "agent-hook"])
def test_host_commands_have_help(cmd: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as done:
        main([cmd, "--help"])
    assert done.value.code == 0
    assert f"engram {cmd}" in capsys.readouterr().out


def test_unlink_plan_writes_nothing(project: Path, bin_dir: Path) -> None:
    assert main(["link", "cursor"]) == 0
    before = {p: p.read_bytes() for p in project.rglob("*") if p.is_file()}
    assert main(["unlink", "cursor", "--plan"]) == 0
    assert {p: p.read_bytes() for p in project.rglob("*") if p.is_file()} == before


def test_unlink_without_links_says_so(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["unlink"]) == 0
    assert "no linked hosts" in capsys.readouterr().out
