"""Evidence pruning (docs/reading.md): drop candidates whose only link to the task is a passing
word.

BM25 scores one rare query word in a short title as highly as a real subject match, so a store
that also holds other teams' notes routes "clean out the office fridge on Fridays" for "ship on
Friday". After reranking, routing weighs what each candidate actually matched and applies three
rules, stated in terms of the query, the store's document frequencies and the candidates' own
fields and tags — never in terms of particular words:

1. Foreign query: when at least half of the query's IDF mass is in words no memory contains and
   no candidate matches an anchor in its id, title, tags or triggers, the task is about
   something else and routes nothing.
   Off-topic query: when the candidates that would fill the pack together match less than
   `EXPLAINED_MIN` of the query's IDF mass (body-only matches counting `BODY_WEIGHT`; judged in
   stores of `EXPLAINED_STORE` memories or more, where IDF means something), the task
   shares a word or two with the store but is about something else ("what's a good truck for
   towing a camper") and routes nothing.
2. Coverage: a candidate's evidence is the IDF of the anchors it matched, a body-only match
   counting `BODY_WEIGHT` (a title, tag, trigger or id says what a memory is about; a body
   mentions many things in passing). Candidates under `MIN_SHARE` of the best one's evidence go.
3. Off topic: a memory on the task's subject is tagged with the query's words or with topics
   other candidates share. One whose tags are mostly neither, and which shares no topic tag
   (a tag that is not a query word) with an on-topic candidate, goes when an on-topic candidate
   matched all of its anchors and that candidate's tag neighbours matched more; or when it only
   mentions its anchors in the body and another candidate matched them with more evidence.

Search does not prune (it lists every match); `load --explain` lists what was pruned and why.
This module works on `Candidate` values and numbers; it does not query the index.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping, Sequence

from engram.search.rank import Candidate, needle, tag_text

BODY_WEIGHT = 0.5  # a body-only match is half the evidence of an id/title/tag/trigger match
MIN_SHARE = 1 / 3  # rule 2: keep candidates with at least a third of the best one's evidence
FOREIGN_SHARE = 0.5  # rule 1: share of the query's IDF mass in words the store never uses
TOPIC_SHARE = 0.5  # rule 3: share of a memory's tags that must be query words or shared
EXPLAINED_MIN = 0.2  # rule 1: share of the query's IDF mass the pack must match
# ... judged only in a store of at least this many memories: in a handful of memories on one
# subject, the subject's own words have near-zero IDF and any other word looks unexplained.
EXPLAINED_STORE = 50

class Pruned:
    """What pruning kept (in the order given), and why the others went."""

    __slots__ = ("kept", "dropped")

    def __init__(self) -> None:
        self.kept: list[Candidate] = []
        self.dropped: list[tuple[str, str]] = []  # (key, reason)


def idf(df: int, n: int) -> float:
    """BM25's IDF, floored just above zero so a word in every memory still counts a little."""
    return max(0.05, math.log(1.0 + (n - df + 0.5) / (df + 0.5)))


def evidence(c: Candidate, w: Mapping[str, float]) -> float:
    """IDF of the matched anchors; a match found only in the body counts `BODY_WEIGHT`."""
    return sum(w.get(a, 0.0) * (1.0 if a in c.strong else BODY_WEIGHT) for a in c.matched)


def _strong(c: Candidate) -> bool:
    return bool(c.strong)


def explained(cands: Sequence[Candidate], w: Mapping[str, float]) -> float:
    """Share of the query's IDF mass that the candidates together match; a word matched only
    in bodies counts `BODY_WEIGHT`."""
    total = sum(w.values())
    if total <= 0:
        return 1.0
    strong = {a for c in cands for a in c.strong}
    matched = {a for c in cands for a in c.matched}
    return sum(w.get(a, 0.0) * (1.0 if a in strong else BODY_WEIGHT) for a in matched) / total


def foreign_query(cands: Sequence[Candidate], w: Mapping[str, float],
                  df: Mapping[str, int]) -> bool:
    """Rule 1: mostly words the store never uses, and nothing but passing body mentions."""
    total = sum(w.values())
    unknown = sum(v for a, v in w.items() if df.get(a, 0) == 0)
    return total > 0 and unknown >= FOREIGN_SHARE * total and not any(map(_strong, cands))


def prune(cands: Sequence[Candidate], anchors: Sequence[str], df: Mapping[str, int],
          n: int, keep: int | None = None) -> Pruned:
    """Apply the three rules to reranked candidates (best first, `matched` filled in).

    With `keep`, candidates after the first `keep` kept ones are kept unjudged: selection never
    looks past them, so judging them would only cost time."""
    out = Pruned()
    w = {a: idf(df.get(a, 0), n) for a in anchors}
    if not cands:
        return out
    if foreign_query(cands, w, df):
        out.dropped = [(c.key, "foreign query: most words unknown to the store, "
                        "only passing mentions matched") for c in cands]
        return out
    ev = {c.key: evidence(c, w) for c in cands}
    best = max(ev.values())
    survivors = []
    for c in cands:
        if ev[c.key] < MIN_SHARE * best:
            out.dropped.append((c.key, f"weak evidence: {ev[c.key] / best:.0%} of the best "
                                       "candidate's"))
        else:
            survivors.append(c)
    share = explained(survivors[:keep] if keep is not None else survivors, w)
    if share < EXPLAINED_MIN and n >= EXPLAINED_STORE:
        out.dropped += [(c.key, f"off-topic query: the best candidates explain {share:.0%} of "
                         "the task's word weight") for c in survivors]
        return out
    topics = _Topics(cands, anchors)
    on: list[Candidate] | None = None  # worked out only once some candidate is off topic
    shared: set[str] = set()
    for c in survivors:
        if (keep is not None and len(out.kept) >= keep) or topics.on_topic(c):
            out.kept.append(c)
            continue
        if on is None:
            on = [d for d in survivors if topics.on_topic(d)]
            shared = {t for d in on for t in topics.topic_tags(d)}
        # Sharing a topic with an on-topic memory puts a memory on topic too.
        linked = any(t in shared for t in topics.topic_tags(c))
        reason = None if linked else _off_topic(c, survivors, on, ev)
        if reason is None:
            out.kept.append(c)
        else:
            out.dropped.append((c.key, reason))
    return out


class _Topics:
    """Tag facts of one candidate pool: which tags are query words, which several carry."""

    def __init__(self, cands: Sequence[Candidate], anchors: Sequence[str]) -> None:
        self.count = Counter(t for c in cands for t in c.tags)
        self.needles = [needle(a) for a in anchors]
        self._query_word: dict[str, bool] = {}
        self._on: dict[str, bool] = {}

    def query_word(self, tag: str) -> bool:
        got = self._query_word.get(tag)
        if got is None:
            text = tag_text(tag)
            got = self._query_word[tag] = any(n in text for n in self.needles)
        return got

    def on_topic(self, c: Candidate) -> bool:
        """Most tags are query words or carried by another candidate (untagged: can't tell)."""
        got = self._on.get(c.key)
        if got is None:
            near = sum(1 for t in c.tags if self.count[t] > 1 or self.query_word(t))
            got = self._on[c.key] = not c.tags or near >= TOPIC_SHARE * len(c.tags)
        return got

    def topic_tags(self, c: Candidate) -> list[str]:
        """Tags that are not query words: sharing a query word shares only the query."""
        return [t for t in c.tags if not self.query_word(t)]


def _off_topic(c: Candidate, cands: Sequence[Candidate], on: Sequence[Candidate],
               ev: Mapping[str, float]) -> str | None:
    """Why an off-topic candidate goes (rule 3), or None when nothing covers it."""
    mine = set(c.matched)
    for d in on:
        if d is not c and mine <= set(d.matched):
            near = {a for e in cands if e is d or d.tags & e.tags for a in e.matched}
            if mine < near:
                return f"off topic: {d.id} and its neighbours match these words and more"
    if _strong(c):
        return None
    cover = next((d for d in cands if d is not c and mine <= set(d.matched)
                  and ev[d.key] > ev[c.key]), None)
    return None if cover is None else f"passing mention: {cover.id} is about these words"
