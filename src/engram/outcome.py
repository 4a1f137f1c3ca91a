"""The result of every core operation: human text plus the versioned JSON envelope.

`engram <cmd> --json` prints `Outcome.envelope()`; the MCP server puts the same envelope in
`structuredContent` and `text` in `content[0].text`. Expected failures are outcomes with
`ok=False`, not exceptions.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

CONTRACT_VERSION = "1"
Level = Literal["info", "warn", "error"]


@dataclass(frozen=True)
class Diagnostic:
    code: str
    level: Level
    message: str

    def as_dict(self) -> dict[str, str]:
        return {"code": self.code, "level": self.level, "message": self.message}


@dataclass
class Outcome:
    text: str
    data: dict[str, Any] = field(default_factory=dict)
    diagnostics: list[Diagnostic] = field(default_factory=list)
    ok: bool = True
    exit_code: int = 0
    # Errors raised as exceptions print on stderr; reports (even failing ones) on stdout.
    to_stderr: bool = False

    def envelope(self) -> dict[str, Any]:
        return {
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
