"""Read the hosts' own state files: what a human still has to do after `engram link`.

Read only; Engram never writes these files (they belong to the hosts).

- Claude Code asks before it starts a server from a project's `.mcp.json` ("Pending approval").
  Its answer lands in the settings files (`enabledMcpjsonServers`, `disabledMcpjsonServers`,
  `enableAllProjectMcpServers`; the prompt writes `.claude/settings.local.json`) or, from older
  versions, under `projects.<path>` in `~/.claude.json`. Claude Code 2.1.332 also wants the
  folder trusted (its trust dialog: `projects.<path>.hasTrustDialogAccepted` in
  `~/.claude.json`, this exact path): an approved server in an untrusted folder stays
  "Pending approval". A user-scope server lives in `~/.claude.json` → `mcpServers`.
- Gemini CLI hides MCP servers in a folder that is not trusted ("Disabled") unless folder trust
  is off (`security.folderTrust.enabled: false`). Trust decisions live in
  `~/.gemini/trustedFolders.json` as `{"<path>": "TRUST_FOLDER" | "TRUST_PARENT" |
  "DO_NOT_TRUST"}`; the longest matching path wins and `TRUST_PARENT` covers its rule's parent.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

from engram.errors import EngramError
from engram.hosts import jsonc

SERVER = "engram"
Approval = Literal["approved", "rejected", "pending"]
Trust = Literal["trusted", "untrusted", "unknown", "off"]


def _load(path: Path) -> Any:
    try:
        return jsonc.loads(path.read_text(encoding="utf-8"), str(path))
    except (OSError, UnicodeDecodeError, EngramError):
        return None


def claude_user_json(home: Path) -> Path:
    return home / ".claude.json"


def claude_user_entry(home: Path) -> Any:
    """The user-scope `engram` server Claude Code keeps in `~/.claude.json`, if any."""
    data = _load(claude_user_json(home))
    servers = data.get("mcpServers") if isinstance(data, dict) else None
    return servers.get(SERVER) if isinstance(servers, dict) else None


def _choices(data: Any) -> tuple[bool, bool]:
    """(approved, rejected) for Engram in one settings-shaped object."""
    if not isinstance(data, dict):
        return False, False
    enabled = data.get("enabledMcpjsonServers")
    disabled = data.get("disabledMcpjsonServers")
    approved = data.get("enableAllProjectMcpServers") is True or (
        isinstance(enabled, list) and SERVER in enabled)
    return approved, isinstance(disabled, list) and SERVER in disabled


def claude_project_approval(home: Path, project: Path) -> Approval:
    sources = [_load(project / ".claude/settings.local.json"),
               _load(project / ".claude/settings.json"),
               _load(home / ".claude/settings.json")]
    legacy = _load(claude_user_json(home))
    projects = legacy.get("projects") if isinstance(legacy, dict) else None
    mine = projects.get(str(project)) if isinstance(projects, dict) else None
    sources.append(mine)
    seen = [_choices(s) for s in sources]
    if any(rejected for _, rejected in seen):
        return "rejected"
    trusted = isinstance(mine, dict) and mine.get("hasTrustDialogAccepted") is True
    return "approved" if trusted and any(approved for approved, _ in seen) else "pending"


def _inside(rule: Path, location: Path) -> bool:
    return location == rule or rule in location.parents


def gemini_trust(home: Path, project: Path) -> Trust:
    settings = _load(home / ".gemini/settings.json")
    security = settings.get("security") if isinstance(settings, dict) else None
    folder = security.get("folderTrust") if isinstance(security, dict) else None
    if isinstance(folder, dict) and folder.get("enabled") is False:
        return "off"
    rules = _load(home / ".gemini/trustedFolders.json")
    if not isinstance(rules, dict):
        return "unknown"
    location = project.resolve()
    best: tuple[int, str] | None = None
    for raw, level in rules.items():
        rule = Path(str(raw))
        effective = rule.parent if level == "TRUST_PARENT" else rule
        if _inside(effective.resolve(), location) and (best is None or len(raw) > best[0]):
            best = (len(raw), str(level))
    if best is None:
        return "unknown"
    return "untrusted" if best[1] == "DO_NOT_TRUST" else "trusted"
