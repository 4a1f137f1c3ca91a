"""Pick the pack: the top `load.limit` memories plus their `depends_on` prerequisites
(docs/reading.md).

Prerequisites are followed transitively and placed before their dependants; when the limit is
tight they take precedence over the lowest-ranked primaries, which are dropped (and reported).
A dependency cycle is reported and broken where it closes, never followed forever. This module
works on keys and a prerequisite lookup only; it does not know files, scores or visibility.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

Deps = Callable[[str], Sequence[str]]


class Selection:
    """The pack in load order and how it came to be."""

    __slots__ = ("keys", "primary", "prereq_of", "dropped", "cycles")

    def __init__(self) -> None:
        self.keys: list[str] = []
        self.primary: list[str] = []
        self.prereq_of: dict[str, str] = {}  # prerequisite → the dependant that pulled it in
        self.dropped: list[str] = []  # ranked primaries displaced by prerequisites
        self.cycles: list[list[str]] = []


def closure(key: str, deps: Deps, cycles: list[list[str]]) -> list[str]:
    """`key`'s transitive prerequisites then `key` itself, prerequisites first (post-order DFS)."""
    order: list[str] = []
    done: set[str] = set()
    path: list[str] = []

    def visit(node: str) -> None:
        if node in done:
            return
        if node in path:
            cycle = [*path[path.index(node):], node]
            if not any(_same_cycle(cycle, seen) for seen in cycles):
                cycles.append(cycle)
            return
        path.append(node)
        for dep in deps(node):
            visit(dep)
        path.pop()
        done.add(node)
        order.append(node)

    visit(key)
    return order


def _same_cycle(a: list[str], b: list[str]) -> bool:
    return set(a) == set(b) and len(a) == len(b)


def select(ranked: Sequence[str], deps: Deps, limit: int) -> Selection:
    """Top `limit` of `ranked`, each with its prerequisites first, never more than `limit` keys."""
    sel = Selection()
    chosen: set[str] = set()
    for key in ranked[:limit]:
        if key in chosen:
            continue
        group = [k for k in closure(key, deps, sel.cycles) if k not in chosen]
        if len(chosen) + len(group) > limit:
            sel.dropped.append(key)
            continue
        for k in group:
            chosen.add(k)
            sel.keys.append(k)
            if k != key:
                sel.prereq_of.setdefault(k, key)
        sel.primary.append(key)
    # A key both ranked and pulled in as a prerequisite counts as a primary.
    for k in sel.primary:
        sel.prereq_of.pop(k, None)
    return sel


def order_failures(keys: Sequence[str], deps: Deps) -> list[tuple[str, str]]:
    """(prerequisite, dependant) pairs of the pack that appear in the wrong order."""
    pos = {k: i for i, k in enumerate(keys)}
    bad = []
    for k in keys:
        for d in deps(k):
            if d in pos and pos[d] > pos[k]:
                bad.append((d, k))
    return bad
