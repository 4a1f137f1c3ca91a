"""Scanning text for secrets, PII and prompt-injection lines.

Owns the loop over the rule table: the prefilter, overlap resolution between rules (the
earlier row wins), line numbers and redacted excerpts. Secret/PII hits are spans (redaction
replaces them); injection hits are whole lines (they are removed, never rewritten).
It does not own the patterns (`rules.py`) nor the rewriting of text (`redact.py`).
"""

from __future__ import annotations

import bisect
import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass

from engram.safety.model import Finding, Rule
from engram.safety.rules import INJECTION_RULES, SECRET_RULES

_PEM_END = re.compile(r"-----END[A-Z0-9 ]{0,40}-----")
_PEM_BODY = re.compile(r"(?:\n[A-Za-z0-9+/=]{16,120}\r?(?=\n|\Z))*")
_PEM_MAX_BLOCK = 16_384  # a 4096-bit RSA key in PEM is ~3.3 KB; beyond this it is not one block
# Invisible characters that would split a keyword ("ig\u200bnore") without changing how it reads.
_INVISIBLE = dict.fromkeys(map(ord, "\u200b\u200c\u200d\u2060\ufeff\u00ad"))
_EXCERPT_WIDTH = 80


@dataclass(frozen=True, slots=True)
class Hit:
    """A sensitive span `[start, end)` of the scanned text and the rule that found it."""

    start: int
    end: int
    rule: Rule


def _allowed(allow_emails: Iterable[str]) -> frozenset[str]:
    return frozenset(e.strip().lower() for e in allow_emails if e.strip())


def _block_end(text: str, after: int, ends: list[int]) -> int:
    """Where a private-key block that starts before `after` ends: its END line or its body."""
    i = bisect.bisect_left(ends, after)
    if i < len(ends) and ends[i] - after <= _PEM_MAX_BLOCK:
        return ends[i]
    body = _PEM_BODY.match(text, after)
    return body.end() if body else after


def _rule_hits(text: str, rule: Rule, allow: frozenset[str]) -> list[Hit]:
    hits: list[Hit] = []
    ends: list[int] | None = None
    for m in rule.pattern.finditer(text):
        if hits and m.start() < hits[-1].end:
            continue  # inside the previous block of this rule
        if rule.validate is not None and not rule.validate(m, allow):
            continue
        group = next((g for g in rule.value_groups if m.group(g) is not None), None)
        start, end = m.span(group) if group else m.span()
        if rule.multiline_block:
            ends = ends if ends is not None else [e.end() for e in _PEM_END.finditer(text)]
            end = _block_end(text, end, ends)
        hits.append(Hit(start, end, rule))
    return hits


def _free(taken_starts: list[int], taken_ends: list[int], hit: Hit) -> bool:
    """True when `hit` overlaps no span already taken (taken spans are sorted, disjoint)."""
    i = bisect.bisect_right(taken_starts, hit.start)
    if i and taken_ends[i - 1] > hit.start:
        return False
    return i == len(taken_starts) or taken_starts[i] >= hit.end


def secret_hits(text: str, allow: frozenset[str] = frozenset()) -> list[Hit]:
    """Disjoint secret/PII spans in text order; on overlap the earlier rule in the table wins."""
    low = text.lower()
    taken: list[Hit] = []
    for rule in SECRET_RULES:
        if rule.hints and not any(h in low for h in rule.hints):
            continue
        found = _rule_hits(text, rule, allow)
        if not found:
            continue
        starts, ends = [h.start for h in taken], [h.end for h in taken]
        # Merging per rule (not per hit) keeps many-hit inputs linear instead of quadratic.
        taken = sorted(taken + [h for h in found if _free(starts, ends, h)], key=lambda h: h.start)
    return taken


def apply_hits(text: str, hits: list[Hit]) -> str:
    """Replace each (disjoint, sorted) hit by its rule's placeholder."""
    parts: list[str] = []
    pos = 0
    for hit in hits:
        parts += [text[pos : hit.start], hit.rule.redaction]
        pos = hit.end
    parts.append(text[pos:])
    return "".join(parts)


def normalize_for_injection(text: str) -> str:
    """Text as a model reads it: invisible characters dropped, compatibility forms folded.

    Line count is preserved (each line is folded alone) so line numbers stay valid.
    """
    text = text.translate(_INVISIBLE)
    if text.isascii():
        return text
    return "\n".join(unicodedata.normalize("NFKC", ln).replace("\n", " ") for ln in text.split("\n"))


def injection_lines(text: str) -> dict[int, Rule]:
    """1-based line number -> the first injection rule that flags that line."""
    norm = normalize_for_injection(text)
    low = norm.lower()
    starts = _line_starts(norm)
    flagged: dict[int, Rule] = {}
    for rule in INJECTION_RULES:
        if rule.hints and not any(h in low for h in rule.hints):
            continue
        for m in rule.pattern.finditer(norm):
            flagged.setdefault(bisect.bisect_right(starts, m.start()), rule)
    return dict(sorted(flagged.items()))


def _line_starts(text: str) -> list[int]:
    return [0] + [m.end() for m in re.finditer("\n", text)]


def _excerpt(line: str, rule: Rule, allow: frozenset[str]) -> str:
    """The line, redacted and whitespace-collapsed, cut to a window around the finding."""
    clean = " ".join(apply_hits(line, secret_hits(line, allow)).split())
    if len(clean) <= _EXCERPT_WIDTH:
        return clean
    at = clean.find(rule.redaction) if rule.category != "injection" else 0
    start = max(0, min(at - _EXCERPT_WIDTH // 4, len(clean) - _EXCERPT_WIDTH))
    cut = clean[start : start + _EXCERPT_WIDTH]
    return ("…" if start else "") + cut + ("…" if start + _EXCERPT_WIDTH < len(clean) else "")


def _findings(text: str, located: list[tuple[int, Rule]], allow: frozenset[str]) -> list[Finding]:
    lines = text.split("\n")
    seen: set[tuple[int, str]] = set()
    out: list[Finding] = []
    for line_no, rule in located:
        if (line_no, rule.kind) in seen:
            continue  # one finding per kind per line keeps error messages readable
        seen.add((line_no, rule.kind))
        excerpt = _excerpt(lines[line_no - 1], rule, allow)
        out.append(Finding(line_no, rule.kind, rule.category, rule.label, excerpt))
    return out


def scan_secrets(text: str, allow_emails: Iterable[str] = ()) -> list[Finding]:
    """Secret and PII findings, in text order. `allow_emails` are addresses that may appear."""
    allow = _allowed(allow_emails)
    hits = secret_hits(text, allow)
    starts = _line_starts(text) if hits else []
    located = [(bisect.bisect_right(starts, h.start), h.rule) for h in hits]
    return _findings(text, located, allow)


def scan_injection(text: str) -> list[Finding]:
    """Prompt-injection findings: at most one per line, in line order."""
    return _findings(text, list(injection_lines(text).items()), frozenset())


def scan_text(text: str, *, allow_emails: Iterable[str] = ()) -> list[Finding]:
    """Every finding (secrets, PII, injection), ordered by line."""
    found = scan_secrets(text, allow_emails) + scan_injection(text)
    return sorted(found, key=lambda f: f.line)
