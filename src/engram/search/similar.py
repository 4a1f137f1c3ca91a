"""The semantic extra's routing step (off by default): fill free pack slots with candidates
whose stored vector is close to the task's.

After the second subjects (route.py, the last lexical free-slot step), when `semantic.enabled`
is on, its table loaded and the pack still has room, the BM25 top `SIMILAR_POOL`
anchor-overlap candidates not yet ranked are compared with the task vector
(search/semantic.py); at most `SIMILAR_MAX` with a cosine of at least `SIMILAR_MIN` join, best
first. Every one must still share a word with the task: a secondary signal never selects a
memory without one (docs/reading.md "Semantic extra (off by default)"). Imported only when the
channel is on (it needs numpy).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from engram.search import vectors
from engram.search.rank import Candidate, found_by_task, mark_matched
from engram.search.semantic import cosine

if TYPE_CHECKING:
    from engram.search.route import Routed, Router

SIMILAR_POOL = 48  # BM25 candidates looked at for the free slots
SIMILAR_MAX = 2  # at most this many free slots filled by similarity
SIMILAR_MIN = 0.6  # cosine with the task a memory needs for that


def similar(router: Router, task: str, routed: Routed, ranked: list[Candidate],
            roles: list[str], room: int) -> list[Candidate]:
    """The semantic extra (off by default): BM25 candidates not yet ranked whose stored
    vector is close to the task's (cosine ≥ `SIMILAR_MIN`), best first, for at most
    `SIMILAR_MAX` free slots. Each must still share a word with the task."""
    embedder = router.semantic.embedder
    task_vec = embedder.text_vector(task) if embedder is not None else None
    if task_vec is None:
        return []
    found, _, _ = router.candidates(routed.anchors, SIMILAR_POOL, context=roles)
    have = {c.key for c in ranked}
    fresh = [(d, s) for d, s in found if d.key not in have]
    stored: dict[tuple[str, int], bytes] = {}
    for scope, part in router.parts.items():
        got = vectors.fetch(part.db, [d.rowid for d, _ in fresh if d.scope == scope])
        stored.update(((scope, r), v) for r, v in got.items())
    scored = [(cosine(task_vec, stored[(d.scope, d.rowid)]), d, s) for d, s in fresh
              if (d.scope, d.rowid) in stored]
    out: list[Candidate] = []
    for cos, d, score in sorted(scored, key=lambda t: -t[0]):
        if cos < SIMILAR_MIN or len(out) == min(room, SIMILAR_MAX):
            break
        cand = Candidate(d.key, d.id, d.scope, d.type, score, d.field_text, d.strong_text,
                         d.tag_text, d.updated, frozenset(map(str.lower, d.tags)))
        mark_matched([cand], routed.anchors)
        if not found_by_task(cand, routed.anchors):
            continue  # no task word: similarity alone never selects a memory
        routed.docs.setdefault(d.key, d)
        routed.similar[d.key] = cos
        out.append(cand)
    chosen = {c.key for c in out}
    routed.pruned = [(k, r) for k, r in routed.pruned if k not in chosen]
    return out
