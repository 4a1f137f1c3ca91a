"""One doctor finding: `{code, level: ok|warn|error, message, remediation}`
(docs/hosts.md "Doctor")."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Level = Literal["ok", "warn", "error"]


@dataclass(frozen=True)
class Finding:
    code: str
    level: Level
    message: str
    remediation: str = ""

    def as_dict(self) -> dict[str, str]:
        return {"code": self.code, "level": self.level, "message": self.message,
                "remediation": self.remediation}
