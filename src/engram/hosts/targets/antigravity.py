"""Antigravity: GEMINI.md; its MCP config is user-level only (~/.gemini/antigravity/)."""

from engram.hosts.targets import Mcp, Scope, Target

TARGET = Target(
    name="antigravity",
    workspace=Scope(
        instructions="GEMINI.md",
        hint="Antigravity reads MCP servers only from ~/.gemini/antigravity/mcp_config.json: "
             "run `engram link --global antigravity` to register the server",
    ),
    global_=Scope(
        instructions=".gemini/GEMINI.md",
        mcp=Mcp("json", (".gemini/antigravity/mcp_config.json",)),
    ),
)
