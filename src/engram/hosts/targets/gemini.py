"""Gemini CLI: GEMINI.md and `mcpServers.engram` in `.gemini/settings.json`."""

from engram.hosts.targets import Mcp, Scope, Target

TARGET = Target(
    name="gemini",
    workspace=Scope(instructions="GEMINI.md", mcp=Mcp("json", (".gemini/settings.json",))),
    global_=Scope(instructions=".gemini/GEMINI.md", mcp=Mcp("json", (".gemini/settings.json",))),
)
