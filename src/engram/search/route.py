"""Routing: from a task to the ordered keys of a pack, with the reasons for each choice
(docs/reading.md).

Steps: anchors from the task (terms.py) → FTS5 candidates per root with BM25 (docs.py) → the
workspace shadows a global memory with the same id → visibility (visibility.py) → boosts and
order (rank.py) → evidence pruning (evidence.py) → top `load.limit` plus `depends_on`
prerequisites in order (select.py). Only
the few candidates that get reranked have their stored JSON decoded, so a load touches a handful
of rows even at 10,000 memories. This module reads the index; it does not render or read files.
"""

from __future__ import annotations

import datetime as dt
from collections import Counter
from collections.abc import Callable, Iterable

from engram.config import Settings
from engram.search import claims as claims_mod
from engram.search import docs
from engram.search.docs import Doc
from engram.search.evidence import prune
from engram.search.freeslots import second_subjects, tag_siblings
from engram.search.index import RootIndex
from engram.search.rank import (
    MATCHED_FOR,
    RELATIVE_FLOOR,
    Candidate,
    found_by_task,
    mark_matched,
    match_expression,
    needle,
    phrase_expression,
    rerank,
    tag_text,
    with_context,
)
from engram.search.reader import Read, Reader
from engram.search.roots_index import MemoryIndex
from engram.search.select import Selection, select
from engram.search.semantic_load import OFF, Semantic
from engram.search.session import ReadSession
from engram.search.spelling import SPELL_PREFIX, respell
from engram.search.standing import Approved, standing_keys
from engram.search.terms import anchors as query_anchors
from engram.search.terms import word_pairs
from engram.search.visibility import Policy, make_policy

Hidden = Callable[[Doc], "str | None"]  # a visibility check: why a row is hidden, or None
RERANK_POOL = 2  # rerank this many candidates per pack slot (BM25 order is already close)
STANDING_MAX = 4096  # rows fetched at most to find `pool` whose files stand (standing.py)
RERANK_MIN = 16  # 24 gave the same recall@8 on the benchmark for ~15% more work per load


class Routed:
    """What routing decided, and enough to explain it."""

    def __init__(self, anchors: list[str], task: str = "") -> None:
        self.anchors = anchors
        self.task = task  # the task as given (its word pairs rank the map, map_section.py)
        self.ranked: list[Candidate] = []  # visible, best first
        self.matched = 0  # visible memories with anchor overlap
        self.selection = Selection()
        self.docs: dict[str, Doc] = {}
        self.hidden: list[tuple[str, str]] = []  # (key, reason)
        self.missing: list[tuple[str, str]] = []  # (dependant key, missing id)
        self.narrow_tags: list[str] = []
        self.pruned: list[tuple[str, str]] = []  # (key, reason), evidence.py
        self.sibling_of: dict[str, str] = {}  # key → id of the best candidate it shares tags with
        self.unapproved: list[str] = []  # keys of files that take no place (standing.py)
        self.similar: dict[str, float] = {}  # key → cosine with the task (semantic extra)
        self.semantic = OFF  # the semantic extra for this route, or why it is off
        self.clause_of: dict[str, str] = {}  # key → the clause of the task that routed it alone
        # The task's deeper BM25 list (standing rows, one per id, best first), fetched with the
        # pack's own query when asked (`deeper`): the map's candidates (map_section.py).
        self.deeper: list[tuple[Doc, float]] = []

    def score_of(self, key: str) -> float:
        return next((c.score for c in self.ranked if c.key == key), 0.0)


class Router:
    """Routing over one `MemoryIndex` for one request; remembers id lookups and claims only
    for that request (a new request makes a new Router)."""

    def __init__(self, index: MemoryIndex, policy: Policy, semantic: Semantic = OFF,
                 approved: Approved | None = None) -> None:
        self.index = index
        self.semantic = semantic
        self.approved = approved  # memory.hashes.json as the session read it (standing.py)
        self.weak: list[Doc] = []  # the last candidates() rows that take no place, best first
        self.deeper: list[tuple[Doc, float]] = []  # the last candidates() `deeper` list
        self.roots = index.roots
        self.policy = policy
        self.parts: dict[str, RootIndex] = {p.root.scope: p for p in index.parts}
        self._by_id: dict[str, Doc | None] = {}  # id → the memory it names, for this command
        self._claims: dict[str, list[Doc]] = {}  # id → every row declaring it (claims.py)

    def read(self, reader: Reader, d: Doc, hidden: Hidden | None = None) -> Read:
        """The guarded read of the memory a routed row names; a file changed in place
        refreshes its index row. When several files declare the id, the first that passes the
        guard is read and the others are reported (claims.py); `hidden` (a visibility check)
        then applies to that file, not to the row routing happened to find."""
        rivals = self.claims(d.id)
        if len(rivals) < 2:
            return self.follow(d, reader.read(d.scope, d.rel_path))
        got, winner = claims_mod.resolve(reader, rivals, self.follow)
        if winner is not None and hidden is not None and hidden(winner) is not None:
            return Read(None, others=got.others)
        return got

    def claims(self, memory_id: str) -> list[Doc]:
        """Every row, in every root, declaring the id, in claims.preference order."""
        if memory_id not in self._claims:
            self._fetch_claims([memory_id])
        return self._claims[memory_id]

    def _fetch_claims(self, ids: Iterable[str]) -> None:
        wanted = [i for i in dict.fromkeys(ids) if i not in self._claims]
        rows: list[Doc] = []
        for scope, part in self.parts.items():
            for start in range(0, len(wanted), 500):
                rows += docs.claims(part.db, scope, wanted[start:start + 500])
        self._claims.update(claims_mod.group(rows))
        for mid in wanted:
            self._claims.setdefault(mid, [])

    def all_rows(self) -> list[Doc]:
        """Every indexed row of every root (duplicates included), remembering who claims what."""
        rows = [d for scope, part in self.parts.items() for d in docs.all_docs(part.db, scope)]
        self._claims.update(claims_mod.group(rows))
        return rows

    def follow(self, d: Doc, got: Read) -> Read:
        """Re-index a file the guarded read found changed in place (its row is stale)."""
        if got.stale and d.scope in self.parts:
            self.parts[d.scope].refresh_file(d.rel_path, got.sha)
        return got

    def prefetch(self, reader: Reader, ds: list[Doc]) -> None:
        self._fetch_claims(d.id for d in ds)
        for scope in self.parts:
            reader.prefetch(scope, [d.rel_path for d in ds if d.scope == scope])

    # -- lookups -------------------------------------------------------------------------
    def doc(self, memory_id: str) -> Doc | None:
        """The memory an id names: the workspace one wins over a global one."""
        if memory_id not in self._by_id:
            self._fetch_ids([memory_id])
        return self._by_id[memory_id]

    def _fetch_ids(self, ids: list[str]) -> None:
        """Look up several ids at once (a pack's prerequisites), remembering misses too."""
        wanted = [i for i in dict.fromkeys(ids) if i not in self._by_id]
        for scope, part in self.parts.items():
            for start in range(0, len(wanted), 500):  # well under SQLite's variable limit
                for mid, d in docs.by_ids(part.db, scope, wanted[start:start + 500]).items():
                    self._by_id.setdefault(mid, d)
        for mid in wanted:
            self._by_id.setdefault(mid, None)

    # -- routing -------------------------------------------------------------------------
    def candidates(self, terms: list[str], pool: int, *, for_search: bool = False,
                   want_hidden: bool = False, context: list[str] | None = None,
                   column: str | None = None, deeper: int = 0
                   ) -> tuple[list[tuple[Doc, float]], int, list[tuple[str, str]]]:
        """The best `pool` visible matches (BM25, best first), how many visible memories match
        in all, and (when asked) hidden matches with the reason. `context` words (the active
        roles) add a low-weight match on the memories scoped to them (rank.with_context);
        `column` matches the terms in that FTS column only. With `deeper` > `pool`, the same
        query fetches that many rows per root and leaves the best `deeper` standing ones, one
        per id, in `self.deeper` (the map's candidates), at the cost of one query."""
        expr = match_expression(terms)
        if not expr:
            return [], 0, []
        if column:
            expr = f"{column} : ({expr})"
        plain = expr
        expr = with_context(expr, [c for c in context or () if c not in terms])
        counted = plain if expr != plain else None
        found: list[tuple[Doc, float]] = []
        deep: list[tuple[Doc, float]] = []
        hidden: list[tuple[str, str]] = []
        total = 0
        self.weak = []
        for scope, part in self.parts.items():
            exclude = (not for_search and not self.policy.ignore
                       and part.hidden_rows(self.policy) > 0)

            def fetch(n: int, scope: str = scope, part: RootIndex = part, exclude: bool = exclude
                      ) -> tuple[list[tuple[Doc, float]], int]:
                return docs.matches(part.db, scope, expr, self.policy, limit=n,
                                    for_search=for_search, exclude_hidden=exclude,
                                    counted=counted)

            rows, count = self._standing(fetch, pool, deeper)
            found += rows[:pool]
            deep += rows
            total += count
            if want_hidden:
                hidden += [(d.key, self._hidden(d, for_search) or "hidden")
                           for d, _ in docs.matches(part.db, scope, plain, self.policy,
                                                    limit=100, for_search=for_search,
                                                    hidden=True)[0]]
        unique = _one_per_id(found)
        self.deeper = _one_per_id(deep) if deeper > pool else []
        return unique, total - (len(found) - len(unique)), hidden

    def _standing(self, fetch: Callable[[int], tuple[list[tuple[Doc, float]], int]],
                  pool: int, deeper: int = 0) -> tuple[list[tuple[Doc, float]], int]:
        """The best `pool` matches whose files stand (standing.py), fetching deeper while
        files that do not stand fill the places; those among the first `pool` go to
        `self.weak`, to be reported. With `deeper` > `pool`, the first fetch takes that many
        rows and the best `deeper` standing ones come back (the first `pool` of them are the
        same as without it: rows come in BM25 order)."""
        n = max(pool, deeper)
        while True:
            rows, count = fetch(n)
            if self.approved is None:
                return rows, count
            ok = standing_keys([d for d, _ in rows], self.claims, self.parts, self.approved)
            good = [(d, s) for d, s in rows if (d.scope, d.rel_path) in ok]
            if len(good) >= pool or len(rows) < n or n >= STANDING_MAX:
                self.weak += [d for d, _ in rows[:pool] if (d.scope, d.rel_path) not in ok]
                return good[:max(pool, deeper)], count
            n *= 4

    def _hidden(self, d: Doc, for_search: bool) -> str | None:
        return (self.policy.search_hidden_reason(d) if for_search
                else self.policy.hidden_reason(d))

    def rank(self, terms: list[str], found: list[tuple[Doc, float]],
             head_size: int = MATCHED_FOR,
             pairs: list[tuple[str, str]] | None = None,
             floor: float = RELATIVE_FLOOR) -> list[Candidate]:
        cands = [Candidate(d.key, d.id, d.scope, d.type, score, d.field_text, d.strong_text,
                           d.tag_text, d.updated, frozenset(map(str.lower, d.tags)))
                 for d, score in found]
        roles = self.policy.roles
        scoped = {d.key for d, _ in found if roles.intersection(r.lower() for r in d.role_list)}
        ranked = rerank(cands, terms, dt.date.fromisoformat(self.policy.today),
                        phrased=self._phrased(pairs or [], found), scoped=scoped, floor=floor)
        mark_matched(ranked[:head_size], terms)
        return ranked

    def _phrased(self, pairs: list[tuple[str, str]],
                 found: list[tuple[Doc, float]]) -> set[str]:
        """Keys of the found memories that hold one of the word pairs side by side."""
        expr = phrase_expression(pairs)
        if not expr or not found:
            return set()
        out: set[str] = set()
        for scope, part in self.parts.items():
            mine = {d.rowid: d.key for d, _ in found if d.scope == scope}
            if mine:
                out |= {mine[r] for r in docs.phrase_rows(part.db, expr, list(mine))}
        return out

    def doc_freq(self, terms: list[str]) -> tuple[dict[str, int], int]:
        """Document frequency of each anchor and the memory count, over every root."""
        df: Counter[str] = Counter()
        n = 0
        for part in self.parts.values():
            got, count = part.doc_freq(terms)
            df.update(got)
            n += count
        return dict(df), n

    def route(self, task: str, limit: int, *, want_hidden: bool = False,
              deeper: int = 0) -> Routed:
        """Route a task to its pack; `deeper` also keeps that many BM25 rows per root in
        `routed.deeper` (the map's candidates, map_section.py)."""
        routed = self.ranked_only(task, limit, want_hidden=want_hidden, deeper=deeper)
        if routed.ranked and len(routed.ranked) < limit:
            routed.ranked += second_subjects(self, task, routed, limit - len(routed.ranked))
        routed.semantic = self.semantic
        if routed.ranked and len(routed.ranked) < limit and self.semantic.embedder is not None:
            from engram.search.similar import similar

            roles = query_anchors(" ".join(sorted(self.policy.roles)))
            routed.ranked += similar(self, task, routed, routed.ranked, roles,
                                     limit - len(routed.ranked))
        self._select(routed, [c.key for c in routed.ranked], limit)
        if routed.matched > limit:
            routed.narrow_tags = self._narrowing_tags(routed)
        return routed

    def ranked_only(self, task: str, limit: int, *, want_hidden: bool = False,
                    deeper: int = 0) -> Routed:
        """Steps 1–7 of docs/reading.md "How ranking works": the ranked candidates of a task,
        before selection."""
        routed = Routed(anchors=query_anchors(task), task=task)
        routed.anchors = self._respell(routed.anchors)
        pool = max(RERANK_MIN, limit * RERANK_POOL)
        roles = query_anchors(" ".join(sorted(self.policy.roles)))
        found, routed.matched, routed.hidden = self.candidates(
            routed.anchors, pool, want_hidden=want_hidden, context=roles, deeper=deeper)
        routed.deeper = self.deeper
        routed.docs = {d.key: d for d, _ in found}
        # Every reranked candidate may reach the pack, so all of them get their matches; the
        # role context only reorders: a memory that matched no anchor goes.
        ranked = [c for c in self.rank(routed.anchors, found, head_size=len(found),
                                       pairs=word_pairs(task))
                  if found_by_task(c, routed.anchors)]
        routed.unapproved = [d.key for d in self.weak[:limit]]
        for d in self.weak[:limit]:
            routed.docs.setdefault(d.key, d)
        if ranked:
            df, n = self.doc_freq(routed.anchors)
            pruned = prune(ranked, routed.anchors, df, n, keep=limit)
            ranked, routed.pruned = pruned.kept, pruned.dropped
        if ranked and len(ranked) < limit:
            ranked += tag_siblings(self, routed, ranked, limit - len(ranked))
        routed.ranked = ranked
        return routed

    def _respell(self, anchors: list[str]) -> list[str]:
        """Unknown long anchors as the stored words they misspell or join (spelling.py)."""
        df, _ = self.doc_freq(anchors)

        def near(word: str) -> list[tuple[str, int]]:
            return [tn for part in self.parts.values()
                    for tn in docs.near_terms(part.db, word, SPELL_PREFIX)]

        seen: dict[str, bool] = {}

        def known(term: str) -> bool:
            if term not in seen:
                seen[term] = any(docs.holds_term(part.db, term) for part in self.parts.values())
            return seen[term]

        return respell(anchors, df, near, known)

    def route_all(self) -> Routed:
        """Every visible memory, rules first (`load --all`)."""
        routed = Routed(anchors=[])
        order = {"rule": 0, "skill": 1, "knowledge": 2}
        visible = claims_mod.first_of_each(d for d in self.all_rows()
                                           if self.policy.hidden_reason(d) is None)
        visible.sort(key=lambda d: (order.get(d.type, 3), d.scope != "workspace", d.id))
        routed.docs = {d.key: d for d in visible}
        routed.matched = len(visible)
        self._select(routed, list(routed.docs), max(1, len(visible)))
        return routed

    def _select(self, routed: Routed, ranked_keys: list[str], limit: int) -> None:
        self._fetch_ids([i for k in ranked_keys[:limit] for i in routed.docs[k].depends_on])

        def deps(key: str) -> list[str]:
            d = routed.docs.get(key)
            if d is None:
                return []
            out = []
            for dep_id in d.depends_on:
                dep = self.doc(dep_id)
                if dep is None:
                    routed.missing.append((key, dep_id))
                    continue
                reason = self.policy.hidden_reason(dep)
                if reason is not None:
                    routed.hidden.append((dep.key, f"prerequisite hidden: {reason}"))
                    continue
                routed.docs.setdefault(dep.key, dep)
                out.append(dep.key)
            return out

        routed.selection = select(ranked_keys, deps, limit)
        routed.missing = list(dict.fromkeys(routed.missing))
        routed.hidden = list(dict.fromkeys(routed.hidden))

    def _narrowing_tags(self, routed: Routed) -> list[str]:
        """Tags that split the matching memories: common among them, but not on all of them."""
        pool = [routed.docs[c.key] for c in routed.ranked[:RERANK_MIN]]
        counts: Counter[str] = Counter()
        for d in pool:
            counts.update({t.lower() for t in d.tags})
        out: list[str] = []
        needles = [needle(a) for a in routed.anchors]
        # Most common first, so only the tags that could be listed are checked against anchors.
        for t, n in sorted(counts.items(), key=lambda tn: (-tn[1], tn[0])):
            if n < len(pool) and not any(x in tag_text(t) for x in needles):
                out.append(t)
                if len(out) == 5:
                    break
        return out


def _one_per_id(rows: list[tuple[Doc, float]]) -> list[tuple[Doc, float]]:
    """Best first, one entry per id (the best-scoring row): which file shows it is decided at
    read time (claims.py), so a workspace row shadows a global one only if it passes the
    guard."""
    rows = sorted(rows, key=lambda ds: -ds[1])
    best: dict[str, tuple[Doc, float]] = {}
    for d, s in rows:
        best.setdefault(d.id, (d, s))
    return list(best.values())


def open_router(session: ReadSession, settings: Settings | None = None) -> tuple[Router, Settings]:
    """Begin one request of the session (freshness checked again) and route over its index."""
    roots = session.roots
    settings = settings or roots.settings()
    policy = make_policy(settings.get("ignore.patterns"), roots.project, settings.get("roles"))
    semantic = session.semantic(bool(settings.get("semantic.enabled")))
    index = session.begin()
    if semantic.embedder is not None:
        for part in index.parts:
            part.fill_vectors(semantic.embedder)
    return Router(index, policy, semantic, session.approved), settings


def active_variant(settings: Settings) -> str:
    """With rule variants off, rules render the balanced variant (docs/reading.md
    "engram load")."""
    if settings.get("rule_variants.enabled"):
        return str(settings.get("rule_variants.active"))
    return "balanced"
