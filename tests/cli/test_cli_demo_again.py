"""`engram demo --dir DIR` a second time says the project is already there, instead of a
`CalledProcessError` traceback from `git mv` half-way through the demo."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.helpers import run_cli


def test_a_second_demo_in_the_same_dir_is_refused_with_the_fix(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run_cli("demo", "--dir", str(tmp_path / "d"), capsys=capsys)[0] == 0
    kept = sorted(p.name for p in (tmp_path / "d" / "demo-project").iterdir())
    code, out, err = run_cli("demo", "--dir", str(tmp_path / "d"), capsys=capsys)
    assert code == 2, out + err
    assert "already exists" in err and "another --dir" in err
    assert sorted(p.name for p in (tmp_path / "d" / "demo-project").iterdir()) == kept
