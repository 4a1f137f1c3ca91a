"""May `engram doctor` start a launch command it found in a host config? (docs/safety.md)

Host configs in the project (`.mcp.json`, `.cursor/mcp.json`, `opencode.json`, …) are files the
repository ships and an agent can write. An entry counts as Engram's when its program is *named*
`engram-mcp`, which says nothing about what the program is: starting it to see that it answers
`initialize` would run whatever the repository put there. So doctor starts only

- a program named `engram-mcp` that lies outside the project and the git work tree around it
  (after PATH lookup and symlinks; a relative path or a relative PATH entry resolves inside
  whatever folder a host starts in, so it is never started), and
- `uvx` (outside the repository too) only in the exact pinned form `engram link` writes:
  `uvx --from engram-protocol==<version> engram-mcp [flags]`. Any other uv option can name
  another package, index or source to install and run. (uv's tool commands ignore the
  project's `uv.toml` and `pyproject.toml`.)

Everything else is reported (`host.untrusted_command`), never run. Pure apart from resolving
paths.
"""

from __future__ import annotations

import re
from pathlib import Path, PurePath

from engram.hosts import command
from engram.hosts.command import PACKAGE, SERVER

_PIN = re.compile(rf"{re.escape(PACKAGE)}==[0-9][0-9A-Za-z.+!-]{{0,40}}")
_PROGRAMS = (SERVER, SERVER + ".exe")


def refusal(argv: list[str], found: str, project: Path, home: Path) -> str:
    """Why doctor must not start `argv` (whose program PATH lookup found at `found`), or ""."""
    head = argv[0]
    if PurePath(head).name != head and not PurePath(head).is_absolute():
        return "its program is a relative path, which resolves inside the folder a host " \
               "starts in"
    if not PurePath(found).is_absolute():
        return "PATH finds its program through a relative entry, which resolves inside the " \
               "folder a host starts in"
    real = Path(found).resolve()
    if real == _own_server():
        return ""  # the running installation's own script: the user already runs its code
    for tree in _trees(project, home):
        if real.is_relative_to(tree):
            return "its program lies inside this repository, which chooses what it runs"
    name = PurePath(head).name
    if name in ("uvx", "uvx.exe"):
        rest = argv[1:]
        if len(rest) < 3 or rest[0] != "--from" or not _PIN.fullmatch(rest[1]) \
                or PurePath(rest[2]).name not in _PROGRAMS:
            return "uvx options other than the pinned `--from engram-protocol==<version> " \
                   "engram-mcp` can install and run another package"
        return ""
    if name not in _PROGRAMS:
        return "its program is not engram-mcp"
    return ""


def _own_server() -> Path | None:
    scripts = command.this_install().scripts
    return (scripts / SERVER).resolve() if scripts is not None else None


def _trees(project: Path, home: Path) -> list[Path]:
    """The project and the git work tree around it (where a `.git` is found going up), unless
    that tree holds the home folder (a dotfiles repository: the user's own programs live there)."""
    real = project.resolve()
    out = [real]
    user = home.resolve()
    for folder in real.parents:
        if (folder / ".git").exists():
            if not user.is_relative_to(folder):
                out.append(folder)
            break
    return out
