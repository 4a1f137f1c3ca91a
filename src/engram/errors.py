"""The one exception tree of Engram.

Expected outcomes (a deferred candidate, an already-linked host) are values, not exceptions.
Exceptions are for broken invariants, bad input and I/O, and every one carries a stable `code`
and a `hint` that tells the user how to fix it. Only the CLI maps them to exit codes and only
the MCP server maps them to JSON-RPC codes or `isError` results.

    EngramError                      code            exit
    ├── UsageError                   usage           2   bad flags or arguments
    │   ├── InvalidIdError           id.invalid      2   an id that could escape a root
    │   └── ConfigValueError         config.range    2   a config key or value out of range
    ├── NotFoundError                not_found       1   no memory / proposal / workspace
    ├── InvalidMemoryError           memory.invalid  1   unparseable file (file, line, reason)
    ├── UnsafeContentError           safety.*        1   secret, PII or injection line in a write
    ├── ApprovalError                approval.*      1   token unknown, expired, used, declined
    ├── ApprovalNeeded               approval.needed 3   a write that waits for a human answer
    ├── IntegrityError               integrity.*     4   hashes disagree with files
    ├── HostConfigError              host.*          1   a host config we refuse to rewrite
    └── StorageError                 storage.*       1   lock timeout, read-only root, disk full
"""

from __future__ import annotations

EXIT_OK = 0
EXIT_ERROR = 1
EXIT_USAGE = 2
EXIT_APPROVAL_NEEDED = 3
EXIT_INTEGRITY = 4


class EngramError(Exception):
    """Base class: a message for humans, a stable code for machines, a fix hint."""

    code: str = "error"
    exit_code: int = EXIT_ERROR

    def __init__(self, message: str, *, hint: str = "", code: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint
        if code is not None:
            self.code = code

    def __str__(self) -> str:
        return f"{self.message} ({self.hint})" if self.hint else self.message


class UsageError(EngramError):
    code = "usage"
    exit_code = EXIT_USAGE


class InvalidIdError(UsageError):
    code = "id.invalid"


class ConfigValueError(UsageError):
    code = "config.range"


class NotFoundError(EngramError):
    code = "not_found"


class InvalidMemoryError(EngramError):
    """A memory file that cannot be parsed; never fatal for commands that list memories."""

    code = "memory.invalid"

    def __init__(self, file: str, line: int, reason: str) -> None:
        super().__init__(
            f"{file}:{line}: {reason}",
            hint="fix the file by hand, then run `engram rehash` to re-approve it",
        )
        self.file = file
        self.line = line
        self.reason = reason


class UnsafeContentError(EngramError):
    code = "safety.blocked"


class ApprovalError(EngramError):
    code = "approval.invalid"


class ApprovalNeeded(EngramError):
    code = "approval.needed"
    exit_code = EXIT_APPROVAL_NEEDED


class IntegrityError(EngramError):
    code = "integrity.mismatch"
    exit_code = EXIT_INTEGRITY


class HostConfigError(EngramError):
    code = "host.config"


class StorageError(EngramError):
    code = "storage.error"


class VectorTableError(EngramError):
    """The semantic extra's word-vector table is missing, unreadable or not a table; routing
    then stays lexical (search/semantic.py) and `engram doctor` names the fix."""

    code = "semantic.table"
