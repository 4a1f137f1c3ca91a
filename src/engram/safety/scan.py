"""Scanning text for secrets, PII and prompt-injection lines: the `Finding` lists.

Owns the public scan functions, line numbers and redacted excerpts (a finding never echoes the
secret it reports). It does not own matching (`engine.py`) nor the patterns (`rules.py`).
"""

from __future__ import annotations

import bisect
from collections.abc import Iterable

from engram.safety.engine import Hit, apply_hits, injection_lines, line_starts, secret_hits
from engram.safety.invisible import has_invisible, scan_invisible
from engram.safety.model import Finding, Rule

_EXCERPT_WIDTH = 80


def allowed_emails(allow_emails: Iterable[str]) -> frozenset[str]:
    """The caller's allowed addresses, normalised for comparison."""
    return frozenset(e.strip().lower() for e in allow_emails if e.strip())


class _Lines:
    """The scanned text split into lines, with its secret hits, for building excerpts."""

    def __init__(self, text: str, hits: list[Hit]) -> None:
        self.text = text
        self.starts = line_starts(text)
        self.hits = hits
        self._hit_starts = [h.start for h in hits]

    def number_of(self, offset: int) -> int:
        return bisect.bisect_right(self.starts, offset)

    def redacted(self, number: int) -> str:
        begin = self.starts[number - 1]
        end = self.starts[number] - 1 if number < len(self.starts) else len(self.text)
        # Hits that start on this line, plus a block that began above and runs through it.
        lo = max(bisect.bisect_left(self._hit_starts, begin) - 1, 0)
        hi = bisect.bisect_left(self._hit_starts, end)
        here = [h for h in self.hits[lo:hi] if h.end > begin]
        return apply_hits(self.text[begin:end], here, offset=begin)


def _excerpt(line: str, rule: Rule) -> str:
    """The redacted line, whitespace-collapsed, cut to a window around the finding."""
    clean = " ".join(line.split())
    if len(clean) <= _EXCERPT_WIDTH:
        return clean
    at = clean.find(rule.redaction) if rule.category != "injection" else 0
    start = max(0, min(at - _EXCERPT_WIDTH // 4, len(clean) - _EXCERPT_WIDTH))
    cut = clean[start : start + _EXCERPT_WIDTH]
    return ("…" if start else "") + cut + ("…" if start + _EXCERPT_WIDTH < len(clean) else "")


def _findings(lines: _Lines, located: Iterable[tuple[int, Rule]]) -> list[Finding]:
    seen: set[tuple[int, str]] = set()
    out: list[Finding] = []
    for number, rule in located:
        if (number, rule.kind) in seen:
            continue  # one finding per kind per line keeps error messages readable
        seen.add((number, rule.kind))
        excerpt = _excerpt(lines.redacted(number), rule)
        out.append(Finding(number, rule.kind, rule.category, rule.label, excerpt))
    return out


def _scan(text: str, allow: frozenset[str], *, secrets: bool, injection: bool) -> list[Finding]:
    flagged = injection_lines(text) if injection else {}
    if not secrets and not flagged:
        return []
    # Secret hits are needed even for injection-only scans: excerpts must be redacted.
    lines = _Lines(text, secret_hits(text, allow))
    found: list[tuple[int, Rule]] = []
    if secrets:
        found += [(lines.number_of(h.start), h.rule) for h in lines.hits]
    found += flagged.items()
    return _findings(lines, sorted(found, key=lambda pair: pair[0]))


def scan_secrets(text: str, allow_emails: Iterable[str] = ()) -> list[Finding]:
    """Secret and PII findings, by line. `allow_emails` are addresses that may appear."""
    return _scan(text, allowed_emails(allow_emails), secrets=True, injection=False)


def scan_injection(text: str) -> list[Finding]:
    """Prompt-injection findings: at most one per line, by line."""
    return _scan(text, frozenset(), secrets=False, injection=True)


def scan_text(text: str, *, allow_emails: Iterable[str] = ()) -> list[Finding]:
    """Every finding (secrets, PII, injection, invisible and control characters), by line."""
    found = _scan(text, allowed_emails(allow_emails), secrets=True, injection=True)
    if has_invisible(text):
        found = sorted([*found, *scan_invisible(text)], key=lambda f: f.line)
    return found
