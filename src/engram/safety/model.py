"""The value types of the safety package: a scan `Rule` (pure data) and a `Finding`.

Owns the shape of a rule and of a finding and the one-line rendering of findings for error
messages. It does not own any pattern (see `rules.py`) nor any scanning (see `scan.py`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Literal

Category = Literal["secret", "pii", "injection", "control"]

# A validator sees the regex match and the caller's allowed e-mails (lower-cased) and says
# whether the match really is a finding; it is how checks a regex cannot express (Luhn, octet
# ranges, "this value is code, not a literal") stay out of the patterns.
Validator = Callable[["re.Match[str]", frozenset[str]], bool]


@dataclass(frozen=True, slots=True)
class Finding:
    """One problem on one line. `excerpt` is already redacted: it never echoes a secret."""

    line: int
    kind: str
    category: Category
    label: str
    excerpt: str


@dataclass(frozen=True, slots=True)
class Rule:
    """One scan rule: a table row in `rules.py`.

    `hints` are lower-case substrings, one of which occurs in every match (a cheap prefilter):
    the pattern only runs on lines that contain a hint; an empty tuple means "run everywhere"
    (right for patterns that start with a literal, which `re` already finds quickly). With
    `anchored`, every match *starts* at a hint, and the pattern is only tried at those places.
    `value_groups` name the regex groups holding the sensitive value (first one that matched
    wins); without them the whole match is the sensitive span.
    """

    kind: str
    category: Category
    label: str
    pattern: re.Pattern[str]
    placeholder: str = ""
    hints: tuple[str, ...] = ()
    value_groups: tuple[str, ...] = ()
    validate: Validator | None = None
    anchored: bool = False
    # Private keys span many lines: redaction extends the span to the END marker.
    multiline_block: bool = False

    @property
    def redaction(self) -> str:
        """The text that replaces the sensitive span, e.g. `[REDACTED:aws-access-key]`."""
        return f"[REDACTED:{self.placeholder}]"


def describe(findings: Iterable[Finding]) -> str:
    """One line per finding, e.g. `line 3: secret (AWS access key)`, for error messages."""
    return "\n".join(f"line {f.line}: {f.category} ({f.label})" for f in findings)
