"""Verdicts (§7.2) against constructed memories: each verdict, polarity, hints, determinism."""

from __future__ import annotations

from pathlib import Path

import pytest

from engram.proposals.candidates import parse_candidates
from engram.proposals.verdicts import (
    DEPENDENCY_AT,
    DUPLICATE_AT,
    NOOP_AT,
    UPDATE_AT,
    Verdict,
    decide,
)
from engram.store.format import parse_memory, render_memory
from engram.store.ids import slugify, title_from_text
from engram.store.model import TYPE_DIR, Memory

PAIRS = Path(__file__).parent / "fixtures" / "verdict_pairs.txt"


def mem(text: str, mtype: str = "rule", mid: str | None = None, **meta: object) -> Memory:
    mid = mid or slugify(title_from_text(text))
    fm = {"id": mid, "type": mtype, "created": "2026-08-01", "revision": 1, **meta}
    rel = f"{TYPE_DIR[mtype]}/{mid}.md"
    return parse_memory(render_memory(fm, title_from_text(text), f"- {text}"), rel)


def verdict(text: str, memories: list[Memory], mtype: str = "rule", **fields: str) -> Verdict:
    extra = "".join(f" | {k.upper()}: {v}" for k, v in fields.items())
    [c] = parse_candidates(f"TYPE: {mtype} | TEXT: {text}{extra}")
    return decide(c, memories)


def _pairs() -> list[tuple[str, ...]]:
    return [tuple(p.strip() for p in line.split("|"))
            for line in PAIRS.read_text(encoding="utf-8").splitlines()
            if line.strip() and not line.startswith("#")]


@pytest.mark.parametrize(("expected", "mtype", "old_type", "old", "new"), _pairs())
def test_calibration_pairs_get_the_labelled_verdict(expected: str, mtype: str, old_type: str,
                                                    old: str, new: str) -> None:
    existing = mem(old, old_type, mid="existing")
    v = verdict(new, [existing], mtype)
    kinds = {"DUP": "ADD", "DEP": "ADD"}
    assert v.kind == kinds.get(expected, expected)
    if expected in {"NOOP", "UPDATE", "SUPERSEDE"}:
        assert v.target == "existing"
    if expected == "DUP":
        assert [(h.kind, h.id) for h in v.hints] == [("possible duplicate", "existing")]
    if expected == "DEP":
        assert [(h.kind, h.id) for h in v.hints] == [("suggested dependency", "existing")]
    if expected == "ADD":
        assert v.hints == ()


def test_thresholds_are_the_documented_defaults() -> None:
    assert (NOOP_AT, UPDATE_AT, DUPLICATE_AT, DEPENDENCY_AT) == (0.90, 0.60, 0.35, 0.15)


def test_noop_names_the_duplicate_and_is_not_writable() -> None:
    v = verdict("Run the smoke suite before tagging.", [mem("Run the smoke suite before tagging.")])
    assert v.label.startswith("NOOP duplicate of ") and not v.writable and not v.ready


def test_opposite_polarity_is_never_noop_even_when_words_match() -> None:
    v = verdict("Never use tabs in Go files.", [mem("Always use tabs in Go files.", mid="tabs")])
    assert v.label == "SUPERSEDE tabs"


def test_explicit_update_and_supersedes_win_over_similarity() -> None:
    old = mem("Deploy with the blue green script.", mid="deploy-script")
    assert verdict("Ship on Fridays only.", [old], update="deploy-script").label == \
        "UPDATE deploy-script"
    assert verdict("Ship on Fridays only.", [old], supersedes="deploy-script").label == \
        "SUPERSEDE deploy-script"


def test_explicit_target_that_does_not_exist_is_blocked() -> None:
    v = verdict("Ship on Fridays only.", [], update="ghost")
    assert v.blocked and not v.ready


def test_other_types_are_never_noop_or_update_targets() -> None:
    v = verdict("Run the smoke suite before tagging.", [mem("Run the smoke suite before tagging.",
                                                            "knowledge")])
    assert v.kind == "ADD"


def test_archived_and_superseded_memories_are_ignored() -> None:
    old = mem("Run the smoke suite before tagging.", lifecycle="superseded")
    assert verdict("Run the smoke suite before tagging.", [old]).kind == "ADD"


def test_hint_is_answered_by_declaring_the_id() -> None:
    old = mem("Run the smoke suite before tagging a release.", mid="smoke")
    text = "Release tags must follow the smoke suite run."
    assert not verdict(text, [old], "knowledge").ready
    answered = verdict(text, [old], "knowledge", depends_on="smoke", level="advanced")
    assert answered.ready and answered.hints[0].id == "smoke"


def test_same_store_gives_the_same_verdicts_in_any_order() -> None:
    ms = [mem("Keep pull requests small and focused.", mid=f"pr-{i}") for i in range(3)]
    first = verdict("Keep pull requests small and focused please.", ms)
    again = verdict("Keep pull requests small and focused please.", list(reversed(ms)))
    assert first == again and first.target == "pr-0"
