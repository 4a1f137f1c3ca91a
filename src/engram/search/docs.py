"""The routing table of the derived index: every memory's fields as stems, for BM25.

The index's `mem` table already keeps what visibility needs (id, type, lifecycle, confidence,
roles, tier, valid_until) and the whole Memory as JSON. `route_fts` adds an FTS5 table, keyed by
the same row id, whose columns (rank.COLUMNS) hold id, title, tags, triggers, body and type words
already reduced by terms.stems, so `bm25()` ranks on exactly the terms the query anchors on.
This module owns that table and the candidate queries; index.py decides when rows are written.
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from engram.search.rank import COLUMNS, WEIGHTS, kind_words
from engram.search.terms import STOP_WORDS, stems
from engram.store.model import Memory

DDL = f"""
CREATE VIRTUAL TABLE IF NOT EXISTS route_fts USING fts5({", ".join(COLUMNS)},
  field_stems UNINDEXED, tag_stems UNINDEXED, tokenize='unicode61 remove_diacritics 2');
"""
_HEADING = re.compile(r"^#{1,6}\s.*$", re.MULTILINE)
_MEM_COLS = ("rel", "id", "type", "lifecycle", "confidence", "roles", "tier", "valid_until",
             "updated")


@dataclass(frozen=True)
class Doc:
    """A memory as the index row knows it: enough to filter and order without parsing JSON."""

    rowid: int
    scope: str
    rel_path: str
    id: str
    type: str
    lifecycle: str
    confidence: str
    role_list: tuple[str, ...]
    tier: str
    valid_until_s: str
    updated: str

    @property
    def key(self) -> str:
        return f"{self.scope}:{self.id}"

    @property
    def roles(self) -> list[str]:
        return list(self.role_list)

    @property
    def is_note(self) -> bool:
        return self.tier == "working"

    @property
    def valid_until(self) -> str | None:
        return self.valid_until_s or None


def _stemmed(text: str) -> str:
    return " ".join(s for s in stems(text) if s not in STOP_WORDS)


def fts_values(m: Memory) -> tuple[str, ...]:
    """The route_fts column values of a memory: rank.COLUMNS, then field and tag stem sets."""
    body = m.body
    if m.type == "rule" and m.variants:
        # Variants restate the content three ways; index the content once so rules are not
        # favoured by repetition.
        body = re.split(r"^##\s+rule\s+variants", body, flags=re.IGNORECASE | re.MULTILINE)[0]
    cols = (_stemmed(m.id), _stemmed(m.title), _stemmed(" ".join(m.tags)),
            _stemmed(" ".join(m.triggers)), _stemmed(_HEADING.sub(" ", body)),
            _stemmed(kind_words(m.type)))
    field_stems = " ".join(sorted(set(" ".join(cols[:5]).split())))
    tag_stems = " ".join(sorted(set(f"{cols[2]} {cols[3]}".split())))
    return (*cols, field_stems, tag_stems)


def put(conn: sqlite3.Connection, rowid: int, m: Memory) -> None:
    """Index one memory under the `mem` row id it got (caller holds the transaction)."""
    names = ", ".join((*COLUMNS, "field_stems", "tag_stems"))
    conn.execute(f"INSERT INTO route_fts(rowid, {names}) VALUES (?{', ?' * (len(COLUMNS) + 2)})",  # noqa: S608
                 (rowid, *fts_values(m)))


def delete(conn: sqlite3.Connection, rowid: int) -> None:
    conn.execute("DELETE FROM route_fts WHERE rowid = ?", (rowid,))


def _doc(scope: str, row: Sequence[Any]) -> Doc:
    return Doc(rowid=int(row[0]), scope=scope, rel_path=str(row[1]), id=str(row[2]),
               type=str(row[3]), lifecycle=str(row[4] or "active"),
               confidence=str(row[5] or "high"), role_list=tuple(str(row[6] or "").split()),
               tier=str(row[7] or "durable"), valid_until_s=str(row[8] or ""),
               updated=str(row[9] or ""))


# SQL below is built from this module's constant names and `?` placeholders only (hence noqa S608).
_SELECT = "SELECT m.rowid, " + ", ".join(f"m.{c}" for c in _MEM_COLS) + " FROM mem m"  # noqa: S608


def matches(conn: sqlite3.Connection, scope: str, match: str) -> list[tuple[Doc, float]]:
    """Every memory matching the FTS expression with its BM25 score (positive, best first)."""
    weights = ", ".join(str(w) for w in WEIGHTS)
    sql = (f"SELECT -bm25(route_fts, {weights}) AS s, m.rowid, "  # noqa: S608
           + ", ".join(f"m.{c}" for c in _MEM_COLS)
           + " FROM route_fts JOIN mem m ON m.rowid = route_fts.rowid"
           " WHERE route_fts MATCH ? ORDER BY s DESC")
    return [(_doc(scope, row[1:]), float(row[0])) for row in conn.execute(sql, (match,))]


def stems_of(conn: sqlite3.Connection, rowids: Sequence[int]) -> dict[int, tuple[str, str]]:
    """Field and tag stem sets of a few rows (only the candidates that get reranked)."""
    if not rowids:
        return {}
    marks = ", ".join("?" * len(rowids))
    sql = f"SELECT rowid, field_stems, tag_stems FROM route_fts WHERE rowid IN ({marks})"  # noqa: S608
    return {int(r[0]): (str(r[1]), str(r[2])) for r in conn.execute(sql, tuple(rowids))}


def data_of(conn: sqlite3.Connection, rowids: Sequence[int]) -> dict[int, str]:
    """The stored Memory JSON of a few rows."""
    if not rowids:
        return {}
    marks = ", ".join("?" * len(rowids))
    sql = f"SELECT rowid, data FROM mem WHERE rowid IN ({marks})"  # noqa: S608
    return {int(r[0]): str(r[1]) for r in conn.execute(sql, tuple(rowids))}


def by_id(conn: sqlite3.Connection, scope: str, memory_id: str) -> Doc | None:
    row = conn.execute(_SELECT + " WHERE m.id = ? ORDER BY m.rel LIMIT 1",
                       (memory_id,)).fetchone()
    return _doc(scope, row) if row else None


def all_docs(conn: sqlite3.Connection, scope: str) -> list[Doc]:
    return [_doc(scope, r) for r in conn.execute(_SELECT + " ORDER BY m.id")]
