"""Notes `link` prints only when they are true: the human's next step and the user-level hints.

- A project link to Claude Code says the server is "Pending approval" until it is approved; to
  Gemini CLI, that it is "Disabled" until the folder is trusted (read from the hosts' own state,
  `hosts/hoststate.py`).
- A project link to a host that reads MCP servers only from user-level files (Codex,
  Antigravity, Windsurf) points at `--global` only while the user-level config lacks Engram.
- Claude's user-scope server is registered by a printed `claude mcp add` command, printed only
  when `~/.claude.json` does not already run that command.
- After a project link, one line says which files to commit and which stay personal; a shared
  entry's bare `engram-mcp` is checked against this machine's PATH (missing, inside the
  repository, or only an activated virtualenv).
"""

from __future__ import annotations

import os
import shlex
import shutil
from pathlib import Path

from engram.errors import HostConfigError
from engram.hosts import blocks, command, hoststate, jsonc, runnable
from engram.hosts.files import Bench
from engram.hosts.targets import Target
from engram.workspace import Roots


def registered_for_user(roots: Roots, target: Target, bench: Bench) -> bool:
    """The user-level config already holds Engram's server (so the `--global` hint is moot)."""
    mcp = target.global_.mcp
    if mcp is None:
        return False
    for name in mcp.files:
        text = bench.read(roots.env.home / name)
        if not text:
            continue
        try:
            if mcp.style == "codex":
                entry = blocks.codex_entry(blocks.toml_loads(text, name))
            else:
                node = jsonc.find(jsonc.parse(text, name), [*mcp.keys, "engram"])
                entry = None if node is None else node.value
        except HostConfigError:
            continue
        if entry is not None and command.is_engrams(entry):
            return True
    return False


def after_link(roots: Roots, host: str, skip: bool) -> list[str]:
    """The human step a project link still needs, only while it is still needed."""
    if skip:
        return []
    home, project = roots.env.home, roots.project
    if host == "claude" and hoststate.claude_project_approval(home, project) != "approved":
        return ["Claude Code shows the project's engram server as \"Pending approval\": start "
                "`claude` here and approve it (or approve it under /mcp)"]
    if host == "gemini" and hoststate.gemini_trust(home, project) not in ("trusted", "off"):
        return ["Gemini CLI shows engram as \"Disabled\" until you trust this folder: start "
                "`gemini` here and choose \"Trust folder\""]
    return []


def user_server_argv(roots: Roots, launcher: str = "auto", always_load: bool = False) -> list[str]:
    """The argv Claude's user-scope server should run (`claude mcp add … -- <argv>`)."""
    launch = command.launch_for(roots.env.path, launcher=launcher)
    return launch.argv(command.with_always_load([], always_load))


def print_user_server(roots: Roots, argv: list[str]) -> list[str]:
    current = hoststate.claude_user_entry(roots.env.home)
    if current is not None and command.is_engrams(current) and command.argv_of(current) == argv:
        return []  # already registered with this command: nothing to tell
    add = "claude mcp add --scope user engram -- " + " ".join(shlex.quote(a) for a in argv)
    if current is not None and command.is_engrams(current):
        return ["update the user-scope server with: "
                f"claude mcp remove --scope user engram && {add}"]
    return [f"register the server for your user with: {add}"]


def machine_path(bench: Bench, path: Path, keys: list[str]) -> str | None:
    """The absolute program a project config now runs (a path only this machine has), or None."""
    text = bench.read(path)
    try:
        node = jsonc.find(jsonc.parse(text or "{}", str(path)), [*keys, "engram"])
    except HostConfigError:
        return None
    argv = command.argv_of(None if node is None else node.value)
    if not argv or not Path(argv[0]).is_absolute():
        return None
    return argv[0]


def personal_path(path: Path, program: str, ignored: bool) -> str:
    where = "git-ignored" if ignored else "keep it out of git"
    return (f"{path.name} runs {program}, a path on this machine ({where}); for a file the "
            "team shares, link without --launcher path: the bare engram-mcp")


def shared_launch(roots: Roots, launch: command.Launch) -> list[str]:
    """A shared file runs the bare `engram-mcp`: say when this machine's hosts cannot start it,
    or would start a copy the repository ships (a relative or in-repository PATH entry)."""
    if launch.command != command.SERVER:
        return []
    found = shutil.which(command.SERVER, path=roots.env.path or os.defpath)
    if found is None:
        return [f"engram-mcp is not on your PATH, so hosts here cannot start the shared entry: "
                f"install Engram as a tool (`pipx install {command.PACKAGE}` or `uv tool "
                "install`), or link with --launcher path (a personal file, git-ignored)"]
    if runnable.refusal([command.SERVER], found, roots.project, roots.env.home):
        return [f"your PATH finds engram-mcp at {found}, inside this repository: a host started "
                "here would run the repository's program, not Engram; take that folder off PATH"]
    if command.launch_for(roots.env.path).command != str(Path(found).absolute()):
        return [f"your PATH finds engram-mcp at {found} (an activated virtualenv or another "
                "copy): a host started from another shell may not; install Engram as a tool "
                f"(`pipx install {command.PACKAGE}`) so every shell finds it"]
    return []


def what_to_commit(project: Path, shared: list[Path], personal: list[Path],
                   ignored: set[Path]) -> str:
    """The one line after a project link: which of its files go into git."""
    def names(paths: list[Path]) -> str:
        return ", ".join(p.relative_to(project).as_posix() for p in paths)
    line = f"for git: commit {names(shared)}" if shared else "for git: nothing to commit"
    kept = [p for p in personal if p in ignored]
    loose = [p for p in personal if p not in ignored]
    line += f"; {names(kept)} stay yours (git-ignored)" if kept else ""
    line += f"; keep {names(loose)} out of git (personal)" if loose else ""
    return line
