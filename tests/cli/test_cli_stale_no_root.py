"""`engram stale` (and `--fail` in CI) outside any memory root fails like `load` does.

Before, it said "no workspace memory names a path in this repository" and exited 0, so a CI job
pointed at the wrong directory passed `engram stale --fail` forever."""

from __future__ import annotations

import pytest

from tests.helpers import run_cli


@pytest.mark.parametrize("args", [["stale"], ["stale", "--fail"], ["stale", "--propose"]])
def test_stale_without_a_root_fails_with_the_fix(args: list[str],
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run_cli(*args, capsys=capsys)
    assert code == 1, out
    assert "engram init" in err
