"""How hosts launch Engram: the command form, who owns an `engram` entry, and re-pinning.

Which file the command goes into decides its form (docs/hosts.md "The launch command"):

- a *shared* file, one a project commits (`.mcp.json`, `.gemini/settings.json`, `opencode.json`,
  `.cursor/mcp.json`, Claude's `--team` settings): the bare `engram-mcp`, which every teammate's
  host finds on their own PATH (issue #28: an absolute path there breaks for everyone else);
- a *personal* file (user scope, `.claude/settings.local.json`), or `--launcher path`: a host
  starts the server from its own environment, often not the shell that ran `link`, so the
  command must start the installation that ran `link` (issue #19):
  - the absolute path of the `engram-mcp` that `PATH` finds when it is this installation's and
    does not live in an activated virtualenv (pipx / `uv tool` shims, a user or system install):
    a host started from a desktop launcher or with a bare PATH still starts it, and the shim
    survives `pipx upgrade`;
  - the absolute path of this installation's `engram-mcp` otherwise (a venv, a PATH that finds
    another copy or none);
- the bare `engram-mcp` anywhere with `--launcher name`;
- the pinned `uvx --from engram-protocol==<installed version> engram-mcp` with `--launcher uvx`,
  or when Engram itself runs under `uvx` (unless `--launcher name` or `path` says otherwise).

The same rule gives the hook command (`engram agent-hook --host claude`). An `engram` entry is
Engram's when its command is `engram-mcp` (bare or a path), the `uvx` form, or the TypeScript
tool's `npx … @the-long-ride/engram… engram-mcp` form; anything else is the user's and changes
only with `--force`. This module computes entries as plain values; it does not write files.
"""

from __future__ import annotations

import os
import shutil
import sys
import sysconfig
from dataclasses import dataclass
from pathlib import Path, PurePath
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


@dataclass(frozen=True)
class Install:
    """Where the running Engram lives."""

    scripts: Path | None  # the directory holding its console scripts (engram, engram-mcp)
    isolated: bool  # a virtualenv: its scripts are on PATH only while it is activated
    under_uvx: bool  # an ephemeral `uvx` environment: gone after the run


def this_install() -> Install:
    """The running interpreter's installation (tests replace this function)."""
    candidates = [Path(sys.executable).parent, Path(sysconfig.get_path("scripts"))]
    user_scheme = f"{os.name}_user"
    if user_scheme in sysconfig.get_scheme_names():
        candidates.append(Path(sysconfig.get_path("scripts", user_scheme)))
    scripts = next((d for d in candidates if _script(d, SERVER) is not None), None)
    return Install(scripts, sys.prefix != sys.base_prefix, _in_uv_cache(Path(sys.prefix)))


def _in_uv_cache(prefix: Path) -> bool:
    """`uvx` runs tools from environments in uv's cache (`archive-v0/…`, `environments-v2/…`);
    `uv tool install` puts them under `…/uv/tools/`, which is an ordinary installation."""
    return any(p.startswith(("archive-v", "environments-v")) for p in prefix.parts)


def _script(directory: Path, program: str) -> Path | None:
    for name in (program, program + ".exe"):
        candidate = directory / name
        if candidate.is_file() and os.access(candidate, os.X_OK):
            return candidate
    return None


def uvx_launch(program: str = SERVER) -> Launch:
    return Launch("uvx", ("--from", f"{PACKAGE}=={installed_version()}", program))


LAUNCHERS = ("auto", "name", "path", "uvx")


def launch_for(path_env: str, program: str = SERVER, launcher: str = "auto",
               shared: bool = False) -> Launch:
    """The command a host config gets for `program` (module doc): `shared` for a file the
    project commits, where `auto` means the bare name every teammate's PATH finds."""
    install = this_install()
    if launcher == "uvx" or (install.under_uvx and launcher == "auto"):
        return uvx_launch(program)
    if launcher == "name" or (launcher == "auto" and shared):
        return Launch(program, ())
    own = _script(install.scripts, program) if install.scripts is not None else None
    found = shutil.which(program, path=path_env or os.defpath)
    if own is None:
        return Launch(program, ())  # running from a source tree: the PATH copy is all there is
    if found is not None and _same(Path(found), own) and not (
            install.isolated and Path(found).parent == own.parent):
        return Launch(str(Path(found).absolute()), ())  # the shim: starts without PATH
    return Launch(str(own), ())


def _same(a: Path, b: Path) -> bool:
    try:
        return a.samefile(b)
    except OSError:
        return False


def argv_of(entry: Any) -> list[str]:
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
    argv = argv_of(entry)
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
    argv = argv_of(entry)
    for i, token in enumerate(argv):
        if _is_server(token, program):
            return argv[i + 1:]
    return []


def pinned_version(entry: Any) -> str | None:
    """The version an entry is pinned to (uvx or npx form), None for a bare command."""
    for token in argv_of(entry):
        for marker in (f"{PACKAGE}==", f"{TS_PACKAGE}@"):
            if marker in token:
                return token.split(marker, 1)[1] or None
    return None


def is_typescript(entry: Any) -> bool:
    return any(TS_PACKAGE in t for t in argv_of(entry))


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
    """OpenCode's local-server shape: the whole argv in `command` (docs/hosts.md
    "What each link writes")."""
    entry: dict[str, Any] = {"type": "local", "command": [], "args": [], "enabled": True}
    entry.update(old or {})
    entry["command"] = launch.argv(flags)
    entry.setdefault("args", [])
    return entry


def is_uvx(entry: Any) -> bool:
    argv = argv_of(entry)
    return bool(argv) and PurePath(argv[0]).name == "uvx"


def kept_launch(entry: Any, wanted: Launch, program: str = SERVER) -> Launch:
    """What a re-pin (upgrade, automatic re-pin) writes: an absolute path that still starts is
    kept (the user's or an earlier link's choice); anything else gets `wanted`."""
    argv = argv_of(entry)
    if wanted.command != "uvx" and argv and os.sep in argv[0] and _is_server(argv[0], program) \
            and os.access(argv[0], os.X_OK):
        return Launch(argv[0], ())
    return wanted
