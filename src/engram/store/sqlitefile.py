"""SQLite cache databases (`.cache/index.sqlite`, `derived.sqlite`, `anchors.sqlite`) opened
so that nothing they write can land outside the root (docs/safety.md, "write the workspace
while Engram writes"): through the checked folder's descriptor, as fileio.py writes files.
"""

from __future__ import annotations

import os
import sqlite3
import stat
import weakref
from collections.abc import Callable
from pathlib import Path

from engram.errors import StorageError
from engram.store.fileio import contained_parent


class _PinnedConnection(sqlite3.Connection):
    """A connection to a database reached through a held directory descriptor; closing it
    releases the descriptor (so does garbage collection, via `weakref.finalize`)."""

    release: weakref.finalize[[int], _PinnedConnection] | None = None

    def close(self) -> None:
        super().close()
        if self.release is not None:
            self.release()


# Linux names an open directory `/proc/self/fd/N`: a path through it reaches that directory
# even after a folder on the way was swapped for a symlink.
_PROC_FD = Path("/proc/self/fd")


def connect_sqlite(path: Path, *, timeout: float = 10.0,
                   check_same_thread: bool = True) -> sqlite3.Connection:
    """An autocommit SQLite connection in WAL mode to the cache database `path`, its folder
    created.

    Under a contained root on Linux the folder is reached like every write (one directory at a
    time, no symlink followed) and SQLite opens the file through the held descriptor. SQLite
    names the database by its resolved path and opens the WAL and shared-memory files by that
    name, so they are opened here, at once, and checked to be regular files in the held folder:
    after that the connection holds all three open and a folder swapped for a link later changes
    nothing it writes. A database, WAL or shared-memory file that is a symlink, or a WAL opened
    elsewhere, is refused (`storage.symlink`). Elsewhere: the plain path, after `mkdir`."""
    dfd = contained_parent(path) if _PROC_FD.is_dir() else None
    if dfd is None:
        path.parent.mkdir(parents=True, exist_ok=True)
        db = sqlite3.connect(path, timeout=timeout, isolation_level=None,
                             check_same_thread=check_same_thread)
        db.execute("PRAGMA journal_mode=WAL")
        return db
    try:
        names = (path.name, f"{path.name}-wal", f"{path.name}-shm")
        _regular_or_absent(path.parent, names, dfd)
        before = _open_fds()
        pinned = sqlite3.connect(f"{_PROC_FD}/{dfd}/{path.name}", timeout=timeout,
                                 isolation_level=None, check_same_thread=check_same_thread,
                                 factory=_PinnedConnection)
    except BaseException:
        os.close(dfd)
        raise
    pinned.release = weakref.finalize(pinned, os.close, dfd)
    try:
        wal = pinned.execute("PRAGMA journal_mode=WAL").fetchone()[0] == "wal"
        pinned.execute("SELECT count(*) FROM sqlite_master").fetchone()
        _regular_or_absent(path.parent, names, dfd, required=names if wal else names[:1])
        _opened_in_folder(path.parent, names, dfd, _open_fds() - before)
    except BaseException:
        pinned.close()
        raise
    return pinned


def _regular_or_absent(folder: Path, names: tuple[str, ...], dfd: int,
                       required: tuple[str, ...] = ()) -> None:
    for name in names:
        try:
            st = os.stat(name, dir_fd=dfd, follow_symlinks=False)
        except FileNotFoundError:
            if name not in required:
                continue
            raise StorageError(f"refusing to use {folder / names[0]}: {name} was created "
                               "outside its folder (was the folder swapped?)",
                               code="storage.symlink",
                               hint="check `engram doctor`, then retry") from None
        # A second hard link could be a file outside the repository that SQLite would write.
        if not stat.S_ISREG(st.st_mode) or st.st_nlink != 1:
            raise StorageError(f"refusing to open {folder / name}: it is a symlink, a hard "
                               "link or not a regular file", code="storage.symlink",
                               hint="delete it (it is a cache Engram rebuilds), then retry")


def _open_fds() -> set[int]:
    try:
        return {int(p.name) for p in _PROC_FD.iterdir()}
    except (OSError, ValueError):
        return set()


def _opened_in_folder(folder: Path, names: tuple[str, ...], dfd: int, fds: set[int]) -> None:
    """Each descriptor SQLite opened for `names` is a file of the held folder.

    SQLite resolves `/proc/self/fd/N` to a path string and opens that: a folder swapped in
    between would send it elsewhere, with the held folder still holding a database of the same
    name. The descriptors it now holds say which files it really opened."""
    mine: set[tuple[int, int]] = set()
    for name in names:
        try:
            st = os.stat(name, dir_fd=dfd, follow_symlinks=False)
        except FileNotFoundError:
            continue
        mine.add((st.st_dev, st.st_ino))
    for fd in fds:
        try:
            target = str((_PROC_FD / str(fd)).readlink())
            if not target.endswith(tuple(f"/{n}" for n in names)):
                continue  # another thread's file
            st = os.fstat(fd)
        except OSError:
            continue  # closed meanwhile
        if (st.st_dev, st.st_ino) not in mine:
            raise StorageError(f"refusing to use {folder / names[0]}: SQLite opened {target}, "
                               "not the file in the checked folder (was a folder swapped?)",
                               code="storage.symlink", hint="check `engram doctor`, then retry")


UNUSABLE = "cache.unusable"
UNUSABLE_HINT = ("the cache under .agents/.engram/.cache is rebuilt by Engram; if this repeats, "
                 "delete that directory")
# SQLite result codes that say the file itself is not a usable database: it is removed and
# built again (nothing in it is truth). Others (locked, read-only) leave the file alone.
_BROKEN = ("SQLITE_CORRUPT", "SQLITE_NOTADB", "SQLITE_SCHEMA", "SQLITE_CONSTRAINT",
           "SQLITE_ERROR", "SQLITE_MISMATCH", "SQLITE_RANGE", "SQLITE_FORMAT")


def open_cache(path: Path, prepare: Callable[[sqlite3.Connection], None], *,
               check_same_thread: bool = True) -> tuple[sqlite3.Connection, bool]:
    """A usable connection to the cache database `path`, and whether the file on disk could
    not be used as it was (`cache.unusable`: the caller warns, never with SQLite's text).

    `prepare(db)` makes the schema current (and raises sqlite3.Error when it cannot). Objects
    Engram never creates in a cache (triggers, views) are dropped first: a planted trigger
    could abort every write with a sentence of its author's. A file SQLite calls corrupt, not
    a database or of a foreign schema is removed and built again once; a cache that still
    cannot be used (a directory or link in its place, locked, read-only) is bypassed: an
    in-memory database serves this command. A read-only `.cache/` is not `unusable` (a
    read-only checkout is a normal place to read from)."""
    from engram.storage import fault_text

    unusable = False
    for attempt in (1, 2):
        db: sqlite3.Connection | None = None
        try:
            db = connect_sqlite(path, check_same_thread=check_same_thread)
            planted = drop_planted(db)
            prepare(db)
            return db, unusable or planted
        except (OSError, sqlite3.Error, StorageError) as exc:
            if db is not None:
                db.close()
            code = fault_text(exc)[1]
            if code in ("storage.readonly", "storage.full"):
                break
            unusable = True
            if attempt == 2 or not remove_broken(path, exc):
                break
    memory = sqlite3.connect(":memory:", isolation_level=None,
                             check_same_thread=check_same_thread)
    prepare(memory)
    return memory, unusable


def drop_planted(db: sqlite3.Connection) -> bool:
    """Drop every trigger and view (Engram's caches have none); True when there were any."""
    rows = db.execute("SELECT type, name FROM sqlite_master "
                      "WHERE type IN ('trigger', 'view')").fetchall()
    for kind, name in rows:
        quoted = str(name).replace('"', '""')
        db.execute(f'DROP {"TRIGGER" if kind == "trigger" else "VIEW"} IF EXISTS "{quoted}"')
    return bool(rows)


def remove_broken(path: Path, exc: BaseException) -> bool:
    """Remove a cache file SQLite says is broken (`_BROKEN`), with its WAL and shared memory
    (contained, like every removal); False when it is not broken that way or cannot be removed
    (then it is bypassed)."""
    from engram.store.fileio import remove

    if not str(getattr(exc, "sqlite_errorname", "") or "").startswith(_BROKEN):
        return False
    try:
        if not path.is_file() or path.is_symlink():
            return False
        for name in (path.name, f"{path.name}-wal", f"{path.name}-shm"):
            remove(path.with_name(name))
    except (OSError, StorageError):
        return False
    return True
