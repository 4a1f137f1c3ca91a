"""Claude Code: CLAUDE.md, `.mcp.json`, the `/engram` command and SessionStart/prompt hooks."""

from engram.hosts.targets import Mcp, Scope, Target

TARGET = Target(
    name="claude",
    workspace=Scope(
        instructions="CLAUDE.md",
        mcp=Mcp("json", (".mcp.json",), claude_reads=True),
        command_file=".claude/commands/engram.md",
        hooks_file=".claude/settings.local.json",
        team_hooks_file=".claude/settings.json",
        gate="claude",
    ),
    # Claude keeps user-scope servers in ~/.claude.json, which it owns: we print its command.
    global_=Scope(
        instructions=".claude/CLAUDE.md",
        mcp=Mcp("print", claude_reads=True),
        command_file=".claude/commands/engram.md",
        hooks_file=".claude/settings.json",
        gate="claude",
    ),
)
