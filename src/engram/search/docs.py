"""The routing table of the derived index: every memory's fields as stems, for BM25.

The index's `mem` table keeps, per memory, what visibility needs (id, type, lifecycle,
confidence, roles, tier, valid_until), the stems reranking and evidence need (`ROW_COLS`) and the
whole Memory as JSON. `route_fts` adds an FTS5 table, keyed by the same row id, whose columns
(rank.COLUMNS) hold id, title, tags, triggers, body and type words already reduced by
terms.stems, so `bm25()` ranks on exactly the terms the query anchors on. A load is two queries
per root, BM25's top rows and then those rows of `mem`, plus a count of all matches when there
are more than the top. This module owns the route table's contents and the candidate queries;
index_file.py owns the schema (bump its SCHEMA when this changes what rows hold) and index.py
decides when rows are written.
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Sequence
from typing import Any, NamedTuple

from engram.search.rank import COLUMNS, MIN_PREFIX, WEIGHTS, kind_words
from engram.search.terms import STOP_WORDS, stems
from engram.search.visibility import Policy
from engram.store.ids import is_valid_id
from engram.store.model import TYPES, Memory

DDL = f"""
CREATE VIRTUAL TABLE IF NOT EXISTS route_fts USING fts5({", ".join(COLUMNS)},
  tokenize='unicode61 remove_diacritics 2');
"""
# Rows that routing may hide (always: superseded, low confidence; by the user's roles or the
# date: role-scoped memories and working notes) are marked `mem.hidable`; a partial index lists
# just those, and `fill_hidden` keeps the ones the policy hides in a temporary table that the
# BM25 query excludes by row id (docs/reading.md), so ranking and counting never join every match
# with `mem`. Archived memories are not indexed at all.
_HIDDEN_NAME = "engram_hidden"
HIDDEN_ROWS = f"temp.{_HIDDEN_NAME}"  # per connection (fill_hidden)
_SEP = "\x1f"  # joins list values; never part of an id or a tag
_HEADING = re.compile(r"^#{1,6}\s.*$", re.MULTILINE)
# What routing reads per candidate, in one row of `mem` (index.py owns the table): visibility
# fields first, then the stems reranking and evidence need, so no FTS row is ever fetched.
ROW_COLS = ("rel", "id", "type", "lifecycle", "confidence", "roles", "tier", "valid_until",
            "updated", "tag_stems", "tags_raw", "depends_raw", "field_stems", "strong_stems")


class Doc(NamedTuple):
    """A memory as the index row knows it: enough to filter, rerank and order without parsing
    its JSON. Built per candidate row, so a tuple: cheap to make, nothing to mutate."""

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
    tag_text: str = "  "  # stems of tags and triggers, space-padded (rank.text_hits)
    tags: tuple[str, ...] = ()
    depends_on: tuple[str, ...] = ()
    field_text: str = "  "  # every stem of id, title, tags, triggers and body, space-padded
    strong_text: str = "  "  # stems of id, title, tags and triggers alone, space-padded

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


def _supersedes(m: Memory) -> list[str]:
    """The ids this memory replaced: a task may still name the old tool."""
    old = m.meta.get("supersedes")
    return [o for o in old if isinstance(o, str)] if isinstance(old, list) else []


def _stemmed(text: str) -> str:
    return " ".join(s for s in stems(text) if s not in STOP_WORDS)


def row_values(m: Memory) -> tuple[tuple[str, ...], tuple[Any, ...]]:
    """A memory's route_fts column values (rank.COLUMNS) and its `mem` row: `ROW_COLS` in the
    form `_doc` hands on as they are (no NULLs, stems space-padded), then `hidable`."""
    body = m.body
    if m.type == "rule" and m.variants:
        # Variants restate the content three ways; index the content once so rules are not
        # favoured by repetition.
        body = re.split(r"^##\s+rule\s+variants", body, flags=re.IGNORECASE | re.MULTILINE)[0]
    cols = (_stemmed(m.id), _stemmed(m.title), _stemmed(" ".join(m.tags)),
            _stemmed(" ".join([*m.triggers, *_supersedes(m)])), _stemmed(_HEADING.sub(" ", body)),
            _stemmed(f"{kind_words(m.type)} {' '.join(m.roles)}"))
    field_stems = " ".join(sorted(set(" ".join(cols[:5]).split())))
    tag_stems = " ".join(sorted(set(f"{cols[2]} {cols[3]}".split())))
    hidable = (m.lifecycle in ("archived", "superseded") or m.confidence == "low"
               or bool(m.roles) or m.is_note)
    row = (m.rel_path, m.id, m.type, m.lifecycle, m.confidence, " ".join(m.roles), m.tier,
           m.valid_until or "", m.updated, f" {tag_stems} ", _SEP.join(t for t in m.tags if t),
           _SEP.join(d for d in m.depends_on if d), f" {field_stems} ",
           f" {cols[0]} {cols[1]} {tag_stems} ", int(hidable))
    return cols, row


def put(conn: sqlite3.Connection, rowid: int, fts: Sequence[str]) -> None:
    """Index one memory's words under the `mem` row id it got (caller holds the transaction)."""
    names = ", ".join(COLUMNS)
    marks = ", ?" * len(COLUMNS)
    conn.execute(f"INSERT INTO route_fts(rowid, {names}) VALUES (?{marks})",  # noqa: S608
                 (rowid, *fts))


def delete(conn: sqlite3.Connection, rowid: int) -> None:
    conn.execute("DELETE FROM route_fts WHERE rowid = ?", (rowid,))


def _split(raw: str) -> tuple[str, ...]:
    return tuple(raw.split(_SEP)) if raw else ()


# The index lives in the git-ignored `.cache/`: anything that can write the workspace can rewrite
# a row, and ids, types, tags and prerequisites of rows reach printed text (route and search
# lines, explain, narrowing hints, dependency warnings). A row only hands on values of the
# shapes Engram itself writes there (the id rule of store/ids.py), so a rewritten row can
# misroute, never carry sentences, markup or line breaks into an agent's context.
_TAG = re.compile(r"[^\s\x00-\x1f\x7f-\x9f]{1,64}")
_TYPES = frozenset(TYPES)


def _doc(scope: str, r: Sequence[Any]) -> Doc:
    """A Doc from `rowid, *ROW_COLS`, stored ready to use (`row_values`)."""
    d = Doc(r[0], scope, r[1], r[2], r[3], r[4], r[5], tuple(r[6].split()), r[7], r[8],
            r[9], r[10], _split(r[11]), _split(r[12]), r[13], r[14])
    shape = (r[2], r[3], r[11], r[12])
    if shape in _SHAPED:  # checked before in this process (the same row, loaded again)
        return d
    if not is_valid_id(d.id) or d.type not in _TYPES \
            or not all(map(is_valid_id, d.depends_on)) \
            or any(not _TAG.fullmatch(x) for x in d.tags):
        return _clean(d)
    if len(_SHAPED) >= 65536:
        _SHAPED.clear()
    _SHAPED.add(shape)
    return d


_SHAPED: set[tuple[str, str, str, str]] = set()


def _clean(d: Doc) -> Doc:
    """A row Engram did not write as it is: keep only what has Engram's shapes."""
    mid = d.id if is_valid_id(d.id) else f"invalid-row-{d.rowid}"
    return d._replace(id=mid, type=d.type if d.type in _TYPES else "knowledge",
                      depends_on=tuple(x for x in d.depends_on if is_valid_id(x)),
                      tags=tuple(x for x in d.tags if _TAG.fullmatch(x)))


# SQL below is built from this module's constant names and `?` placeholders only (hence noqa S608).
_SELECT = "SELECT m.rowid, " + ", ".join(f"m.{c}" for c in ROW_COLS) + " FROM mem m"  # noqa: S608


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


def _bm25() -> str:
    return f"-bm25(route_fts, {', '.join(str(w) for w in WEIGHTS)})"


def fill_hidden(conn: sqlite3.Connection, policy: Policy) -> int:
    """List in `HIDDEN_ROWS` the rows routing must not show under this policy, and return how
    many. Only `mem.hidable` rows can be, and a partial index lists just those, so this reads
    as many rows as are superseded, of low confidence, role-scoped or working notes, not the
    whole store. A temporary table belongs to this connection alone; the caller refills it
    when the data or the policy changes, so each query only looks row ids up in it."""
    conn.execute(f"CREATE TEMP TABLE IF NOT EXISTS {_HIDDEN_NAME}(r INTEGER PRIMARY KEY)")
    conn.execute(f"DELETE FROM {HIDDEN_ROWS}")  # noqa: S608
    where, params = visibility_sql(policy)
    conn.execute(f"INSERT INTO {HIDDEN_ROWS} SELECT m.rowid FROM mem m "  # noqa: S608
                 f"WHERE m.hidable = 1 AND NOT ({where})", params)
    return int(conn.execute(f"SELECT count(*) FROM {HIDDEN_ROWS}").fetchone()[0])  # noqa: S608


def docs_by_rowid(conn: sqlite3.Connection, scope: str, rowids: Sequence[int]) -> dict[int, Doc]:
    if not rowids:
        return {}
    marks = ", ".join("?" * len(rowids))
    rows = conn.execute(_SELECT + f" WHERE m.rowid IN ({marks})", tuple(rowids))  # noqa: S608
    return {r[0]: _doc(scope, r) for r in rows}


def matches(conn: sqlite3.Connection, scope: str, match: str, policy: Policy, *, limit: int,
            for_search: bool = False, hidden: bool = False, exclude_hidden: bool = False,
            counted: str | None = None) -> tuple[list[tuple[Doc, float]], int]:
    """The best `limit` memories matching the FTS expression that the policy shows (or, with
    `hidden=True`, hides), with BM25 scores (positive, best first), and how many it shows in
    all (matching `counted` instead when given: the task's words without the role context).
    Every returned row has passed the policy's own check, so callers need not check again.

    BM25 runs inside FTS5 on the index alone; with `exclude_hidden` (routing), the rows listed
    in `HIDDEN_ROWS` (`fill_hidden`) are dropped by a key lookup each before they are scored.
    Only the top rows are read from `mem`.
    """
    if hidden or policy.ignore:
        joined = _matches_joined(conn, scope, match, policy, limit=limit,
                                 for_search=for_search, hidden=hidden)
        if counted is None and (hidden or len(joined) < limit):
            return joined, len(joined)
        return joined, _count_joined(conn, counted or match, policy, for_search=for_search)
    cond = f" AND rowid NOT IN {HIDDEN_ROWS}" if exclude_hidden else ""
    rows = conn.execute(f"SELECT rowid, {_bm25()} AS s FROM route_fts "  # noqa: S608
                        f"WHERE route_fts MATCH ?{cond} ORDER BY s DESC LIMIT ?",
                        (match, limit)).fetchall()
    found = docs_by_rowid(conn, scope, [r[0] for r in rows])
    check = policy.search_hidden_reason if for_search else policy.hidden_reason
    # The policy itself has the last word (it also knows what SQL cannot, like a deleted row).
    shown = [(found[r], float(s)) for r, s in rows if r in found and check(found[r]) is None]
    if counted is None and len(rows) < limit:
        return shown, len(shown)
    total = int(conn.execute(
        f"SELECT count(*) FROM route_fts WHERE route_fts MATCH ?{cond}",  # noqa: S608
        (counted or match,)).fetchone()[0])
    return shown, total if counted else total - (len(rows) - len(shown))


def _matches_joined(conn: sqlite3.Connection, scope: str, match: str, policy: Policy, *,
                    limit: int, for_search: bool, hidden: bool) -> list[tuple[Doc, float]]:
    """Visibility evaluated in SQL for every match (ignore globs, explain's hidden list)."""
    _register(conn, policy)
    where, params = visibility_sql(policy, for_search=for_search)
    if hidden:
        where = f"NOT ({where})"
    sql = (f"SELECT {_bm25()} AS s, m.rowid, "  # noqa: S608
           + ", ".join(f"m.{c}" for c in ROW_COLS)
           + " FROM route_fts JOIN mem m ON m.rowid = route_fts.rowid"
           f" WHERE route_fts MATCH ? AND {where} ORDER BY s DESC LIMIT ?")
    rows = conn.execute(sql, (match, *params, limit))
    found = [(_doc(scope, row[1:]), float(row[0])) for row in rows]
    if hidden:
        return found
    check = policy.search_hidden_reason if for_search else policy.hidden_reason
    return [(d, s) for d, s in found if check(d) is None]


def _count_joined(conn: sqlite3.Connection, match: str, policy: Policy, *,
                  for_search: bool) -> int:
    """How many memories the policy shows match, by a join (ignore globs need `mem.rel`)."""
    _register(conn, policy)
    where, params = visibility_sql(policy, for_search=for_search)
    sql = ("SELECT count(*) FROM route_fts JOIN mem m "  # noqa: S608
           f"ON m.rowid = route_fts.rowid WHERE route_fts MATCH ? AND {where}")
    return int(conn.execute(sql, (match, *params)).fetchone()[0])


def memory_count(conn: sqlite3.Connection) -> int:
    return int(conn.execute("SELECT count(*) FROM mem").fetchone()[0])


def _vocab(conn: sqlite3.Connection) -> None:
    conn.execute("CREATE VIRTUAL TABLE IF NOT EXISTS temp.route_vocab "
                 "USING fts5vocab(main, route_fts, 'row')")


def near_terms(conn: sqlite3.Connection, word: str, prefix: int) -> list[tuple[str, int]]:
    """Indexed terms that start with `word`'s first `prefix` letters and are at most one letter
    longer or shorter, with how many memories hold each (a spelling neighbourhood)."""
    _vocab(conn)
    head = word[:prefix]
    return [(str(t), int(d)) for t, d in conn.execute(
        "SELECT term, doc FROM temp.route_vocab WHERE term >= ? AND term < ? "
        "AND length(term) BETWEEN ? AND ?",
        (head, head + "\uffff", len(word) - 1, len(word) + 1))]


def phrase_rows(conn: sqlite3.Connection, match: str, rowids: Sequence[int]) -> set[int]:
    """Which of these rows match the FTS expression (the task's word pairs as phrases)."""
    marks = ", ".join("?" * len(rowids))
    return {int(r[0]) for r in conn.execute(
        f"SELECT rowid FROM route_fts WHERE route_fts MATCH ? AND rowid IN ({marks})",  # noqa: S608
        (match, *rowids))}


def holds_term(conn: sqlite3.Connection, term: str) -> bool:
    """Whether some indexed memory holds exactly this stem (one read of the term list)."""
    _vocab(conn)
    return conn.execute("SELECT 1 FROM temp.route_vocab WHERE term = ?",
                        (term,)).fetchone() is not None


def doc_freq(conn: sqlite3.Connection, anchors: Sequence[str], n: int) -> dict[str, int]:
    """How many indexed memories hold each anchor the way the MATCH query meets it (exact, long
    ones also as a prefix), capped at `n` memories. Hidden rows count too: this measures how
    common a word is in the store (for IDF), not what routing may show. FTS5's vocabulary
    table answers from the index's term list without touching any row."""
    _vocab(conn)
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


def by_id(conn: sqlite3.Connection, scope: str, memory_id: str) -> Doc | None:
    row = conn.execute(_SELECT + " WHERE m.id = ? ORDER BY m.rel LIMIT 1",
                       (memory_id,)).fetchone()
    return _doc(scope, row) if row else None


def by_ids(conn: sqlite3.Connection, scope: str, ids: Sequence[str]) -> dict[str, Doc]:
    """`by_id` for several ids in one query (the first file by path wins, as there)."""
    if not ids:
        return {}
    marks = ", ".join("?" * len(ids))
    rows = conn.execute(_SELECT + f" WHERE m.id IN ({marks}) ORDER BY m.rel DESC",  # noqa: S608
                        tuple(ids))
    return {d.id: d for d in (_doc(scope, r) for r in rows)}


def claims(conn: sqlite3.Connection, scope: str, ids: Sequence[str]) -> list[Doc]:
    """Every row declaring one of these ids (usually one each; claims.py picks among more)."""
    if not ids:
        return []
    marks = ", ".join("?" * len(ids))
    rows = conn.execute(_SELECT + f" WHERE m.id IN ({marks})", tuple(ids))  # noqa: S608
    return [_doc(scope, r) for r in rows]


def all_docs(conn: sqlite3.Connection, scope: str) -> list[Doc]:
    return [_doc(scope, r) for r in conn.execute(_SELECT + " ORDER BY m.id")]
