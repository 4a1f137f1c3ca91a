"""Routing (§6.1): from a task to the ordered keys of a pack, with the reasons for each choice.

Steps: anchors from the task (terms.py) → FTS5 candidates per root with BM25 (docs.py) → the
workspace shadows a global memory with the same id → visibility (visibility.py) → boosts and
order (rank.py) → top `load.limit` plus `depends_on` prerequisites in order (select.py). Only
the few candidates that get reranked have their stored JSON decoded, so a load touches a handful
of rows even at 10,000 memories. This module reads the index; it does not render or read files.
"""

from __future__ import annotations

import datetime as dt
from collections import Counter
from dataclasses import dataclass, field

from engram.config import Settings
from engram.search import docs
from engram.search.docs import Doc
from engram.search.index import MemoryIndex, RootIndex, memory_from_json
from engram.search.rank import Candidate, anchor_hits, match_expression, rerank
from engram.search.select import Selection, select
from engram.search.terms import anchors as query_anchors
from engram.search.terms import stems
from engram.search.visibility import Policy, make_policy
from engram.store.model import Memory
from engram.workspace import Roots

RERANK_POOL = 4  # rerank this many candidates per pack slot (BM25 order is already close)
RERANK_MIN = 40


@dataclass
class Routed:
    """What routing decided, and enough to explain it."""

    anchors: list[str]
    ranked: list[Candidate] = field(default_factory=list)  # visible, best first
    matched: int = 0  # visible memories with anchor overlap
    selection: Selection = field(default_factory=Selection)
    docs: dict[str, Doc] = field(default_factory=dict)
    hidden: list[tuple[str, str]] = field(default_factory=list)  # (key, reason)
    missing: list[tuple[str, str]] = field(default_factory=list)  # (dependant key, missing id)
    narrow_tags: list[str] = field(default_factory=list)

    def score_of(self, key: str) -> float:
        return next((c.score for c in self.ranked if c.key == key), 0.0)


class Router:
    """Routing over one `MemoryIndex`; caches decoded memories for the duration of a command."""

    def __init__(self, index: MemoryIndex, policy: Policy) -> None:
        self.index = index
        self.policy = policy
        self.parts: dict[str, RootIndex] = {p.root.scope: p for p in index.parts}
        self._memories: dict[str, Memory] = {}
        for part in index.parts:
            part.ensure_fresh()

    # -- lookups -------------------------------------------------------------------------
    def doc(self, memory_id: str) -> Doc | None:
        """The memory an id names: the workspace one wins over a global one."""
        for scope, part in self.parts.items():
            found = docs.by_id(part.db, scope, memory_id)
            if found is not None:
                return found
        return None

    def memory(self, d: Doc) -> Memory:
        if d.key not in self._memories:
            data = docs.data_of(self.parts[d.scope].db, [d.rowid])
            self._memories[d.key] = memory_from_json(data[d.rowid])
        return self._memories[d.key]

    def _shadowed(self, d: Doc) -> bool:
        ws = self.parts.get("workspace")
        return d.scope == "global" and ws is not None and docs.by_id(ws.db, "workspace", d.id) \
            is not None

    # -- routing -------------------------------------------------------------------------
    def candidates(self, terms: list[str], *, for_search: bool = False
                   ) -> tuple[list[tuple[Doc, float]], list[tuple[str, str]]]:
        """Visible matches with BM25 scores (best first) and the hidden ones with reasons."""
        expr = match_expression(terms)
        if not expr:
            return [], []
        found: list[tuple[Doc, float]] = []
        hidden: list[tuple[str, str]] = []
        for scope, part in self.parts.items():
            for d, score in docs.matches(part.db, scope, expr):
                if self._shadowed(d):
                    continue
                reason = (self.policy.search_hidden_reason(d) if for_search
                          else self.policy.hidden_reason(d))
                if reason is None:
                    found.append((d, score))
                else:
                    hidden.append((d.key, reason))
        found.sort(key=lambda ds: -ds[1])
        return found, hidden

    def rank(self, terms: list[str], found: list[tuple[Doc, float]], pool: int
             ) -> list[Candidate]:
        top = found[:pool]
        stems: dict[str, dict[int, tuple[str, str]]] = {}
        for scope, part in self.parts.items():
            stems[scope] = docs.stems_of(part.db, [d.rowid for d, _ in top if d.scope == scope])
        cands = []
        for d, score in top:
            field_s, tag_s = stems[d.scope].get(d.rowid, ("", ""))
            cands.append(Candidate(key=d.key, id=d.id, scope=d.scope, type=d.type, bm25=score,
                                   field_stems=frozenset(field_s.split()),
                                   tag_stems=frozenset(tag_s.split()), updated=d.updated))
        return rerank(cands, terms, dt.date.fromisoformat(self.policy.today))

    def route(self, task: str, limit: int) -> Routed:
        routed = Routed(anchors=query_anchors(task))
        found, routed.hidden = self.candidates(routed.anchors)
        routed.docs = {d.key: d for d, _ in found}
        routed.ranked = self.rank(routed.anchors, found, max(RERANK_MIN, limit * RERANK_POOL))
        routed.matched = len(found)
        self._select(routed, [c.key for c in routed.ranked], limit)
        if routed.matched > limit:
            routed.narrow_tags = self._narrowing_tags(routed)
        return routed

    def route_all(self) -> Routed:
        """Every visible memory, rules first (`load --all`)."""
        routed = Routed(anchors=[])
        order = {"rule": 0, "skill": 1, "knowledge": 2}
        visible = [d for scope, part in self.parts.items() for d in docs.all_docs(part.db, scope)
                   if not self._shadowed(d) and self.policy.hidden_reason(d) is None]
        visible.sort(key=lambda d: (order.get(d.type, 3), d.scope != "workspace", d.id))
        routed.docs = {d.key: d for d in visible}
        routed.matched = len(visible)
        self._select(routed, list(routed.docs), max(1, len(visible)))
        return routed

    def _select(self, routed: Routed, ranked_keys: list[str], limit: int) -> None:
        def deps(key: str) -> list[str]:
            d = routed.docs.get(key)
            if d is None:
                return []
            out = []
            for dep_id in self.memory(d).depends_on:
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
            counts.update({t.lower() for t in self.memory(d).tags})
        useful = [(n, t) for t, n in counts.items()
                  if n < len(pool) and not any(anchor_hits(a, stems(t)) for a in routed.anchors)]
        return [t for _, t in sorted(useful, key=lambda nt: (-nt[0], nt[1]))[:5]]


def open_router(roots: Roots, settings: Settings | None = None) -> tuple[Router, Settings]:
    settings = settings or roots.settings()
    policy = make_policy(settings.get("ignore.patterns"), roots.project, settings.get("roles"))
    return Router(MemoryIndex(roots), policy), settings


def active_variant(settings: Settings) -> str:
    """With rule variants off, rules render the balanced variant (§6.2)."""
    if settings.get("rule_variants.enabled"):
        return str(settings.get("rule_variants.active"))
    return "balanced"
