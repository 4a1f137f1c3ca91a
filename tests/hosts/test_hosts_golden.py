"""Golden before/after fixtures per host and scope (tests/fixtures/hosts/<host>/<scope>/).

Each `before/` starts from the user's own servers, keys, permission rules and comments. Link must
produce exactly `after/`; a second link changes nothing; unlink gives `before/` back; --plan
writes nothing; backups never land in the working tree, and `unlink --restore` puts them back.
Regenerate after an intended change with ENGRAM_REGEN_GOLDEN=1.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any

import pytest

from engram.cli.main import main
from engram.hosts.files import backup_path
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


def _bin_as_placeholder(files: dict[str, bytes], bin_dir: Path) -> dict[str, bytes]:
    """Launch commands are absolute paths of the test's own bin dir: `{BIN}` in the goldens."""
    return {k: v.replace(str(bin_dir).encode(), b"{BIN}") for k, v in files.items()}


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
    after = _bin_as_placeholder(_without_backups(kit.snapshot(base)), bin_dir)
    if os.environ.get("ENGRAM_REGEN_GOLDEN"):
        shutil.rmtree(case / "after", ignore_errors=True)
        for rel, data in after.items():
            (case / "after" / rel).parent.mkdir(parents=True, exist_ok=True)
            (case / "after" / rel).write_bytes(data)
    assert after == kit.snapshot(case / "after")

    assert main(_link_args(host, scope)) == 0
    assert _bin_as_placeholder(_without_backups(kit.snapshot(base)), bin_dir) == after

    unlink = ["unlink", host] + (["--global"] if scope == "global" else [])
    assert main(unlink) == 0
    assert _without_backups(kit.snapshot(base)) == before
    assert main(unlink) == 0
    assert _without_backups(kit.snapshot(base)) == before


@pytest.mark.parametrize(("host", "scope"), CASES)
def test_backups_stay_out_of_the_tree_and_unlink_restore_puts_them_back(
    host: str, scope: str, project: Path, home: Path, bin_dir: Path, kit: Any
) -> None:
    case, base, before = _start(host, scope, project, home, kit)
    assert main(_link_args(host, scope)) == 0
    assert not [rel for rel in kit.snapshot(base) if rel.endswith(BAK)]
    changed = [rel for rel, data in kit.snapshot(base).items()
               if rel in before and data != before[rel]]
    for rel in changed:
        assert backup_path(home / ".engram", base / rel).read_bytes() == before[rel]
    for rel in changed:  # the user edits a linked file by hand afterwards
        (base / rel).write_bytes((base / rel).read_bytes() + b"\n")
    unlink = ["unlink", host, "--restore"] + (["--global"] if scope == "global" else [])
    assert main(unlink) == 0
    assert kit.snapshot(base) == before
    assert not any(backup_path(home / ".engram", base / rel).exists() for rel in changed)
