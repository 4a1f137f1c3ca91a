"""Free pack slots: after ranking, the channels that fill the places a task left open.

Both come after every ranked candidate, so they never displace one, and every memory they add
matched a word of the task (a secondary signal never selects a memory without one; docs/reading.md
"How ranking works", steps 7 and 8): tag siblings of the best candidate (implied sub-tasks) and
the best memories of each clause of a task with several subjects. The semantic extra's channel
is similar.py.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from engram.search.rank import Candidate, found_by_task, mark_matched
from engram.search.terms import clauses, stems

if TYPE_CHECKING:
    from engram.search.route import Routed, Router

SIBLING_TAGS = 2  # tags a memory must share with the best candidate to fill a free slot
SIBLING_POOL = 4  # memories looked at for that (BM25 over the tags column)
CLAUSE_PICKS_AT = 3  # a clause of this many task words gives two memories, a shorter one one


def tag_siblings(router: Router, routed: Routed, ranked: list[Candidate],
                 room: int) -> list[Candidate]:
    """Memories sharing at least `SIBLING_TAGS` tags with the best candidate, for the pack's
    free slots (best BM25 over the tags first; after every ranked candidate).

    The second channel for implied sub-tasks: a memory's author tags it with the topics it
    belongs to, so the memory that names the task ("drop column" → expand-contract) brings
    the procedure its topic always needs (`migration`, `schema` → add-db-migration), and
    selection then adds that one's `depends_on`. A sibling must still share a word with the
    task: tags alone never select a memory (docs/reading.md "How ranking works", step 7)."""
    best = ranked[0]
    if len(best.tags) < SIBLING_TAGS:
        return []
    words = list(dict.fromkeys(s for t in sorted(best.tags) for s in stems(t)))
    found, _, _ = router.candidates(words, SIBLING_POOL, column="tags")
    have = {c.key for c in ranked}
    out: list[Candidate] = []
    for d, score in found:
        tags = frozenset(map(str.lower, d.tags))
        if d.key in have or len(tags & best.tags) < SIBLING_TAGS:
            continue
        cand = Candidate(d.key, d.id, d.scope, d.type, score, d.field_text,
                         d.strong_text, d.tag_text, d.updated, tags)
        mark_matched([cand], routed.anchors)
        if not found_by_task(cand, routed.anchors):
            continue  # no task word: tags alone never select (docs/reading.md, ranking step 7)
        routed.docs.setdefault(d.key, d)
        routed.sibling_of[d.key] = best.id
        out.append(cand)
        if len(out) == room:
            break
    # A sibling may be one that evidence pruning judged off topic for the task's words;
    # sharing the best memory's topics is the other channel, so it is not listed as pruned.
    chosen = {c.key for c in out}
    routed.pruned = [(k, r) for k, r in routed.pruned if k not in chosen]
    return out


def second_subjects(router: Router, task: str, routed: Routed, room: int) -> list[Candidate]:
    """For a task with several subjects ("bump the kotlin version and fix the flaky map
    screenshot test"), the best candidates of each clause routed on its own, for the pack's
    free slots (after every ranked candidate and tag sibling).

    Ranked as a whole, the task's largest subject gets the neighbour boost and its cluster
    fills the pack while the other subject's memories fall under the floor; routed alone,
    each clause has its own best memory. One per clause, two for a clause of three or more
    task words; each matched words of the task, so no memory without anchor overlap."""
    have = {c.key for c in routed.ranked}
    out: list[Candidate] = []
    for clause in clauses(task):
        sub = router.ranked_only(clause, room)
        take = 2 if len(sub.anchors) >= CLAUSE_PICKS_AT else 1
        for c in sub.ranked[:take]:
            if c.key in have:
                continue
            have.add(c.key)
            routed.docs.setdefault(c.key, sub.docs[c.key])
            routed.clause_of[c.key] = clause
            out.append(c)
    out = out[:room]
    chosen = {c.key for c in out}  # routed alone, its clause's words were evidence enough
    routed.pruned = [(k, r) for k, r in routed.pruned if k not in chosen]
    return out
