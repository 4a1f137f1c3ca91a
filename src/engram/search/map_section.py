"""The map: further memories a routed task may need, listed by id and title after the pack
(docs/reading.md "The map").

The pack holds at most `load.limit` memories; a memory ranked 9th or 20th would otherwise be
invisible, while the model reading the pack is good at picking the right one from a short list
of titles and can fetch any memory by id. The candidates are a deeper BM25 list than the pack's
(`MAP_DEPTH` rows per root, fetched by the pack's own query), reranked with the same boosts
(the phrase boost aside) but without the relative floor, after the same guards as the pack:
the policy's visibility (superseded, low confidence, inactive roles, ignored), files that
stand (standing.py), a guarded read of each listed file (its title comes from the approved
bytes, never from the index), and a task word matched (a role-only match goes). Memories the
pack holds, or the reader already has, are left out; so are working notes (they appear only
as the pack's cards). This module picks and reads; pack.py renders.
"""

from __future__ import annotations

from collections.abc import Collection, Iterator

from engram.search.rank import found_by_task
from engram.search.reader import Reader
from engram.search.route import Routed, Router
from engram.store.model import Memory

MAP_DEPTH = 32  # BM25 rows per root; 32, 48 and 64 measured (docs/reading.md "The map")
MAP_MAX = 16  # candidates at most; the budget may list fewer of them


def map_memories(router: Router, reader: Reader, routed: Routed,
                 exclude: Collection[str]) -> Iterator[Memory]:
    """The map's memories, most likely first, each from a guarded read; `exclude` holds keys
    (`scope:id`) already in the pack or in the reader's context. Nothing when the task routed
    nothing: an off-topic task gets no map. Lazy, so only the files that get listed are read."""
    if not routed.selection.keys or not routed.anchors:
        return
    left_out = {k.split(":", 1)[1] for k in exclude} | {
        routed.docs[k].id for k in routed.selection.keys if k in routed.docs}
    found = routed.deeper  # fetched by the pack's own query (Router.route `deeper`)
    # Ranked with the pack's own memories still among the candidates: they are the task's
    # subject cluster, which the neighbour signal (rank.py) measures the others against. No
    # phrase boost: it cost 0.6 ms a load and changed no recall on dev or the own fixture.
    ranked = router.rank(routed.anchors, found, head_size=len(found), floor=0.0)
    docs = {d.key: d for d, _ in found}
    order = [docs[c.key] for c in ranked if found_by_task(c, routed.anchors)
             and c.id not in left_out and not docs[c.key].is_note]
    router.prefetch(reader, order[:MAP_MAX])
    listed = 0
    for d in order:
        if listed >= MAP_MAX:
            return
        got = router.read(reader, d, router.policy.hidden_reason)
        m = got.memory
        # The file read may differ from the row (a rival claim, claims.py): it is checked again.
        if m is None or m.id in left_out or m.is_note or router.policy.hidden_reason(m):
            continue
        left_out.add(m.id)
        listed += 1
        yield m
