"""Aspect coverage: the floor keeps a task's second subject when nothing kept names it."""

from __future__ import annotations

import datetime as dt

from engram.search.rank import Candidate, rerank
from engram.search.terms import stems

TODAY = dt.date(2026, 12, 4)


def cand(mid: str, bm25: float, strong: str, tags: tuple[str, ...]) -> Candidate:
    pad = f" {' '.join(stems(strong))} "
    return Candidate(key=f"workspace:{mid}", id=mid, scope="workspace", type="skill", bm25=bm25,
                     field_text=pad, strong_text=pad, tag_text=f" {' '.join(tags)} ",
                     updated="2026-01-01", tags=frozenset(tags))


def test_a_second_subject_under_the_boosted_floor_comes_back() -> None:
    anchors = [stems(w)[0] for w in ("bump", "kotlin", "flaky", "screenshot")]
    pool = [cand("bump-kotlin", 10, "bump kotlin version", ("android", "gradle")),
            cand("android-build", 9, "android build kotlin", ("android", "gradle")),
            cand("kotlin-style", 8, "kotlin style", ("android", "gradle")),
            cand("screenshot-tests", 3.5, "flaky screenshot tests", ("testing",)),
            cand("bump-deps", 3.0, "bump dependencies", ("deps",))]
    ranked = [c.id for c in rerank(pool, anchors, TODAY)]
    assert "screenshot-tests" in ranked  # names `flaky` and `screenshot`, which nothing kept names
    assert "bump-deps" not in ranked  # names only `bump`, which bump-kotlin already names
