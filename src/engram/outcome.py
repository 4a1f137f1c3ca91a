"""The result of every core operation: its text plus the versioned JSON envelope.

`engram <cmd> --json` prints `Outcome.envelope()`; the MCP server puts the same envelope in
`structuredContent` and `text` in `content[0].text`. The envelope carries `text` too, first:
Claude Code, Codex and VS Code hand the model only `JSON.stringify(structuredContent)`, Gemini
CLI and OpenCode only `content[0].text`, and the model needs the text either way.
`model_json` is that stringified form and `estimate_tokens` the one token estimator, so what a
model receives can be measured as it arrives. Expected failures are outcomes with `ok=False`,
not exceptions.

Value types on every command's path are NamedTuples or plain slotted classes, not dataclasses:
importing `dataclasses` (it pulls in `inspect`) and decorating each class cost a cold
`engram load` about a fifth of its wall time.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any, Literal, NamedTuple

CONTRACT_VERSION = "1"
Severity = Literal["info", "warn", "error"]


class Diagnostic(NamedTuple):
    code: str
    level: Severity
    message: str

    def as_dict(self) -> dict[str, str]:
        return {"code": self.code, "level": self.level, "message": self.message}


class Outcome:
    """Text for a human or agent, the envelope's data and diagnostics, and how to exit."""

    __slots__ = ("text", "data", "diagnostics", "ok", "exit_code", "to_stderr")

    def __init__(self, text: str, data: dict[str, Any] | None = None,
                 diagnostics: list[Diagnostic] | None = None, ok: bool = True,
                 exit_code: int = 0, to_stderr: bool = False) -> None:
        self.text = text
        self.data: dict[str, Any] = {} if data is None else data
        self.diagnostics: list[Diagnostic] = [] if diagnostics is None else diagnostics
        self.ok = ok
        self.exit_code = exit_code
        # Errors raised as exceptions print on stderr; reports (even failing ones) on stdout.
        self.to_stderr = to_stderr

    def __repr__(self) -> str:
        return (f"Outcome(ok={self.ok}, exit_code={self.exit_code}, text={self.text[:60]!r}, "
                f"data keys={sorted(self.data)})")

    def replace(self, **changes: Any) -> Outcome:
        """A copy with some fields changed (the MCP server amends what a core call returned)."""
        fields = {name: getattr(self, name) for name in self.__slots__}
        fields.update(changes)
        return Outcome(**fields)

    def envelope(self) -> dict[str, Any]:
        return {
            "text": self.text,
            "contract_version": CONTRACT_VERSION,
            "ok": self.ok,
            "data": self.data,
            "diagnostics": [d.as_dict() for d in self.diagnostics],
        }


def failure(code: str, message: str, *, hint: str = "", exit_code: int = 1) -> Outcome:
    text = f"error: {message}" + (f"\nfix: {hint}" if hint else "")
    detail = message + (f" ({hint})" if hint else "")
    return Outcome(text=text, data={}, ok=False, exit_code=exit_code, to_stderr=True,
                   diagnostics=[Diagnostic(code, "error", detail)])


def listed(items: Sequence[str], limit: int = 20) -> str:
    """Items a reply repeats from the input, comma-separated: the first `limit`, then how many
    more (a pasted log or 3,000 ids must not come back whole)."""
    shown = ", ".join(items[:limit])
    return shown if len(items) <= limit else f"{shown} and {len(items) - limit:,} more"


def estimate_tokens(text: str) -> int:
    """Engram's token estimate (docs/reading.md "engram load"): ceil(characters / 4)."""
    return math.ceil(len(text) / 4)


def model_json(envelope: Mapping[str, Any]) -> str:
    """The envelope as a host forwards `structuredContent` to the model: JavaScript's
    `JSON.stringify` (no spaces, non-ASCII kept, quotes, backslashes and controls escaped)."""
    import json

    return json.dumps(envelope, ensure_ascii=False, separators=(",", ":"))


def json_text_length(text: str) -> int:
    """Characters `text` takes inside a JSON string (escapes counted, quotes not)."""
    import json

    return len(json.dumps(text, ensure_ascii=False)) - 2


def terminal_safe(text: str) -> str:
    """`text` with every control or invisible character but newline and tab escaped. The last
    guard before a human's terminal: file names, hashes-file keys and other text nobody reviewed
    reach some outputs (`rehash` lists what it approves), and one ESC sequence there could move
    the cursor up and erase, or conceal, the very text the human is shown to review. Clean
    output (the usual case) is checked in C and never pays for the safety import."""
    if text.replace("\n", "").replace("\t", "").isprintable():
        return text
    from engram.safety import printable

    return printable(text, keep_lines=True)
