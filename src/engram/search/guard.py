"""The guarded read (docs/reading.md): a memory is printed only if it is exactly what a human
approved.

A file whose SHA-256 is missing from `memory.hashes.json` or differs from it was changed outside
the approval path; a file that now holds a secret or an injection line must not reach an agent's
context either. Such a file is skipped with `SKIPPED <file>: <reason> (review it, then run
engram rehash)`. The content scanner is a parameter (`engram.safety.scan_text` in production) so
this module stays pure: it gets bytes and hashes, it never opens files.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Mapping, Sequence
from typing import NamedTuple

Scanner = Callable[[str], Sequence[object]]
FIX = "review it, then run engram rehash"
REASON_MAX = 240
NOTE_FIX = "engram notes prune removes it"


class Skip(NamedTuple):
    """A memory file that the guard refused to print."""

    file: str
    reason: str
    fix: str = FIX

    @property
    def name(self) -> str:
        """The file as printed (`shown_name`): its name is text nobody reviewed."""
        return shown_name(self.file)

    @property
    def shown_reason(self) -> str:
        from engram.safety import printable

        return printable(self.reason, REASON_MAX)

    @property
    def line(self) -> str:
        return f"SKIPPED {self.name}: {self.shown_reason} ({self.fix})"


def shown_name(file: str) -> str:
    """`engram.safety.shown_name`, imported on first use (only skipped files need it)."""
    from engram.safety import shown_name as shown

    return shown(file)


def sha256_hex(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def check(rel_path: str, data: bytes, hashes: Mapping[str, str],
          scan: Scanner | None = None, *, display: str | None = None,
          sha: str | None = None) -> Skip | None:
    """Why `data` (the bytes of `rel_path`, whose SHA-256 the caller may already have) must not
    be printed, or None when it may."""
    shown = display or rel_path
    expected = hashes.get(rel_path)
    if expected is None:
        return Skip(shown, "no approved hash in memory.hashes.json")
    if expected.lower() != (sha or sha256_hex(data)):
        return Skip(shown, "changed since it was approved (hash mismatch)")
    if scan is not None:
        findings = scan(data.decode("utf-8", errors="replace"))
        if findings:
            return Skip(shown, describe(findings[0]))
    return None


def describe(finding: object) -> str:
    """Name what the scanner found without ever repeating the matched text."""
    kind = f"{getattr(finding, 'category', '')} {getattr(finding, 'kind', '')}"
    rule = str(getattr(finding, "label", "") or getattr(finding, "rule", "") or "")
    line = getattr(finding, "line", None)
    what = "an injection line" if "inject" in f"{kind} {rule}".lower() else "a secret or PII"
    if getattr(finding, "category", "") == "control":
        what = "an invisible or control character"
    where = f" at line {line}" if isinstance(line, int) else ""
    label = f" ({rule})" if rule else ""
    return f"contains {what}{where}{label}"
