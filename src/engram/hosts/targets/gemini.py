"""Gemini CLI: GEMINI.md, `mcpServers.engram` in `.gemini/settings.json`, a user policy file."""

from engram.hosts.gates import GEMINI_POLICY
from engram.hosts.targets import Mcp, Scope, Target

TARGET = Target(
    name="gemini",
    workspace=Scope(
        instructions="GEMINI.md", mcp=Mcp("json", (".gemini/settings.json",)),
        gate="gemini-settings",
        # Gemini CLI 0.61 ships project policies (.gemini/policies) switched off.
        gate_hint="`trust: true` or `--yolo` would still let engram_commit run unasked: "
                  f"`engram link --global gemini` writes ~/{GEMINI_POLICY}, whose ask rule "
                  "outranks both",
    ),
    global_=Scope(instructions=".gemini/GEMINI.md", mcp=Mcp("json", (".gemini/settings.json",)),
                  gate="gemini-policy"),
)
