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

from engram.search.rank import COLUMNS, MIN_PREFIX, WEIGHTS, kind_words
from engram.search.terms import STOP_WORDS, stems
from engram.search.visibility import Policy
from engram.store.model import Memory

DDL = f"""
CREATE VIRTUAL TABLE IF NOT EXISTS route_fts USING fts5({", ".join(COLUMNS)}, flags,
  field_stems UNINDEXED, tag_stems UNINDEXED, tags_raw UNINDEXED, depends_raw UNINDEXED,
  tokenize='unicode61 remove_diacritics 2');
"""
_EXTRA = ("field_stems", "tag_stems", "tags_raw", "depends_raw")
# `flags` tokens let FTS5 itself drop always-hidden rows and find the few whose visibility
# depends on the user's config, so counting matches never has to join every row (§6.1.1).
HIDDEN_FLAG = "zzhidden"  # archived, superseded or low confidence
DYNAMIC_FLAG = "zzdynamic"  # role-scoped or a working note: depends on config and date
_SEP = "\x1f"  # joins list values; never part of an id or a tag
_HEADING = re.compile(r"^#{1,6}\s.*$", re.MULTILINE)
_MEM_COLS = ("rel", "id", "type", "lifecycle", "confidence", "roles", "tier", "valid_until",
             "updated")


@dataclass(slots=True)  # built per candidate row: slots, not frozen, keep it cheap
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


@dataclass(slots=True)
class Extras:
    """What reranking and selection need about a candidate, without decoding its JSON."""

    tag_text: str  # stems of tags and triggers, space-padded (rank.text_hits)
    tags: tuple[str, ...]
    depends_on: tuple[str, ...]


def fts_values(m: Memory) -> tuple[str, ...]:
    """The route_fts column values of a memory: rank.COLUMNS, then the `_EXTRA` columns."""
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
    flags = " ".join(f for f, on in (
        (HIDDEN_FLAG, m.lifecycle in ("archived", "superseded") or m.confidence == "low"),
        (DYNAMIC_FLAG, bool(m.roles) or m.is_note)) if on)
    return (*cols, flags, field_stems, tag_stems, _SEP.join(m.tags), _SEP.join(m.depends_on))


def put(conn: sqlite3.Connection, rowid: int, m: Memory) -> None:
    """Index one memory under the `mem` row id it got (caller holds the transaction)."""
    names = ", ".join((*COLUMNS, "flags", *_EXTRA))
    marks = ", ?" * (len(COLUMNS) + 1 + len(_EXTRA))
    conn.execute(f"INSERT INTO route_fts(rowid, {names}) VALUES (?{marks})",  # noqa: S608
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


def visibility_sql(policy: Policy, *, for_search: bool = False) -> tuple[str, list[Any]]:
    """The policy as a WHERE clause over `mem m`, so hidden rows never leave SQLite.

    Mirrors `Policy.hidden_reason` (and `search_hidden_reason`), which still checks every row
    that comes back; ignore globs are evaluated by a Python function registered per query.
    """
    clauses: list[str] = []
    params: list[Any] = []
    if policy.ignore:
        clauses.append("engram_ignored(m.rel, m.id) = 0")
    if not for_search:
        clauses += ["m.lifecycle NOT IN ('archived', 'superseded')",
                    "coalesce(m.confidence, '') != 'low'",
                    "(m.tier != 'working' OR coalesce(m.valid_until, '') >= ?)"]
        params.append(policy.today)
        roles = ["coalesce(m.roles, '') = ''"]
        for role in sorted(policy.roles):
            roles.append("(' ' || lower(m.roles) || ' ') LIKE ? ESCAPE '\\'")
            params.append("% " + role.replace("\\", "\\\\").replace("%", "\\%")
                          .replace("_", "\\_") + " %")
        clauses.append("(" + " OR ".join(roles) + ")")
    return (" AND ".join(clauses) or "1"), params


def _register(conn: sqlite3.Connection, policy: Policy) -> None:
    conn.create_function("engram_ignored", 2,
                         lambda rel, mid: int(policy.is_ignored(str(rel), str(mid))),
                         deterministic=True)


def fts_query(match: str, *, for_search: bool = False) -> str:
    """The MATCH string: anchors searched in the ranked columns only, always-hidden rows
    dropped for routing (search still shows superseded and low-confidence memories)."""
    query = f"{{{' '.join(COLUMNS)}}} : ({match})"
    return query if for_search else f"({query}) NOT flags : {HIDDEN_FLAG}"


def _bm25() -> str:
    return f"-bm25(route_fts, {', '.join(str(w) for w in WEIGHTS)}, 0.0)"


def docs_by_rowid(conn: sqlite3.Connection, scope: str, rowids: Sequence[int]) -> dict[int, Doc]:
    if not rowids:
        return {}
    marks = ", ".join("?" * len(rowids))
    rows = conn.execute(_SELECT + f" WHERE m.rowid IN ({marks})", tuple(rowids))  # noqa: S608
    return {int(r[0]): _doc(scope, r) for r in rows}


def matches(conn: sqlite3.Connection, scope: str, match: str, policy: Policy, *, limit: int,
            for_search: bool = False, hidden: bool = False) -> list[tuple[Doc, float]]:
    """The best `limit` memories matching the FTS expression that the policy shows (or, with
    `hidden=True`, hides), with BM25 scores (positive, best first). Every returned row has
    passed the policy's own check, so callers need not check again.

    BM25 runs inside FTS5 on the index alone; only the top rows are joined with `mem` and
    checked against the policy, widening the window when too many of them are hidden.
    """
    if hidden or policy.ignore:
        return _matches_joined(conn, scope, match, policy, limit=limit,
                               for_search=for_search, hidden=hidden)
    query = fts_query(match, for_search=for_search)
    sql = (f"SELECT rowid, {_bm25()} AS s FROM route_fts "  # noqa: S608
           "WHERE route_fts MATCH ? ORDER BY s DESC LIMIT ?")
    window = limit + limit // 2 + 4
    while True:
        rows = conn.execute(sql, (query, window)).fetchall()
        found = docs_by_rowid(conn, scope, [int(r[0]) for r in rows])
        check = policy.search_hidden_reason if for_search else policy.hidden_reason
        out = [(found[int(r)], float(s)) for r, s in rows
               if int(r) in found and check(found[int(r)]) is None]
        if len(out) >= limit or len(rows) < window:
            return out[:limit]
        window *= 4


def _matches_joined(conn: sqlite3.Connection, scope: str, match: str, policy: Policy, *,
                    limit: int, for_search: bool, hidden: bool) -> list[tuple[Doc, float]]:
    """Visibility evaluated in SQL for every match (ignore globs, explain's hidden list)."""
    _register(conn, policy)
    where, params = visibility_sql(policy, for_search=for_search)
    if hidden:
        where = f"NOT ({where})"
    sql = (f"SELECT {_bm25()} AS s, m.rowid, "  # noqa: S608
           + ", ".join(f"m.{c}" for c in _MEM_COLS)
           + " FROM route_fts JOIN mem m ON m.rowid = route_fts.rowid"
           f" WHERE route_fts MATCH ? AND {where} ORDER BY s DESC LIMIT ?")
    rows = conn.execute(sql, (fts_query(match, for_search=True), *params, limit))
    found = [(_doc(scope, row[1:]), float(row[0])) for row in rows]
    if hidden:
        return found
    # The policy itself has the last word, as on the fast path.
    check = policy.search_hidden_reason if for_search else policy.hidden_reason
    return [(d, s) for d, s in found if check(d) is None]


def count_matches(conn: sqlite3.Connection, match: str, policy: Policy, *,
                  for_search: bool = False) -> int:
    """How many memories the policy shows match: an FTS5 count, corrected by the few rows
    whose visibility depends on roles or dates (exact, by a join, under ignore globs)."""
    if policy.ignore:
        _register(conn, policy)
        where, params = visibility_sql(policy, for_search=for_search)
        sql = ("SELECT count(*) FROM route_fts JOIN mem m "  # noqa: S608
               f"ON m.rowid = route_fts.rowid WHERE route_fts MATCH ? AND {where}")
        query = fts_query(match, for_search=True)
        return int(conn.execute(sql, (query, *params)).fetchone()[0])
    query = fts_query(match, for_search=for_search)
    total = int(conn.execute("SELECT count(*) FROM route_fts WHERE route_fts MATCH ?",
                             (query,)).fetchone()[0])
    if for_search:
        return total
    dynamic = [int(r[0]) for r in conn.execute(
        "SELECT rowid FROM route_fts WHERE route_fts MATCH ?",
        (f"{query} AND flags : {DYNAMIC_FLAG}",))]
    found = docs_by_rowid(conn, "", dynamic)
    return total - sum(1 for d in found.values() if policy.hidden_reason(d) is not None)


def existing_ids(conn: sqlite3.Connection, ids: Sequence[str]) -> set[str]:
    """Which of these ids this root has (a workspace id shadows the global one)."""
    if not ids:
        return set()
    marks = ", ".join("?" * len(ids))
    sql = f"SELECT id FROM mem WHERE id IN ({marks})"  # noqa: S608
    return {str(r[0]) for r in conn.execute(sql, tuple(ids))}


def extras_of(conn: sqlite3.Connection, rowids: Sequence[int]) -> dict[int, Extras]:
    """Tag stems, tags and prerequisites of a few rows (the candidates that get reranked)."""
    if not rowids:
        return {}
    marks = ", ".join("?" * len(rowids))
    sql = (f"SELECT rowid, tag_stems, tags_raw, depends_raw FROM route_fts "  # noqa: S608
           f"WHERE rowid IN ({marks})")
    return {int(r[0]): Extras(f" {r[1]} ",
                              tuple(t for t in str(r[2]).split(_SEP) if t),
                              tuple(t for t in str(r[3]).split(_SEP) if t))
            for r in conn.execute(sql, tuple(rowids))}


def field_stems_of(conn: sqlite3.Connection, rowids: Sequence[int]) -> dict[int, tuple[str, str]]:
    """Per row, as space-padded strings: every stem of id, title, tags, triggers and body (which
    anchors matched), and the stems of id, title, tags and triggers alone (where they did)."""
    if not rowids:
        return {}
    marks = ", ".join("?" * len(rowids))
    sql = ("SELECT rowid, field_stems, ident, title, tag_stems FROM route_fts "  # noqa: S608
           f"WHERE rowid IN ({marks})")
    return {int(r[0]): (f" {r[1]} ", f" {r[2]} {r[3]} {r[4]} ")
            for r in conn.execute(sql, tuple(rowids))}


def memory_count(conn: sqlite3.Connection) -> int:
    return int(conn.execute("SELECT count(*) FROM mem").fetchone()[0])


def doc_freq(conn: sqlite3.Connection, anchors: Sequence[str], n: int) -> dict[str, int]:
    """How many indexed memories hold each anchor the way the MATCH query meets it (exact, long
    ones also as a prefix), capped at `n` memories. Hidden rows count too: this measures how
    common a word is in the store (for IDF), not what routing may show. FTS5's vocabulary
    table answers from the index's term list without touching any row."""
    conn.execute("CREATE VIRTUAL TABLE IF NOT EXISTS temp.route_vocab "
                 "USING fts5vocab(main, route_fts, 'row')")
    out: dict[str, int] = {}
    for a in anchors:
        if len(a) >= MIN_PREFIX:
            # Several words sharing the prefix in one memory count once each: hence the cap.
            row = conn.execute("SELECT sum(doc) FROM temp.route_vocab WHERE term >= ? "
                               "AND term < ?", (a, a + "\uffff")).fetchone()
        else:
            row = conn.execute("SELECT doc FROM temp.route_vocab WHERE term = ?",
                               (a,)).fetchone()
        out[a] = min(n, int(row[0] or 0)) if row else 0
    return out


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
