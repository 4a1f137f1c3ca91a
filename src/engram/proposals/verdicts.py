"""Deterministic verdicts (docs/saving.md): NOOP, SUPERSEDE, UPDATE or ADD, plus related-memory
hints.

For one candidate and the active durable memories of one target root, the first rule that
matches wins:

1. `NOOP duplicate of <id>` – a same-type memory with equal normalised content or similarity
   ≥ NOOP_AT, never one of opposite polarity;
2. `SUPERSEDE <id>` – explicit SUPERSEDES, or the best same-type memory of opposite polarity
   whose similarity without polarity words is ≥ UPDATE_AT;
3. `UPDATE <id>` – explicit UPDATE, or the best same-type memory at ≥ UPDATE_AT;
4. `ADD`.

Hints name other memories the human should look at: a same-type memory at ≥ DUPLICATE_AT is a
*possible duplicate*; when the text uses dependency language, any memory at ≥ DEPENDENCY_AT is a
*suggested dependency*. A candidate is ready only when it declares UPDATE, SUPERSEDES or
DEPENDS_ON for every hinted id. Ties break on the id so the same store gives the same verdicts.
This module is pure: it compares a candidate with `Peer`s (a memory's id, place and words),
which `peer_of` makes from a Memory and `peer_from` from the words the index cached for it
(`features` is the cached form, named FEATURES in the index).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, NamedTuple

from engram import __version__
from engram.proposals.candidates import Candidate
from engram.proposals.similarity import (
    content_key,
    jaccard,
    opposite,
    polarity,
    without_polarity,
    word_set,
)
from engram.store.ids import title_from_text
from engram.store.model import Memory

# The name under which the index caches `features` by file hash; a new release computes them
# again, so a change to similarity.py never meets words cached by an older one.
FEATURES = f"verdict-words:1:{__version__}"
# Calibrated on tests/proposals/fixtures (see docs/saving.md): SPEC defaults held.
NOOP_AT = 0.90
UPDATE_AT = 0.60
DUPLICATE_AT = 0.35
DEPENDENCY_AT = 0.15

Kind = Literal["ADD", "UPDATE", "SUPERSEDE", "NOOP"]
HintKind = Literal["possible duplicate", "suggested dependency"]
_DEPENDENCY = re.compile(
    r"\b(depends? on|depending on|builds? on|built on|requires?|required|after|follows?|"
    r"following|extends?|extending|prerequisites?|foundation|foundational)\b", re.I)


@dataclass(frozen=True)
class Hint:
    kind: HintKind
    id: str
    score: float


@dataclass(frozen=True)
class Verdict:
    """The verdict of one candidate in one root, with the reason a human can check."""

    kind: Kind
    target: str | None = None
    reason: str = ""
    hints: tuple[Hint, ...] = ()
    declared: frozenset[str] = field(default_factory=frozenset)
    blocked: str | None = None

    @property
    def label(self) -> str:
        if self.kind == "NOOP":
            return f"NOOP duplicate of {self.target}"
        return self.kind if self.target is None else f"{self.kind} {self.target}"

    @property
    def unanswered(self) -> tuple[Hint, ...]:
        return tuple(h for h in self.hints if h.id not in self.declared)

    @property
    def writable(self) -> bool:
        return self.kind != "NOOP"

    @property
    def ready(self) -> bool:
        return self.writable and self.blocked is None and not self.unanswered

    def pin(self) -> dict[str, Any]:
        """What the approval token pins: the verdict a human saw, not its scores."""
        return {"kind": self.kind, "target": self.target}


class Peer(NamedTuple):
    """What verdicts know of one memory of the target root."""

    id: str
    type: str
    rel_path: str
    active: bool  # durable and lifecycle active: the memories verdicts compare against
    terms: frozenset[str]  # stemmed content words of title and Content
    key: str  # normalised Content, for the "same content" test


@dataclass(frozen=True)
class _Scored:
    memory: Peer
    score: float
    bare: float  # similarity without polarity words
    opposite: bool
    equal: bool


def features(memory: Memory) -> str:
    """A memory's words and content key as one string (terms, a newline, the key)."""
    terms = word_set(f"{memory.title}\n{memory.content}")
    return f"{' '.join(sorted(terms))}\n{content_key(memory.content)}"


def peer_from(mid: str, mtype: str, rel: str, active: bool, cached: str,
              relevant: frozenset[str] | None = None) -> Peer:
    """A Peer from cached `features`; without a word in `relevant` (when given) it carries no
    words at all, which `_score` treats exactly like words shared with no candidate."""
    terms, _, key = cached.partition("\n")
    words = terms.split()
    if relevant is not None and relevant.isdisjoint(words):
        return Peer(mid, mtype, rel, active, frozenset(), "")
    return Peer(mid, mtype, rel, active, frozenset(words), key)


def relevant_words(candidates: Iterable[Candidate]) -> frozenset[str] | None:
    """The words a memory must share with one of `candidates` to affect their verdicts, or None
    when every memory matters: a candidate of polarity words only ("Never.") compares its empty
    rest with the empty rest of any memory (Jaccard of two empty sets is 1)."""
    words: set[str] = set()
    for c in candidates:
        terms = candidate_terms(c)
        if not without_polarity(terms):
            return None
        words |= terms
    return frozenset(words)


def comparable(lifecycle: str, tier: str) -> bool:
    """Whether verdicts compare against a memory: active, and durable (not a working note)."""
    return lifecycle == "active" and tier != "working"


def peer_of(memory: Memory) -> Peer:
    return peer_from(memory.id, memory.type, memory.rel_path,
                     comparable(memory.lifecycle, memory.tier), features(memory))


def candidate_terms(candidate: Candidate) -> frozenset[str]:
    return word_set(f"{title_from_text(candidate.text)}\n{candidate.text}")


def decide(candidate: Candidate, memories: Iterable[Memory | Peer]) -> Verdict:
    """The verdict of `candidate` against one root's memories (any lifecycle)."""
    peers = [m if isinstance(m, Peer) else peer_of(m) for m in memories]
    pool = sorted((p for p in peers if p.active), key=lambda p: p.id)
    by_id = {p.id: p for p in pool}
    scored = _score(candidate, pool)
    same = [s for s in scored if s.memory.type == candidate.type]
    declared = frozenset(candidate.declared())

    def done(kind: Kind, target: str | None, reason: str, blocked: str | None = None) -> Verdict:
        return Verdict(kind, target, reason, _hints(candidate, scored, target), declared, blocked)

    if candidate.update and candidate.renames:
        # A path fix restates its target on purpose: it is never a duplicate of it.
        missing = None if candidate.update in by_id else "no active memory with that id"
        return done("UPDATE", candidate.update, "declared UPDATE (path rename)", missing)
    noop = next((s for s in same if not s.opposite and (s.equal or s.score >= NOOP_AT)), None)
    if noop is not None and noop.memory.id == candidate.update:
        # Restating a memory with an explicit UPDATE of it is a re-confirmation: the human's
        # approval records that it still holds (last_confirmed), as `engram confirm` does.
        return done("UPDATE", candidate.update, "declared UPDATE of the same text: re-confirms")
    if noop is not None:
        why = "same content" if noop.equal else f"similarity {noop.score:.2f}"
        return done("NOOP", noop.memory.id, why)
    if candidate.supersedes:
        missing = None if candidate.supersedes in by_id else "no active memory with that id"
        return done("SUPERSEDE", candidate.supersedes, "declared SUPERSEDES", missing)
    clash = next((s for s in same if s.opposite and s.bare >= UPDATE_AT), None)
    if clash is not None:
        return done("SUPERSEDE", clash.memory.id, f"opposite polarity, similarity {clash.bare:.2f}")
    if candidate.update:
        missing = None if candidate.update in by_id else "no active memory with that id"
        return done("UPDATE", candidate.update, "declared UPDATE", missing)
    strong = next((s for s in same if not s.opposite and s.score >= UPDATE_AT), None)
    if strong is not None:
        return done("UPDATE", strong.memory.id, f"similarity {strong.score:.2f}")
    return done("ADD", None, "no strong match")


def _score(candidate: Candidate, pool: Sequence[Peer]) -> list[_Scored]:
    terms = candidate_terms(candidate)
    bare_terms = without_polarity(terms)
    mine = polarity(terms)
    key = content_key(candidate.text)
    out = []
    for p in pool:
        if bare_terms and terms.isdisjoint(p.terms):
            # No shared word: both similarities are 0 and the content differs, so this memory
            # can neither be a target nor a hint. Most of a large root is skipped here.
            out.append(_Scored(p, 0.0, 0.0, False, False))
            continue
        against = polarity(p.terms)
        clash = opposite(mine, against)
        score = jaccard(terms, p.terms)
        out.append(_Scored(
            memory=p,
            score=score,
            # Only an opposite-polarity match is judged without its polarity words.
            bare=jaccard(bare_terms, without_polarity(p.terms)) if clash else score,
            opposite=clash,
            equal=bool(key) and key == p.key,
        ))
    # Best first, ties by id: the same store always yields the same verdict.
    return sorted(out, key=lambda s: (-max(s.score, s.bare if s.opposite else 0.0), s.memory.id))


def _hints(candidate: Candidate, scored: Sequence[_Scored], target: str | None) -> tuple[Hint, ...]:
    hints: dict[str, Hint] = {}
    for s in scored:
        if s.memory.id == target or s.memory.id in hints:
            continue
        if s.memory.type == candidate.type and s.score >= DUPLICATE_AT:
            hints[s.memory.id] = Hint("possible duplicate", s.memory.id, round(s.score, 3))
    if uses_dependency_language(candidate.text):
        for s in scored:
            if s.memory.id != target and s.memory.id not in hints and s.score >= DEPENDENCY_AT:
                hints[s.memory.id] = Hint("suggested dependency", s.memory.id, round(s.score, 3))
    return tuple(sorted(hints.values(), key=lambda h: (-h.score, h.id)))


def uses_dependency_language(text: str) -> bool:
    return bool(_DEPENDENCY.search(text))


def still_holds(pinned: dict[str, Any], now: Verdict) -> bool:
    """A pinned verdict holds at commit when kind and target are unchanged."""
    return bool(pinned.get("kind") == now.kind and pinned.get("target") == now.target)
