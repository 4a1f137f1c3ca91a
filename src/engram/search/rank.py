"""Lexical ranking: BM25 over weighted fields, then small boosts, a floor, a stable order
(docs/reading.md "How ranking works").

The index's FTS5 table holds every memory's fields already reduced to stems (terms.py), so the
query is an OR of stemmed anchors, long ones also as prefixes (`config` meets `configur`).
SQLite's `bm25()` scores with the column weights below; this module builds that query, then
reranks the candidates with a tag-hit boost, a recency boost and a neighbour signal (shared
tags among the candidates), drops those far below the best, and orders ties workspace first.
The boosts only reorder what BM25 found: a memory without anchor overlap never reaches this
module, so no secondary signal can select it.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Collection, Sequence
from functools import lru_cache

from engram.search.terms import GENERIC_WORDS, stems
from engram.store.model import TYPE_ALIASES

# FTS5 column order and weights. Titles and tags say what a memory is about; the body mentions
# many things in passing; the id is the title's slug, so it adds little on top of the title.
# `triggers` also holds the ids the memory `supersedes`: a task naming the old tool ("helmfile
# apply") is answered by its replacement.
# `kind` holds the type's alias words (`workflow` → skills) and the memory's roles, weighted low
# so it separates types and favours the active roles' memories without outranking real subject
# matches.
COLUMNS = ("ident", "title", "tags", "triggers", "body", "kind")
WEIGHTS = (1.0, 3.0, 2.0, 2.0, 1.0, 0.5)
MIN_PREFIX = 5  # shorter stems match exactly: `ci*` would match every `cli`, `city`, …
TAG_BOOST = 0.15  # per anchor that is one of the memory's tags or triggers
TAG_BOOST_MAX = 0.45
RECENCY_BOOST = 0.05  # at most +5% for a memory updated today, fading to 0 over a year
RECENCY_DAYS = 365
# A candidate scoring below this fraction of the best one is noise from a passing word; the
# pack stays small when one subject clearly wins.
RELATIVE_FLOOR = 0.4
# A candidate holding two neighbouring task words side by side ("api key", "feature flag") is
# more likely about the task than one holding them apart; applied after the floor, so it only
# reorders what the floor kept (applied before it, the boosted top cut second subjects).
PHRASE_BOOST = 0.25
# A memory scoped to a role the user declared (`engram set-role`) is about their own work: among
# the candidates the floor kept, it scores 50% more than one that matched the task as well but
# is for everyone. Applied after the floor, so it reorders and admits nothing.
ROLE_BOOST = 0.5
MATCHED_FOR = 16  # candidates whose matched anchors are reported
NEIGHBOUR_BOOST = 2.0  # score × (1 + 2·support), support in [0, 1]


def kind_words(memory_type: str) -> str:
    """The words a type answers to (from the model's alias table, not from any query set),
    without the generic ones (`rule`, `skill`, …), which never anchor anyway."""
    return " ".join(sorted(a for a, t in TYPE_ALIASES.items()
                           if t == memory_type and a not in GENERIC_WORDS))


@lru_cache(maxsize=16)
def kind_text(memory_type: str) -> str:
    """The stems of a type's words, space-padded for `text_hits`."""
    return f" {' '.join(stems(kind_words(memory_type)))} "


def found_by_task(c: Candidate, anchors: Sequence[str]) -> bool:
    """Whether a candidate matched a task word (in its fields or its type's words), rather
    than only the role context (`with_context`)."""
    return bool(c.matched) or any(needle(a) in kind_text(c.type) for a in anchors)


def match_expression(anchors: Sequence[str]) -> str:
    """An FTS5 MATCH string: OR of the anchors, quoted, long ones as prefixes."""
    parts = []
    for a in anchors:
        if not a.isalnum():
            continue
        # Exact and prefix as two phrases: an exact hit scores on both, so it outranks a word
        # that merely starts the same way (`sent` vs `sentry`).
        parts.append(f'"{a}" OR "{a}"*' if len(a) >= MIN_PREFIX else f'"{a}"')
    return " OR ".join(parts)


def phrase_expression(pairs: Sequence[tuple[str, str]]) -> str:
    """An FTS5 MATCH string: OR of the word pairs as phrases (`"api key" OR "key rotat"`)."""
    return " OR ".join(f'"{a} {b}"' for a, b in pairs if a.isalnum() and b.isalnum())


def with_context(expr: str, context: Sequence[str]) -> str:
    """`expr` OR the context words (the active roles) matched in the `kind` column only.

    The index puts a memory's `role` list in that column, so a context word meets exactly the
    memories scoped to that role, at the column's low weight: a role's standing rules, which a
    task rarely names, rise among the memories the task's own words found."""
    ctx = match_expression(context)
    return f"({expr}) OR kind : ({ctx})" if expr and ctx else expr


class Candidate:
    """One memory BM25 found, with what the reranker needs; reranking and evidence fill in
    `score`, `matched` and `strong`. A plain slotted class: one is built per candidate."""

    __slots__ = ("key", "id", "scope", "type", "bm25", "field_text", "strong_text", "tag_text",
                 "updated", "tags", "score", "matched", "strong")

    def __init__(self, key: str, id: str, scope: str, type: str, bm25: float,
                 field_text: str = "", strong_text: str = "", tag_text: str = "",
                 updated: str = "", tags: frozenset[str] = frozenset()) -> None:
        self.key = key
        self.id = id
        self.scope = scope
        self.type = type
        self.bm25 = bm25  # positive, larger is better
        # Stems of id, title, tags, triggers and body, and of id, title, tags and triggers
        # alone, each space-padded: a substring test finds an anchor without building sets.
        self.field_text = field_text
        self.strong_text = strong_text
        self.tag_text = tag_text  # stems of tags and triggers, space-padded
        self.updated = updated
        self.tags = tags  # raw tags, lower-cased (for the neighbour signal)
        self.score = 0.0
        self.matched: list[str] = []
        self.strong: list[str] = []  # matched in id, title, tags or triggers

    def __repr__(self) -> str:
        return f"Candidate({self.key!r}, bm25={self.bm25:.3f}, score={self.score:.3f})"


def anchor_hits(anchor: str, stems: Collection[str]) -> bool:
    """True when `anchor` meets a stem the way the FTS query does (exact, or as a prefix)."""
    if anchor in stems or len(anchor) < MIN_PREFIX:
        return anchor in stems
    return any(s.startswith(anchor) for s in stems)


def needle(anchor: str) -> str:
    """What `text_hits` looks for: the anchor as a whole stem, or (long ones) as a prefix."""
    return f" {anchor} " if len(anchor) < MIN_PREFIX else f" {anchor}"


def text_hits(anchor: str, padded: str) -> bool:
    """`anchor_hits` over a space-padded string of stems (`" a b c "`)."""
    return needle(anchor) in padded


@lru_cache(maxsize=8192)
def tag_text(tag: str) -> str:
    """A tag's stems, space-padded for `text_hits`."""
    return f" {' '.join(stems(tag))} "


def recency(updated: str, today: dt.date) -> float:
    try:
        day = dt.date.fromisoformat(updated[:10])
    except ValueError:
        return 0.0
    age = max(0, (today - day).days)
    return RECENCY_BOOST * max(0.0, 1.0 - age / RECENCY_DAYS)


def neighbour_support(cands: Sequence[Candidate]) -> dict[str, float]:
    """Share of the other candidates' BM25 mass that shares a tag with each candidate.

    The cluster hypothesis: memories on the task's subject tag each other's topics, while a
    memory that matched one query word by accident (an office note that mentions Friday) stands
    alone. Only candidates that already matched an anchor are looked at, so this reorders but
    never selects (docs/reading.md "How ranking works", step 3).
    """
    total = sum(c.bm25 for c in cands)
    by_tag: dict[str, int] = {}  # tag → bit set of the candidates carrying it
    for i, c in enumerate(cands):
        for tag in c.tags:
            by_tag[tag] = by_tag.get(tag, 0) | 1 << i
    out: dict[str, float] = {}
    for i, c in enumerate(cands):
        sharing = 0
        for tag in c.tags:
            sharing |= by_tag[tag]
        sharing &= ~(1 << i)
        shared = 0.0
        while sharing:  # lowest bit first: the candidates in order
            low = sharing & -sharing
            shared += cands[low.bit_length() - 1].bm25
            sharing ^= low
        rest = total - c.bm25
        out[c.key] = shared / rest if rest > 0 else 0.0
    return out


def rerank(cands: list[Candidate], anchors: Sequence[str], today: dt.date,
           floor: float = RELATIVE_FLOOR, phrased: Collection[str] = frozenset(),
           scoped: Collection[str] = frozenset()) -> list[Candidate]:
    """Apply the boosts and return candidates best first (ties: workspace, then id): those at
    or above `floor` × the best score, then the ones aspect coverage brings back, reordered by
    `PHRASE_BOOST` for the keys in `phrased` (candidates holding a pair of task words) and
    `ROLE_BOOST` for the keys in `scoped` (memories scoped to an active role)."""
    support = neighbour_support(cands)
    needles = [needle(a) for a in anchors]
    for c in cands:
        tag_hits = sum(n in c.tag_text for n in needles)
        boost = min(TAG_BOOST_MAX, TAG_BOOST * tag_hits) + recency(c.updated, today)
        c.score = c.bm25 * (1.0 + boost) * (1.0 + NEIGHBOUR_BOOST * support[c.key])
    ordered = sorted(cands, key=lambda c: (-c.score, c.scope != "workspace", c.id))
    if ordered and floor > 0:
        cut = ordered[0].score * floor
        kept = [c for c in ordered if c.score >= cut]
        kept += aspects(ordered[len(kept):], kept, needles)
        ordered = kept
    if phrased or scoped:
        for c in ordered:
            c.score *= ((1.0 + PHRASE_BOOST) if c.key in phrased else 1.0) * (
                (1.0 + ROLE_BOOST) if c.key in scoped else 1.0)
        ordered.sort(key=lambda c: (-c.score, c.scope != "workspace", c.id))
    return ordered


def aspects(cut: Sequence[Candidate], kept: Sequence[Candidate],
            needles: Sequence[str]) -> list[Candidate]:
    """Aspect coverage: the cut candidates (best first) whose id, title, tags or triggers name a
    query word that no kept candidate names there, at most one per such word.

    A task with two independent subjects ("bump kotlin and fix the flaky screenshot test") has
    one dominant cluster whose neighbour boost pushes the second subject under the floor; the
    best memory that names the second subject is the answer to an aspect nothing kept covers."""
    open_words = [n for n in needles if not any(n in c.strong_text for c in kept)]
    back: list[Candidate] = []
    for c in cut:
        if not open_words:
            break
        named = [n for n in open_words if n in c.strong_text]
        if named:
            back.append(c)
            open_words = [n for n in open_words if n not in named]
    return back


def mark_matched(cands: Sequence[Candidate], anchors: Sequence[str]) -> None:
    """Record which anchors each candidate matched, and which of those in its id, title, tags
    or triggers (explain and search report them; evidence pruning weighs them)."""
    needles = [(a, needle(a)) for a in anchors]
    for c in cands:
        field, strong = c.field_text, c.strong_text
        hits = [(a, n) for a, n in needles if n in field]
        c.matched = [a for a, _ in hits]
        c.strong = [a for a, n in hits if n in strong]
