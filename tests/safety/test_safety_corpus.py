"""The fixture corpus: every positive line is caught with its kind, no negative line is."""

from __future__ import annotations

from pathlib import Path

import pytest

from engram.safety import redact, scan_injection, scan_secrets, scan_text, strip_injection_lines
from engram.safety.engine import secret_hits

CORPUS = Path(__file__).resolve().parent.parent / "fixtures" / "safety"


def _lines(name: str) -> list[str]:
    raw = (CORPUS / name).read_text(encoding="utf-8").split("\n")
    return [ln for ln in raw if ln and not ln.startswith("#")]


def _positive() -> list[tuple[str, str]]:
    pairs = []
    for ln in _lines("positive.txt"):
        text, kind = ln.rsplit("\t# ", 1)
        pairs.append((text, kind))
    return pairs


POSITIVE = _positive()
NEGATIVE = _lines("negative.txt")
SECRET_LINES = [(t, k) for t, k in POSITIVE if not k.startswith("injection.")]
INJECTION_LINES = [t for t, k in POSITIVE if k.startswith("injection.")]


def test_corpus_is_big_enough_to_mean_something() -> None:
    assert len(POSITIVE) >= 60
    assert len(NEGATIVE) >= 80
    kinds = {k for _, k in POSITIVE}
    assert len(kinds) >= 20


@pytest.mark.parametrize(("text", "kind"), POSITIVE, ids=[k for _, k in POSITIVE])
def test_every_positive_line_is_found_with_its_kind(text: str, kind: str) -> None:
    kinds = [f.kind for f in scan_text(text)]
    assert kind in kinds


@pytest.mark.parametrize("text", NEGATIVE)
def test_no_negative_line_is_flagged(text: str) -> None:
    assert scan_text(text) == []


def test_the_whole_negative_corpus_as_one_document_is_clean() -> None:
    assert scan_text("\n".join(NEGATIVE)) == []


@pytest.mark.parametrize(("text", "kind"), SECRET_LINES, ids=[k for _, k in SECRET_LINES])
def test_redaction_removes_every_positive_secret(text: str, kind: str) -> None:
    spans = [text[h.start : h.end] for h in secret_hits(text)]
    redacted, count = redact(text)
    assert count >= 1
    assert all(span not in redacted for span in spans)
    assert scan_secrets(redacted) == []
    assert "[REDACTED:" in redacted


def test_redaction_leaves_negative_text_untouched() -> None:
    doc = "\n".join(NEGATIVE)
    assert redact(doc) == (doc, 0)


def test_strip_injection_lines_counts_and_removes_exactly_the_injection_lines() -> None:
    mixed = []
    for neg, inj in zip(NEGATIVE, INJECTION_LINES, strict=False):
        mixed += [neg, inj]
    kept, removed = strip_injection_lines("\n".join(mixed))
    assert removed == min(len(NEGATIVE), len(INJECTION_LINES))
    assert kept.split("\n") == NEGATIVE[: removed]
    assert scan_injection(kept) == []


def test_findings_in_a_whole_document_carry_the_right_line_numbers() -> None:
    doc = "\n".join(t for t, _ in POSITIVE)
    lines_found = {f.line for f in scan_text(doc)}
    assert lines_found == set(range(1, len(POSITIVE) + 1))
