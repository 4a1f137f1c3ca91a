"""`engram upgrade` migrates legacy v1/v2 memories to v3: backup, body unchanged, idempotent."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from engram.cli.main import main
from engram.store.format import split_file
from engram.store.repo import Change, Store, parse_bytes
from engram.workspace import resolve

MEMS = Path(__file__).resolve().parent.parent / "fixtures" / "memories"
LEGACY = [("v1", "rules", "use-uv-for-python-envs.md"),
          ("v2", "knowledge", "payments-service-owns-refunds.md")]


@pytest.fixture
def store(project: Path) -> Store:
    roots = resolve()
    roots.workspace.path.mkdir(parents=True)
    s = Store(roots.workspace)
    s.write_files([Change(f"{d}/{name}", (MEMS / v / name).read_text()) for v, d, name in LEGACY],
                  "seed legacy files")
    return s


def test_upgrade_rewrites_legacy_files_as_v3_with_backup_and_same_body(
    store: Store, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["upgrade"]) == 0
    for v, d, name in LEGACY:
        old = (MEMS / v / name).read_text()
        new_bytes = (store.path / d / name).read_bytes()
        memory = parse_bytes(new_bytes, f"{d}/{name}", store.root)
        assert memory.schema_version == 3
        assert split_file(new_bytes.decode(), name)[1] == split_file(old, name)[1]
        assert (store.path / d / (name + ".pre-v3.bak")).read_text() == old
    assert main(["verify"]) == 0
    capsys.readouterr()
    assert main(["upgrade", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["data"]["memories"] == []


def test_upgrade_plan_migrates_nothing(store: Store) -> None:
    before = (store.path / "rules/use-uv-for-python-envs.md").read_bytes()
    assert main(["upgrade", "--plan"]) == 0
    assert (store.path / "rules/use-uv-for-python-envs.md").read_bytes() == before


def test_upgrade_skips_a_hand_edited_legacy_file(
    store: Store, capsys: pytest.CaptureFixture[str]
) -> None:
    path = store.path / "knowledge/payments-service-owns-refunds.md"
    path.write_text(path.read_text() + "\nedited by hand\n")
    assert main(["upgrade"]) == 0
    assert "skipped: hand-edited" in capsys.readouterr().out
    assert "schema_version" not in path.read_text()
