"""Golden before/after fixtures per host and scope (tests/fixtures/hosts/<host>/<scope>/).

Each `before/` starts from the user's own servers, keys and comments. Link must produce exactly
`after/`; a second link changes nothing; unlink gives `before/` back (backups aside); --plan
writes nothing. Regenerate after an intended change with ENGRAM_REGEN_GOLDEN=1.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any

import pytest

from engram.cli.main import main
from engram.hosts.targets import NAMES

CASES = [(h, s) for h in NAMES for s in ("workspace", "global")]
BAK = ".engram.bak"


def _base(scope: str, project: Path, home: Path) -> Path:
    return home if scope == "global" else project


def _start(host: str, scope: str, project: Path, home: Path,
           kit: Any) -> tuple[Path, Path, dict[str, bytes]]:
    """Lay the case's `before/` files where the host reads them; return case, base, snapshot."""
    case = kit.fixtures / host / scope
    base = _base(scope, project, home)
    kit.copy_tree(case / "before", base)
    return case, base, kit.snapshot(base)


def _link_args(host: str, scope: str) -> list[str]:
    return ["link", host] + (["--global"] if scope == "global" else [])


def _without_backups(files: dict[str, bytes]) -> dict[str, bytes]:
    return {k: v for k, v in files.items() if not k.endswith(BAK)}


@pytest.mark.parametrize(("host", "scope"), CASES)
def test_link_matches_golden_and_unlink_restores(
    host: str, scope: str, project: Path, home: Path, bin_dir: Path, kit: Any
) -> None:
    case, base, before = _start(host, scope, project, home, kit)

    assert main([*_link_args(host, scope), "--plan"]) == 0
    assert kit.snapshot(base) == before

    assert main(_link_args(host, scope)) == 0
    after = _without_backups(kit.snapshot(base))
    if os.environ.get("ENGRAM_REGEN_GOLDEN"):
        shutil.rmtree(case / "after", ignore_errors=True)
        for rel, data in after.items():
            (case / "after" / rel).parent.mkdir(parents=True, exist_ok=True)
            (case / "after" / rel).write_bytes(data)
    assert after == kit.snapshot(case / "after")

    assert main(_link_args(host, scope)) == 0
    assert _without_backups(kit.snapshot(base)) == after

    unlink = ["unlink", host] + (["--global"] if scope == "global" else [])
    assert main(unlink) == 0
    assert _without_backups(kit.snapshot(base)) == before
    assert main(unlink) == 0
    assert _without_backups(kit.snapshot(base)) == before


@pytest.mark.parametrize(("host", "scope"), CASES)
def test_every_changed_user_file_has_a_backup_of_its_original(
    host: str, scope: str, project: Path, home: Path, bin_dir: Path, kit: Any
) -> None:
    case, base, before = _start(host, scope, project, home, kit)
    assert main(_link_args(host, scope)) == 0
    for rel, data in kit.snapshot(base).items():
        if rel in before and data != before[rel]:
            assert (base / (rel + BAK)).read_bytes() == before[rel]
