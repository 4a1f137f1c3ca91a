"""`engram demo` does the whole job offline: init, propose, approve, NOOP, load, MCP."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.helpers import run_cli


def test_demo_runs_every_step_and_keeps_the_project_when_asked(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run_cli("demo", "--dir", str(tmp_path / "d"), capsys=capsys)
    assert code == 0, err
    for step in ("1/6", "2/6", "3/6", "4/6", "5/6", "6/6"):
        assert step in out
    assert "`tools/release_notes.py` was renamed to `scripts/release_notes.py`" in out
    assert "Renames paths: tools/release_notes.py → scripts/release_notes.py" in out
    assert "1 anchored memories: 0 gone, 0 moved, 0 changed, 1 ok" in out
    assert "Verdict: ADD" in out and "NOOP duplicate of" in out
    assert "3 written" in out
    assert "protocol 2025-11-25" in out
    assert "body_keys = ['workspace:always-run-smoke-suite-before'" in out
    root = tmp_path / "d" / "demo-project" / ".agents" / ".engram"
    assert len(list((root / "rules").glob("*.md"))) == 1
    assert run_cli("verify", "--workspace", str(root.parent.parent), capsys=capsys)[0] == 0


def test_the_demos_last_line_is_a_command_that_works_from_a_new_shell(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    import subprocess
    import sys

    from engram.demo import next_steps

    here = Path(sys.executable).parent / "engram"
    if not here.exists() or sys.platform == "win32":
        pytest.skip("no POSIX engram script next to this interpreter")
    # A new shell: PATH without this venv's bin.
    monkeypatch.setenv("PATH", "/usr/bin:/bin")
    code, out, _ = run_cli("demo", "--dir", str(tmp_path / "d"), capsys=capsys)
    last = out.rstrip().splitlines()[-1].strip()
    assert code == 0 and last.startswith(str(here)) and "init" in last
    assert "pipx install" in out and "uv tool install" in out
    first = last.split(" && ")[0].replace(" init", " --version")
    done = subprocess.run(first, shell=True, env={"PATH": "/usr/bin:/bin"},  # noqa: S602
                          capture_output=True, text=True, check=False)
    assert done.returncode == 0 and done.stdout.startswith("engram ")
    # An activated venv is not a new shell's PATH either; a tool's symlinked bin is.
    assert next_steps(str(here.parent))[-1].strip().startswith(str(here))
    tool_bin = tmp_path / "bin"
    tool_bin.mkdir()
    (tool_bin / "engram").symlink_to(here)
    assert "run `engram init`" in next_steps(str(tool_bin))[-1]
