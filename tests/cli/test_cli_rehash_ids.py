"""`engram rehash <id>` with an id no file has is an error, not "every hash matches".

Before: `engram rehash nope` printed "nothing to rehash: every hash matches" and a warning, and
exited 0, so a typo in a script or by hand looked like a successful approval."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.helpers import run_cli, write_memory


@pytest.fixture
def root(engram_root: Path) -> Path:
    write_memory(engram_root, "run-smoke-suite", content="- Run the smoke suite.")
    return engram_root


def test_an_unknown_id_fails_with_the_fix(root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli("rehash", "run-smoke-suiet", capsys=capsys)
    assert code == 2
    assert "every hash matches" not in out
    assert "no memory with id run-smoke-suiet" in out
    assert "engram verify --all" in out


def test_a_known_id_among_unknown_ones_is_still_approved(
        root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = root / "rules" / "run-smoke-suite.md"
    path.write_text(path.read_text().replace("smoke suite.", "smoke suite first."))
    code, out, _ = run_cli("rehash", "run-smoke-suite", "nope", "--json", capsys=capsys)
    env = json.loads(out)
    assert code == 2 and env["ok"] is False
    assert env["data"]["changed"] == ["workspace:rules/run-smoke-suite.md"]
    assert run_cli("verify", capsys=capsys)[0] == 0
