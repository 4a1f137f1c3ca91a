"""Deterministic verdicts (§7.2): NOOP, SUPERSEDE, UPDATE or ADD, plus related-memory hints.

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
This module reads Memory objects only; it neither loads nor writes files.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

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


@dataclass(frozen=True)
class _Scored:
    memory: Memory
    score: float
    bare: float  # similarity without polarity words
    opposite: bool
    equal: bool


def active(memories: Iterable[Memory]) -> list[Memory]:
    """The memories verdicts compare against: durable, active, sorted by id."""
    return sorted((m for m in memories if m.lifecycle == "active" and not m.is_note),
                  key=lambda m: m.id)


def candidate_terms(candidate: Candidate) -> frozenset[str]:
    return word_set(f"{title_from_text(candidate.text)}\n{candidate.text}")


def memory_terms(memory: Memory) -> frozenset[str]:
    return word_set(f"{memory.title}\n{memory.content}")


def decide(candidate: Candidate, memories: Sequence[Memory]) -> Verdict:
    """The verdict of `candidate` against `memories` (one root's memories, any lifecycle)."""
    pool = active(memories)
    by_id = {m.id: m for m in pool}
    scored = _score(candidate, pool)
    same = [s for s in scored if s.memory.type == candidate.type]
    declared = frozenset(candidate.declared())

    def done(kind: Kind, target: str | None, reason: str, blocked: str | None = None) -> Verdict:
        return Verdict(kind, target, reason, _hints(candidate, scored, target), declared, blocked)

    noop = next((s for s in same if not s.opposite and (s.equal or s.score >= NOOP_AT)), None)
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


def _score(candidate: Candidate, pool: Sequence[Memory]) -> list[_Scored]:
    terms = candidate_terms(candidate)
    bare_terms = without_polarity(terms)
    mine = polarity(terms)
    key = content_key(candidate.text)
    out = []
    for m in pool:
        other = memory_terms(m)
        out.append(_Scored(
            memory=m,
            score=jaccard(terms, other),
            bare=jaccard(bare_terms, without_polarity(other)),
            opposite=opposite(mine, polarity(other)),
            equal=bool(key) and key == content_key(m.content),
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
