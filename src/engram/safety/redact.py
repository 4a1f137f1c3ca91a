"""Rewriting text so it can be stored: secrets/PII become placeholders, injection lines go.

Owns `redact` and `strip_injection_lines`, used for working notes (docs/saving.md) where the text is
cleaned rather than refused. It does not decide what is sensitive (`engine.py`, `rules.py`).
"""

from __future__ import annotations

from collections.abc import Iterable

from engram.safety.engine import apply_hits, injection_lines, secret_hits
from engram.safety.scan import allowed_emails

# Replacing one span can, in contrived input, make a neighbouring fragment match a rule it did
# not match before; a few passes reach the fixpoint, which is what makes `redact` idempotent.
_MAX_PASSES = 4


def redact(text: str, *, allow_emails: Iterable[str] = ()) -> tuple[str, int]:
    """Replace every secret and PII span by `[REDACTED:<kind>]`; return the text and the count.

    Assignments keep their name (`password=[REDACTED:password]`) so the text still reads.
    Injection lines are left alone: see `strip_injection_lines`.
    """
    allow = allowed_emails(allow_emails)
    total = 0
    for _ in range(_MAX_PASSES):
        hits = secret_hits(text, allow)
        if not hits:
            break
        text = apply_hits(text, hits)
        total += len(hits)
    return text, total


def strip_injection_lines(text: str) -> tuple[str, int]:
    """Drop every line a prompt-injection rule flags; return the kept text and how many went."""
    flagged = injection_lines(text)
    if not flagged:
        return text, 0
    kept = [ln for no, ln in enumerate(text.split("\n"), start=1) if no not in flagged]
    return "\n".join(kept), len(flagged)
