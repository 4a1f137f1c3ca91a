"""Selection: limit, prerequisites first, cycles reported."""

from __future__ import annotations

from engram.search.select import order_failures, select


def deps_of(graph: dict[str, list[str]]):  # type: ignore[no-untyped-def]
    return lambda k: graph.get(k, [])


def test_prerequisites_come_before_their_dependants() -> None:
    graph = {"c": ["b"], "b": ["a"]}
    sel = select(["c", "x"], deps_of(graph), limit=8)
    assert sel.keys == ["a", "b", "c", "x"]
    assert sel.prereq_of == {"a": "c", "b": "c"}
    assert order_failures(sel.keys, deps_of(graph)) == []


def test_prerequisites_displace_the_lowest_ranked_primaries_within_the_limit() -> None:
    graph = {"p1": ["q1", "q2"]}
    sel = select(["p1", "p2", "p3", "p4"], deps_of(graph), limit=4)
    assert sel.keys == ["q1", "q2", "p1", "p2"]
    assert sel.dropped == ["p3", "p4"]
    assert len(sel.keys) == 4


def test_a_cycle_is_reported_and_never_loops() -> None:
    graph = {"a": ["b"], "b": ["c"], "c": ["a"]}
    sel = select(["a"], deps_of(graph), limit=8)
    assert sorted(sel.keys) == ["a", "b", "c"]
    assert sel.cycles == [["a", "b", "c", "a"]]


def test_only_the_top_limit_primaries_are_considered() -> None:
    ranked = [f"m{i}" for i in range(10)]
    sel = select(ranked, deps_of({}), limit=8)
    assert sel.keys == ranked[:8]
