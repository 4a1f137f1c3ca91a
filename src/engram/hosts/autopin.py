"""Re-pin linked hosts once after a package update, unless ENGRAM_NO_AUTO_UPGRADE=1
(docs/hosts.md "Upgrade").

`cli/main.py` calls `maybe_repin()` before each command. The common path is one small file read
(`<config dir>/last-version`) compared with the installed version; only when they differ does it
import the host engine and re-link every recorded link (notes go to stderr, never stdout, so
hook answers stay clean). It never raises: a failed re-pin is reported and retried next time.
"""

from __future__ import annotations

import sys
from pathlib import Path

from engram.config import read_env

STAMP = "last-version"


def write_stamp(config_dir: Path) -> None:
    from engram.hosts.command import installed_version
    from engram.store.fileio import atomic_write

    atomic_write(config_dir / STAMP, installed_version() + "\n")


def maybe_repin() -> None:
    env = read_env()
    if env.no_auto_upgrade:
        return
    import engram

    stamp = env.config_dir / STAMP
    try:
        seen = stamp.read_text(encoding="utf-8").strip()
    except OSError:
        seen = None
    if seen == engram.__version__ or not (env.config_dir / "hosts.json").is_file():
        return  # current, or nothing was ever linked: write nothing at all
    try:
        _repin(env.config_dir)
    except Exception as exc:  # noqa: BLE001 - never break the command the user asked for
        from engram.storage import fault_text

        sys.stderr.write(f"engram: automatic re-pin failed ({fault_text(exc)[0]}); "
                         "run `engram upgrade`\n")


def _repin(config_dir: Path) -> None:
    from engram.hosts import files

    with files.hosts_lock(config_dir):
        _repin_locked(config_dir)


def _repin_locked(config_dir: Path) -> None:
    from engram.hosts import files, link, upgrade
    from engram.workspace import resolve

    state = files.State(config_dir)
    changed = False
    by_project: dict[str | None, list[dict[str, object]]] = {}
    for rec in state.links:
        by_project.setdefault(rec.get("project"), []).append(rec)
    for project, records in by_project.items():
        if project and not Path(project).is_dir():
            continue  # a deleted project: never recreate files there
        roots = resolve(workspace=project) if project else resolve()
        results = upgrade.relink(roots, records, plan=False, refresh=False)
        changed |= any(not isinstance(r, link.AlreadyLinked) for r in results)
    if changed:  # a first run after `link` finds everything current: say nothing
        sys.stderr.write("engram: re-pinned linked hosts to the installed version\n")
    write_stamp(config_dir)
