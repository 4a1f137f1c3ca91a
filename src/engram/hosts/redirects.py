"""Which parts of a project host entry point Engram at roots of the file's choosing.

A project's host files (`.mcp.json`, `opencode.json`, `.claude/settings.json` hooks, …) are the
repository's. `--workspace <dir>` or an `env` with `ENGRAM_WORKSPACE`, `ENGRAM_GLOBAL_DIR` or
`ENGRAM_CONFIG_DIR` makes the server or hook read another root, approved by that root's own
`memory.hashes.json`; aimed at a git-ignored folder, no review ever shows its files. `engram
doctor` reports them (`host.redirected_roots`); values are printed as plain tokens only. Pure.
"""

from __future__ import annotations

import shlex
from typing import Any

from engram.hosts import command
from engram.safety.names import shown_token

ROOT_VARS = ("ENGRAM_WORKSPACE", "ENGRAM_GLOBAL_DIR", "ENGRAM_CONFIG_DIR")
FLAG = "--workspace"


def _in_argv(argv: list[str]) -> list[str]:
    out = []
    for i, token in enumerate(argv):
        if token == FLAG and i + 1 < len(argv):
            out.append(f"{FLAG} {shown_token(argv[i + 1])}")
        elif token.startswith(f"{FLAG}="):
            out.append(f"{FLAG}={shown_token(token.split('=', 1)[1])}")
        else:
            name, eq, value = token.partition("=")
            if eq and name in ROOT_VARS:  # `ENGRAM_WORKSPACE=dir engram …` in a shell command
                out.append(f"{name}={shown_token(value)}")
    return out


def of_entry(entry: Any) -> list[str]:
    """`--workspace …` and root variables an MCP entry passes (env, OpenCode's environment)."""
    out = _in_argv(command.argv_of(entry))
    for key in ("env", "environment"):
        env = entry.get(key) if isinstance(entry, dict) else None
        if isinstance(env, dict):
            out += [f"{k}={shown_token(str(v))}" for k, v in env.items() if k in ROOT_VARS]
    return out


def of_shell(cmd: str) -> list[str]:
    """The same in a hook's shell command line."""
    try:
        return _in_argv(shlex.split(cmd))
    except ValueError:
        return []
