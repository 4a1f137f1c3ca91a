"""The host table: one small module per agent host, each defining `TARGET`.

A target says, per scope, which instruction file holds the managed block, where the MCP
registration goes and in which shape, and Claude's extras (slash command, hooks). Workspace paths
are relative to the project, global paths relative to HOME. Adding a host is one module here plus
its fixtures; the link engine (`hosts/link.py`) reads only this data.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from typing import Literal

McpStyle = Literal["json", "opencode", "codex", "cursor-plugin", "print"]
# Where link sets the host's permission gate (hosts/gates.py): Claude's settings file (the hooks
# file), OpenCode's config and Gemini's project settings (the MCP file), Gemini's user policy.
Gate = Literal["claude", "opencode", "gemini-settings", "gemini-policy"]
NAMES = ("claude", "codex", "gemini", "antigravity", "cursor", "opencode", "windsurf")


@dataclass(frozen=True)
class Mcp:
    """Where and how the server is registered."""

    style: McpStyle
    files: tuple[str, ...] = ()  # candidates in order; the first existing wins, else the first
    keys: tuple[str, ...] = ("mcpServers",)
    claude_reads: bool = False  # Claude Code reads it: the only place --always-load may go


@dataclass(frozen=True)
class Scope:
    instructions: str
    header: str = ""  # front matter of an instruction file Engram owns (.mdc, windsurf rules)
    mcp: Mcp | None = None
    hint: str = ""  # printed when this scope has no MCP registration
    command_file: str | None = None  # Claude's /engram slash command
    hooks_file: str | None = None  # Claude's settings file for hooks (--team swaps it)
    team_hooks_file: str | None = None
    extra_files: tuple[str, ...] = field(default_factory=tuple)
    gate: Gate | None = None
    gate_hint: str = ""  # printed when this scope cannot hold the gate (and no link holds it)


@dataclass(frozen=True)
class Target:
    name: str
    workspace: Scope
    global_: Scope

    def scope(self, is_global: bool) -> Scope:
        return self.global_ if is_global else self.workspace


def get(name: str) -> Target:
    from engram.errors import UsageError

    if name not in NAMES:
        raise UsageError(f"unknown host {name!r}", hint=f"use one of: {', '.join(NAMES)}")
    module = importlib.import_module(f"engram.hosts.targets.{name}")
    target: Target = module.TARGET
    return target


def all_targets() -> list[Target]:
    return [get(n) for n in NAMES]
