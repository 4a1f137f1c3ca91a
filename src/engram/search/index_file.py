"""The index's cache file: its schema and version, how it is opened, and the JSON form of the
memories its `mem` rows keep. `index.py` owns what goes in and when; this module owns the file.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from engram import jsontext
from engram.search import docs
from engram.store.model import Memory
from engram.store.sqlitefile import open_cache

# Bump whenever this schema or what search/docs.py puts in its rows changes: every index then
# rebuilds itself in place.
SCHEMA = 17  # 4: route_fts; 5: meta; 6: approved; 7: kind words; 8: flags; 9: scanned;
# 10: the first plain FTS table is gone (route_fts serves every query; builds ~25% faster);
# 11: rerank stems and `dynamic` moved to `mem` (one row read per candidate, not three);
# 12: `mem` rows stored as Docs use them (no NULLs, padded stems); no `flags` column: rows
# hidden from routing are excluded by row id (`hidable`, docs.fill_hidden); 13: `derived`
# (values computed from a file's bytes, by hash: the write path's verdict words); 14: no
# `approved` mirror of memory.hashes.json (the guarded read reads the file itself); 15: Snowball
# English stems (PyStemmer) instead of the hand-written suffix stripper, roles in `kind`,
# `supersedes` ids in `triggers`. The `derived` table of 13 moved to its own file
# (store/hashcache.py); an index built before keeps it unused until the next bump drops it.
# 17: odd-typed `id`/list values read as YAML spells them (no `None`/`True` rows).
_DDL = """
CREATE TABLE IF NOT EXISTS files(
  rel TEXT PRIMARY KEY, mtime_ns INTEGER, size INTEGER, ino INTEGER,
  sha TEXT, error TEXT, error_line INTEGER);
CREATE TABLE IF NOT EXISTS mem(
  rowid INTEGER PRIMARY KEY, rel TEXT UNIQUE, id TEXT, type TEXT, lifecycle TEXT,
  confidence TEXT, roles TEXT, tier TEXT, valid_until TEXT, updated TEXT,
  tag_stems TEXT, tags_raw TEXT, depends_raw TEXT, field_stems TEXT, strong_stems TEXT,
  hidable INTEGER, data TEXT);
CREATE INDEX IF NOT EXISTS mem_id ON mem(id);
CREATE INDEX IF NOT EXISTS mem_hidable ON mem(rowid) WHERE hidable = 1;
CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT);
CREATE TABLE IF NOT EXISTS scanned(sha TEXT PRIMARY KEY, version TEXT);
CREATE TABLE IF NOT EXISTS vec(rowid INTEGER PRIMARY KEY, v BLOB);
""" + docs.DDL
_FIELDS = Memory._fields


def memory_to_json(m: Memory) -> str:
    # Hand-built, not Memory._asdict(): the JSON keys are the field names, nothing else.
    return json.dumps({f: getattr(m, f) for f in _FIELDS}, ensure_ascii=False,
                      separators=(",", ":"))


def memory_from_json(text: str) -> Memory:
    return Memory(**jsontext.loads(text))


def open_index(cache_dir: Path) -> tuple[sqlite3.Connection, bool]:
    """The root's index connection, its schema current, and whether the cache file could not
    be used as it was (`sqlitefile.open_cache`: rebuilt, or bypassed by an in-memory index; a
    read-only checkout still gets correct answers)."""
    db, unusable = open_cache(cache_dir / "index.sqlite", _prepare, check_same_thread=False)
    tune(db)
    return db, unusable


def memory_index() -> sqlite3.Connection:
    """An in-memory index for this command alone (the cache file failed in use)."""
    db = sqlite3.connect(":memory:", isolation_level=None, check_same_thread=False)
    _prepare(db)
    tune(db)
    return db


def _prepare(db: sqlite3.Connection) -> None:
    if db.execute("PRAGMA user_version").fetchone()[0] != SCHEMA:
        _rebuild_schema(db)


def tune(db: sqlite3.Connection) -> None:
    db.execute("PRAGMA synchronous=NORMAL")
    # Reads dominate (every load runs a BM25 query): memory-mapped pages skip a copy per page
    # and roughly halve a load at 1,000 memories. Mapped pages are shared with the OS file
    # cache, so this does not grow private memory.
    db.execute("PRAGMA mmap_size=268435456")


def _rebuild_schema(db: sqlite3.Connection) -> None:
    """Replace a new or other-version index in place, under the write lock.

    Several processes may open a fresh cache at once; deleting the file under another process's
    connection corrupts what it writes, so the tables are dropped and recreated instead, and a
    process that waited for the lock finds the work done."""
    db.execute("BEGIN IMMEDIATE")
    try:
        if db.execute("PRAGMA user_version").fetchone()[0] != SCHEMA:
            # Virtual tables first: dropping one drops its shadow tables with it.
            for virtual in (True, False):
                names = [str(r[0]) for r in db.execute(
                    "SELECT name FROM sqlite_master WHERE type = 'table' "
                    "AND name NOT LIKE 'sqlite_%' AND (sql LIKE 'CREATE VIRTUAL%') = ?",
                    (virtual,))]
                for name in names:
                    db.execute(f'DROP TABLE IF EXISTS "{name}"')
            for statement in _DDL.split(";"):
                if statement.strip():
                    db.execute(statement)
            db.execute(f"PRAGMA user_version={SCHEMA}")
    except BaseException:
        db.execute("ROLLBACK")
        raise
    db.execute("COMMIT")
