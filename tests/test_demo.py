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
    assert "body_keys = ['workspace:always-run-the-smoke-suite-before-tagging-a-release'" in out
    root = tmp_path / "d" / "demo-project" / ".agents" / ".engram"
    assert len(list((root / "rules").glob("*.md"))) == 1
    assert run_cli("verify", "--workspace", str(root.parent.parent), capsys=capsys)[0] == 0
