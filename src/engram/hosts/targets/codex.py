"""Codex: AGENTS.md; the server lives only in the managed block of ~/.codex/config.toml."""

from engram.hosts.targets import Mcp, Scope, Target

TARGET = Target(
    name="codex",
    workspace=Scope(
        instructions="AGENTS.md",
        hint="Codex reads MCP servers only from ~/.codex/config.toml: "
             "run `engram link --global codex` to register the server",
    ),
    global_=Scope(
        instructions=".codex/AGENTS.md",
        mcp=Mcp("codex", (".codex/config.toml",)),
    ),
)
