"""Write-time checks (docs/safety.md) for proposals: the one seam between the write path and
`engram.safety`.

Every text field of every candidate is scanned before a preview exists; one finding blocks the
whole proposal with the candidate, field, line and kind (never the secret itself). Notes are
redacted and stripped of instruction-like lines instead. Target paths are checked to stay inside
their root. The scan rules themselves live in `engram.safety`; this module only applies them.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path

from engram.errors import UnsafeContentError
from engram.proposals.candidates import Candidate
from engram.safety import (
    PathEscape,
    contained_path,
    redact,
    scan_invisible,
    scan_text,
    strip_injection_lines,
)

_CONTROL_HINT = ("remove the invisible or control characters (a reviewer cannot see them: tag, "
                 "bidi, zero-width, terminal escapes), give text that is not UTF-8 as UTF-8 "
                 "(e.g. iconv -f latin1 -t utf-8), and propose again")


def candidate_fields(c: Candidate) -> list[tuple[str, str]]:
    fields = [("TEXT", c.text), ("CONTEXT", c.context)]
    fields += [(name.upper(), text) for name, text in sorted(c.variants.items())]
    fields += [("TRIGGERS", ", ".join(c.triggers)), ("TAGS", ", ".join(c.tags)),
               ("ANCHORS", ", ".join(c.anchors)), ("SOURCE_FILES", ", ".join(c.source_files))]
    return [(name, text) for name, text in fields if text]


def _other_fields(c: Candidate) -> list[tuple[str, str]]:
    """Fields that are not prose (ids, roles, levels): scanned for invisible characters only."""
    fields = [("ROLE", ", ".join(c.role)), ("DEPENDS_ON", ", ".join(c.depends_on)),
              ("UPDATE", c.update or ""), ("SUPERSEDES", c.supersedes or ""),
              ("LEVEL", c.level or ""), ("CONFIDENCE", c.confidence)]
    return [(name, text) for name, text in fields if text]


def check_note(text: str, objective: str | None) -> None:
    """A note may have its secrets redacted and its instruction lines dropped, but not its
    invisible characters: removing a bidi control or an escape changes what the text says."""
    problems = [f"{name} line {f.line}: {f.category} ({f.label})"
                for name, value in (("TEXT", text), ("OBJECTIVE", objective or ""))
                for f in scan_invisible(value)]
    if problems:
        raise UnsafeContentError("note blocked, nothing was saved:\n  " + "\n  ".join(problems),
                                 code="safety.control", hint=_CONTROL_HINT)


def check_candidates(candidates: Sequence[Candidate], *, allow_emails: Iterable[str] = ()) -> None:
    """Raise UnsafeContentError listing every finding of every candidate (nothing is written)."""
    allowed = tuple(e for e in allow_emails if e)
    problems: list[str] = []
    categories: set[str] = set()
    for c in candidates:
        for name, text in candidate_fields(c):
            for f in scan_text(text, allow_emails=allowed):
                categories.add(f.category)
                problems.append(f"candidate {c.number}, {name} line {f.line}: "
                                f"{f.category} ({f.label})")
        for name, text in _other_fields(c):
            for f in scan_invisible(text):
                categories.add(f.category)
                problems.append(f"candidate {c.number}, {name} line {f.line}: "
                                f"{f.category} ({f.label})")
    if problems:
        code = f"safety.{categories.pop()}" if len(categories) == 1 else "safety.blocked"
        raise UnsafeContentError(
            "proposal blocked, nothing was saved:\n  " + "\n  ".join(problems),
            code=code,
            hint=_CONTROL_HINT if code == "safety.control" else
            "remove the secret or personal data (or the instruction-like line) and propose "
            "again; never store credentials in memory",
        )


def prose_warnings(candidates: Sequence[Candidate]) -> list[str]:
    """A warning per field that names a credential and gives a value in prose (`password is
    hunter2`): not blocked (prose says "the key is to test early"), shown before approval.
    The value itself is never repeated."""
    from engram.safety.prose import prose_secrets

    out: list[str] = []
    for c in candidates:
        for name, text in (("TEXT", c.text), ("CONTEXT", c.context)):
            for s in prose_secrets(text or ""):
                line = text.count("\n", 0, s.start) + 1
                out.append(f"candidate {c.number}, {name} line {line}: a {s.name.lower()} "
                           "written in prose (value not shown); memories live in git: remove it "
                           "unless it is not a secret (it is kept out of the file name)")
    return out


def clean_note(text: str) -> tuple[str, int, int]:
    """Redact secrets/PII and drop instruction-like lines: (text, redacted, removed lines)."""
    stripped, removed = strip_injection_lines(text)
    redacted, count = redact(stripped)
    return redacted, count, removed


def check_path(root: Path, rel: str) -> Path:
    """The target of `rel`, guaranteed inside `root` (symlinks resolved), else an error."""
    try:
        return contained_path(root, rel)
    except PathEscape as exc:
        raise UnsafeContentError(f"refusing to write {rel!r}: {exc.reason}", code="safety.path",
                                 hint="memory files must stay inside the memory root") from exc
