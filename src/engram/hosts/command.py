"""How hosts launch Engram: the command form, who owns an `engram` entry, and re-pinning.

The server command is `engram-mcp` when it is on PATH, else the pinned form
`uvx --from engram-protocol==<installed version> engram-mcp` (SPEC §11.1). An `engram` entry is
Engram's when its command is `engram-mcp` (bare or a path), the `uvx` form, or the TypeScript
tool's `npx … @the-long-ride/engram… engram-mcp` form; anything else is the user's and changes
only with `--force`. This module computes entries as plain values; it does not read or write
files.
"""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass
from pathlib import PurePath
from typing import Any

import engram

SERVER = "engram-mcp"
PACKAGE = "engram-protocol"
TS_PACKAGE = "@the-long-ride/engram"
ALWAYS_LOAD = "--always-load"


def installed_version() -> str:
    """Read at call time so tests (and a package update) see the current value."""
    return engram.__version__


@dataclass(frozen=True)
class Launch:
    """The command and the arguments that precede the server's own flags."""

    command: str
    prefix: tuple[str, ...]

    def argv(self, flags: list[str]) -> list[str]:
        return [self.command, *self.prefix, *flags]


def launch_for(path_env: str, program: str = SERVER) -> Launch:
    """`engram-mcp` when it is on PATH, else the uvx form pinned to the installed version."""
    if shutil.which(program, path=path_env or os.defpath):
        return Launch(program, ())
    return Launch("uvx", ("--from", f"{PACKAGE}=={installed_version()}", program))


def _argv_of(entry: Any) -> list[str]:
    """The full argv of an entry in any of the supported shapes (std or OpenCode)."""
    if not isinstance(entry, dict):
        return []
    cmd = entry.get("command")
    args = entry.get("args")
    parts: list[str] = []
    if isinstance(cmd, str):
        parts.append(cmd)
    elif isinstance(cmd, list):
        parts.extend(str(c) for c in cmd)
    if isinstance(args, list):
        parts.extend(str(a) for a in args)
    return parts


def _is_server(token: str, program: str) -> bool:
    return PurePath(token).name == program


def is_engrams(entry: Any, program: str = SERVER) -> bool:
    """True when an `engram` entry launches Engram (ours, pinned, or the TypeScript tool)."""
    argv = _argv_of(entry)
    if not argv:
        return False
    head = PurePath(argv[0]).name
    if _is_server(argv[0], program):
        return True
    rest = argv[1:]
    has_server = any(_is_server(a, program) for a in rest)
    if head == "uvx":
        return has_server and any(a.startswith(PACKAGE) for a in rest)
    if head == "npx":
        return has_server and any(TS_PACKAGE in a for a in rest)
    return False


def flags_of(entry: Any, program: str = SERVER) -> list[str]:
    """The server's own flags: everything after the `engram-mcp` token."""
    argv = _argv_of(entry)
    for i, token in enumerate(argv):
        if _is_server(token, program):
            return argv[i + 1:]
    return []


def pinned_version(entry: Any) -> str | None:
    """The version an entry is pinned to (uvx or npx form), None for a bare command."""
    for token in _argv_of(entry):
        for marker in (f"{PACKAGE}==", f"{TS_PACKAGE}@"):
            if marker in token:
                return token.split(marker, 1)[1] or None
    return None


def is_typescript(entry: Any) -> bool:
    return any(TS_PACKAGE in t for t in _argv_of(entry))


def with_always_load(flags: list[str], wanted: bool) -> list[str]:
    rest = [f for f in flags if f != ALWAYS_LOAD]
    return [ALWAYS_LOAD, *rest] if wanted else rest


def std_entry(
    launch: Launch, flags: list[str], old: dict[str, Any] | None = None
) -> dict[str, Any]:
    """`{"command": …, "args": […]}`, keeping any other keys of an existing entry."""
    entry = dict(old or {})
    entry["command"] = launch.command
    entry["args"] = [*launch.prefix, *flags]
    return entry


def opencode_entry(
    launch: Launch, flags: list[str], old: dict[str, Any] | None = None
) -> dict[str, Any]:
    """OpenCode's local-server shape: the whole argv in `command` (SPEC §11.1 row)."""
    entry: dict[str, Any] = {"type": "local", "command": [], "args": [], "enabled": True}
    entry.update(old or {})
    entry["command"] = launch.argv(flags)
    entry.setdefault("args", [])
    return entry


def current_launch_of(entry: Any, path_env: str, program: str = SERVER) -> Launch:
    """What a re-pin should launch: a still-existing absolute path is the user's choice."""
    argv = _argv_of(entry)
    if argv and os.sep in argv[0] and _is_server(argv[0], program) and os.access(argv[0], os.X_OK):
        return Launch(argv[0], ())
    return launch_for(path_env, program)
