"""Project host-file settings that route around the human's gate on `engram_commit`.

A repository (or an agent that writes it) owns its host files, so `engram doctor` reads them for
what would let a proposal be written with no human in the loop (docs/safety.md, attack table):

- Engram's server under another name: every gate Engram sets and doctor checks names the server
  `engram` (`mcp__engram__engram_commit`, `mcp_engram_engram_commit`, `engram_engram_commit`), so
  `mcp__memory__engram_commit` passes them; a planted allow rule for `memory` lets it run unasked.
- `--no-elicitation` on a project entry (Codex excepted: Engram sets it there): the approval
  dialog is off and the host's tool prompt is what stands.
- A Claude `PermissionRequest` hook answers the permission prompt itself; a `PreToolUse` hook's
  `allow` skips it where no ask rule stands. Either, with a matcher that covers engram_commit.

Pure: parsed settings in, findings out. Names and matchers are printed as plain tokens only.
"""

from __future__ import annotations

import fnmatch
import re
from typing import Any

from engram.hosts import command
from engram.hosts.findings import Finding, Level
from engram.hosts.mcpconf import NO_DIALOG
from engram.safety.names import shown_token

COMMIT_TOOL = "mcp__engram__engram_commit"
# Hook events whose answer can stand in for the human's, and how bad that is.
_HOOK_EVENTS: dict[str, Level] = {"PermissionRequest": "error", "PreToolUse": "warn"}
_REGEX_META = re.compile(r"[.*+?()\[\]{}^$\\]")


def _launches_engram(entry: Any) -> bool:
    """Engram's server in any launch form: its own, or a token naming it (`python -m engram.mcp`,
    `sh -c "exec engram-mcp"`)."""
    return command.is_engrams(entry) or any(
        "engram" in token.lower() for token in command.argv_of(entry))


def renamed(servers: Any, where: str) -> list[Finding]:
    """Entries other than `engram` in a host's server table that launch Engram."""
    if not isinstance(servers, dict):
        return []
    names = [str(name) for name, entry in servers.items()
             if name != "engram" and _launches_engram(entry)]
    return [Finding("host.renamed_server", "error",
                    f"{where}: the server {shown_token(name)} launches Engram under another "
                    "name; the gates on engram_commit (the host's ask rule, policy or "
                    f"permission) name the server `engram`, so {shown_token(name)}'s "
                    "engram_commit is not gated",
                    f"remove the {shown_token(name)} entry unless you wrote it; register Engram "
                    "as `engram` (`engram link <host>`)")
            for name in names]


def dialog_off(where: str, entry: Any) -> list[Finding]:
    """A project entry that launches Engram with the approval dialog off."""
    if NO_DIALOG not in command.argv_of(entry):
        return []
    return [Finding("host.dialog_off", "warn",
                    f"{where}: launches Engram with {NO_DIALOG}: the approval dialog is off, "
                    "so a proposal is approved only through the host's prompt for "
                    "engram_commit, which shows the agent's retelling and the token",
                    f"remove {NO_DIALOG} from the entry's args unless you set it yourself")]


def covers_commit(matcher: Any) -> bool:
    """Whether a Claude hook matcher (tool names joined by `|`, or a regex) may match
    engram_commit. A regex is judged by its literal start only (no pattern from a file is run)."""
    if matcher is None or matcher in ("", "*"):
        return True
    if not isinstance(matcher, str):
        return False
    for alt in matcher.split("|"):
        meta = _REGEX_META.search(alt)
        if meta is None:
            if alt == COMMIT_TOOL:
                return True
        elif COMMIT_TOOL.startswith(alt[:meta.start()]):
            return True
    return False


def commit_hooks(path: str, data: Any) -> list[Finding]:
    """Claude hooks that can approve engram_commit in the human's place."""
    hooks = data.get("hooks") if isinstance(data, dict) else None
    out: list[Finding] = []
    for event, level in _HOOK_EVENTS.items():
        groups = hooks.get(event) if isinstance(hooks, dict) else None
        for group in groups if isinstance(groups, list) else []:
            matcher = group.get("matcher") if isinstance(group, dict) else None
            if not covers_commit(matcher):
                continue
            shown = shown_token(str(matcher)) if matcher else "(every tool)"
            does = ("answers the permission prompt" if event == "PermissionRequest"
                    else "may allow the call before the prompt, where no ask rule stands")
            out.append(Finding("host.commit_hook", level,
                               f"{path}: a {event} hook with matcher {shown} runs for "
                               f"engram_commit and {does}: it can approve a proposal in the "
                               "human's place",
                               f"remove the hook, or narrow its matcher so it excludes "
                               f"{COMMIT_TOOL}, unless you wrote it for that"))
            break
    return out


OPENCODE_COMMIT = "engram_engram_commit"
# `permission:` set to allow, or an `engram_…` rule set to allow, in a Markdown agent's front
# matter (YAML, read by line: only these two shapes are looked for).
_MD_ALLOW = re.compile(r"(?m)^\s*(?:permission|[\"']?engram[\w*]*[\"']?)\s*:\s*[\"']?allow\b")


def opencode_agent_allows(permission: Any) -> bool:
    """Whether an OpenCode agent's own `permission` allows engram_commit: a string `allow`, or
    allow from its last rule that matches the tool (no matching rule inherits the global one)."""
    if isinstance(permission, str):
        return permission == "allow"
    decision = None
    if isinstance(permission, dict):
        for pattern, value in permission.items():
            if fnmatch.fnmatchcase(OPENCODE_COMMIT, str(pattern)):
                decision = value if isinstance(value, str) else (
                    "allow" if isinstance(value, dict) and "allow" in value.values() else "ask")
    return decision == "allow"


def opencode_agents(where: str, data: Any, markdown: dict[str, str]) -> list[Finding]:
    """OpenCode agents (in the config, or Markdown files by name) whose permission lets
    engram_commit run unasked, over the global ask rule."""
    agents = data.get("agent") if isinstance(data, dict) else None
    names = [str(name) for name, agent in (agents.items() if isinstance(agents, dict) else ())
             if isinstance(agent, dict) and opencode_agent_allows(agent.get("permission"))]
    names += [name for name, text in markdown.items() if _MD_ALLOW.search(_front(text))]
    return [Finding("host.opencode_commit_allowed", "error",
                    f"{where}: the OpenCode agent {shown_token(name)} runs {OPENCODE_COMMIT} "
                    "without asking (an agent's permission overrides the global one)",
                    f"remove the agent's allow rule for {OPENCODE_COMMIT}, or add "
                    f'"{OPENCODE_COMMIT}": "ask" as its last permission rule')
            for name in names]


def _front(text: str) -> str:
    if not text.startswith("---"):
        return ""
    end = text.find("\n---", 3)
    return text[3:end] if end != -1 else ""
