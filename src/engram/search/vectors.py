"""The index's `vec` table: one stored vector per `mem` row, for the semantic extra.

Filled only while the channel is on and its table loads (`fill`); a row indexed while it was
off, or by a process that skipped it, gets its vector on the next request that has the table.
The table's identity is kept in `meta`: vectors from another table are dropped and recomputed.
`index.py` deletes a row's vector with the row, so a reused row id never shows an old one.
Works on a connection; numpy is needed only by the embedder passed in.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from typing import TYPE_CHECKING

from engram.search.index_file import memory_from_json

if TYPE_CHECKING:
    from engram.search.semantic import Embedder

_MISSING = ("SELECT m.rowid, m.data FROM mem m "
            "WHERE NOT EXISTS (SELECT 1 FROM vec v WHERE v.rowid = m.rowid)")


def fill(db: sqlite3.Connection, embedder: Embedder) -> int:
    """Store a vector for every row lacking one (all rows when the table changed), in one
    transaction; returns how many were computed."""
    db.execute("BEGIN IMMEDIATE")
    try:
        row = db.execute("SELECT value FROM meta WHERE key = 'vectors'").fetchone()
        if row is None or row[0] != embedder.ident:
            db.execute("DELETE FROM vec")
            db.execute("INSERT OR REPLACE INTO meta VALUES ('vectors', ?)", (embedder.ident,))
        done = 0
        for rowid, data in db.execute(_MISSING).fetchall():
            stored = embedder.memory_bytes(memory_from_json(data))
            db.execute("INSERT INTO vec VALUES (?, ?)", (rowid, stored))
            done += 1
    except BaseException:
        db.execute("ROLLBACK")
        raise
    db.execute("COMMIT")
    return done


def fetch(db: sqlite3.Connection, rowids: Sequence[int]) -> dict[int, bytes]:
    """The stored vectors of these rows (rows without one are absent)."""
    if not rowids:
        return {}
    marks = ", ".join("?" * len(rowids))
    return {int(r): bytes(v) for r, v in db.execute(
        f"SELECT rowid, v FROM vec WHERE rowid IN ({marks})", tuple(rowids))  # noqa: S608
        if v}
