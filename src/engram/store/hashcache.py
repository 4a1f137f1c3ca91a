"""Values derived from a file's bytes, cached by the bytes' SHA-256 in `.cache/derived.sqlite`.

A value is a pure function of the bytes and of the name it is kept under (`kind:version`), so a
hit is always right and losing the file only costs computing the values again. The write path
keeps each memory's verdict words here (proposals/plan.py), the stale check each memory's
anchors (anchors/api.py). A `.cache/` that cannot be written gets no cache: every value is then
computed each time. The read path never reads this file.
"""

from __future__ import annotations

import contextlib
import sqlite3
from collections.abc import Callable, Collection, Mapping
from pathlib import Path
from types import TracebackType

from engram.store.sqlitefile import open_cache

FILE = "derived.sqlite"
_DDL = ("CREATE TABLE IF NOT EXISTS derived(sha TEXT, name TEXT, value TEXT, "
        "PRIMARY KEY(name, sha)) WITHOUT ROWID")


def _prepare(db: sqlite3.Connection) -> None:
    db.execute(_DDL)


class HashCache:
    """One kind of derived value (`name`, e.g. `verdict-words:1:<engram version>`) by file hash."""

    def __init__(self, cache_dir: Path, name: str) -> None:
        self.name = name
        self._db: sqlite3.Connection | None = None
        try:
            self._db = open_cache(cache_dir / FILE, _prepare)[0]
        except (OSError, sqlite3.Error):
            self._db = None

    def derive(self, shas: Collection[str],
               compute: Callable[[set[str]], Mapping[str, str]]) -> dict[str, str]:
        """The value of each hash in `shas`: cached ones, and `compute(missing)` for the rest,
        which are stored. Values of this kind for other hashes (files gone or changed) and of
        other versions of the kind are dropped then."""
        cached = self._values()
        missing = {s for s in shas if s not in cached}
        if not missing:
            return {s: cached[s] for s in shas}
        computed = compute(missing)
        self._store(computed, shas)
        return {s: cached[s] if s in cached else computed.get(s, "") for s in shas}

    def _values(self) -> dict[str, str]:
        if self._db is None:
            return {}
        try:
            return {str(s): str(v) for s, v in self._db.execute(
                "SELECT sha, value FROM derived WHERE name = ?", (self.name,))}
        except sqlite3.Error:
            return {}

    def _store(self, values: Mapping[str, str], live: Collection[str]) -> None:
        if self._db is None:
            return
        kind = self.name.split(":", 1)[0] + ":"
        keep = set(live)
        db = self._db
        with contextlib.suppress(sqlite3.Error):
            db.execute("BEGIN IMMEDIATE")
            try:
                db.executemany("INSERT OR REPLACE INTO derived VALUES (?, ?, ?)",
                               ((sha, self.name, v) for sha, v in values.items()))
                db.execute("DELETE FROM derived WHERE name != ? AND substr(name, 1, ?) = ?",
                           (self.name, len(kind), kind))
                stale = [(s,) for (s,) in db.execute(
                    "SELECT sha FROM derived WHERE name = ?", (self.name,)) if s not in keep]
                db.executemany("DELETE FROM derived WHERE name = ? AND sha = ?",
                               ((self.name, s) for (s,) in stale))
            except BaseException:
                db.execute("ROLLBACK")
                raise
            db.execute("COMMIT")

    def close(self) -> None:
        if self._db is not None:
            self._db.close()
            self._db = None

    def __enter__(self) -> HashCache:
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close()
