"""Gemini CLI: GEMINI.md, `mcpServers.engram` in `.gemini/settings.json`, a user policy file."""

from engram.hosts.gates import GEMINI_POLICY
from engram.hosts.targets import Mcp, Scope, Target

TARGET = Target(
    name="gemini",
    workspace=Scope(
        instructions="GEMINI.md", mcp=Mcp("json", (".gemini/settings.json",)),
        # Gemini CLI 0.61 ships project policies (.gemini/policies) switched off.
        gate_hint="Gemini CLI ignores project policy files: run `engram link --global gemini` "
                  f"(writes ~/{GEMINI_POLICY}) so engram_commit asks and the read-only tools "
                  "run, also in headless `gemini -p`",
    ),
    global_=Scope(instructions=".gemini/GEMINI.md", mcp=Mcp("json", (".gemini/settings.json",)),
                  gate="gemini-policy"),
)
