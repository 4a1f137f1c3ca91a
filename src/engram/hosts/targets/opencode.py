"""OpenCode: AGENTS.md and `mcp.engram` in opencode.json(c) (whichever exists, SPEC order)."""

from engram.hosts.targets import Mcp, Scope, Target

TARGET = Target(
    name="opencode",
    workspace=Scope(
        instructions="AGENTS.md",
        mcp=Mcp("opencode", ("opencode.json", "opencode.jsonc"), keys=("mcp",)),
        gate="opencode",
    ),
    global_=Scope(
        instructions=".config/opencode/AGENTS.md",
        mcp=Mcp("opencode", (".config/opencode/opencode.jsonc", ".config/opencode/opencode.json"),
                keys=("mcp",)),
        gate="opencode",
    ),
)
