"""Windsurf: an always-on rule file; MCP only in the user-level mcp_config.json."""

from engram.hosts.targets import Mcp, Scope, Target
from engram.hosts.texts import WINDSURF_HEADER

TARGET = Target(
    name="windsurf",
    workspace=Scope(
        instructions=".windsurf/rules/engram.md",
        header=WINDSURF_HEADER,
        hint="Windsurf documents only a user-level MCP config: "
             "run `engram link --global windsurf` to register the server",
    ),
    global_=Scope(
        instructions=".codeium/windsurf/memories/global_rules.md",
        mcp=Mcp("json", (".codeium/windsurf/mcp_config.json",)),
    ),
)
