"""`engram doctor`: findings about config, roots and every host config that registers Engram.

Each finding is `{code, level: ok|warn|error, message, remediation}` (SPEC §11.5). Host checks
look at every known config file of every host in both scopes (not only recorded links, so an
entry written by hand or by the TypeScript tool is checked too): stale pin, missing launcher,
`host.gemini_trust`, `host.codex_autoapprove` and `engram_commit` in a Claude allow-list.
Hash and invalid-file checks come from `engram.store.integrity` (the same as `engram verify`).
This module only reads; `engram upgrade` and `engram link` are the remediations.
"""

from __future__ import annotations

import fnmatch
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from engram.errors import EngramError
from engram.hosts import blocks, command, jsonc
from engram.hosts.targets import Target, all_targets, get
from engram.workspace import IGNORED_LINES, Roots

Level = Literal["ok", "warn", "error"]
AUTO_MODES = ("approve", "auto")
COMMIT_PERMISSIONS = ("mcp__engram__engram_commit", "mcp__engram", "mcp__engram__*")
OPENCODE_COMMIT = "engram_engram_commit"


@dataclass(frozen=True)
class Finding:
    code: str
    level: Level
    message: str
    remediation: str = ""

    def as_dict(self) -> dict[str, str]:
        return {"code": self.code, "level": self.level, "message": self.message,
                "remediation": self.remediation}


def check_config(roots: Roots) -> list[Finding]:
    try:
        settings = roots.settings()
    except EngramError as exc:
        return [Finding("config.invalid", "error", exc.message, exc.hint)]
    out = [Finding("config.clamped", "warn",
                   f"{c.file}: {c.key} = {c.value!r} is out of range; using {c.used!r}",
                   f"engram config set {c.key} <value in range>") for c in settings.clamped]
    return out or [Finding("config.ok", "ok", "configuration is valid")]


def check_roots(roots: Roots) -> list[Finding]:
    out: list[Finding] = []
    ws = roots.workspace
    if ws.exists():
        out.append(Finding("root.workspace", "ok", f"workspace root {ws.path}"))
    else:
        out.append(Finding("root.missing", "warn", f"no workspace root at {ws.path}",
                           "run `engram init` in the project"))
    g = roots.global_root
    if g is not None and not g.exists():
        out.append(Finding("root.global_missing", "warn", f"global root {g.path} does not exist",
                           f"run `engram init --global {g.path}` or unset ENGRAM_GLOBAL_DIR"))
    for root in roots.existing():
        try:
            lines = set(root.gitignore_file.read_text(encoding="utf-8").splitlines())
        except OSError:
            lines = set()
        missing = [x for x in IGNORED_LINES if x not in lines]
        if missing:
            out.append(Finding("root.gitignore", "warn",
                               f"{root.gitignore_file} lacks {', '.join(missing)}",
                               "run `engram init` (it only appends the missing lines)"))
    return out


def check_integrity(roots: Roots) -> list[Finding]:
    """Hashes and invalid files, as `engram verify` sees them."""
    from engram.store import integrity

    if not roots.existing():
        return []
    outcome = integrity.verify(roots)
    if outcome.ok:
        return [Finding("integrity.ok", "ok", "every memory file matches its hash")]
    first = outcome.text.strip().splitlines()[:5]
    return [Finding("integrity.mismatch", "error", "; ".join(first),
                    "review the files, then run `engram rehash` (see `engram verify`)")]


def check_launcher(roots: Roots) -> list[Finding]:
    path = roots.env.path
    if shutil.which(command.SERVER, path=path or None) or shutil.which("uvx", path=path or None):
        return []
    return [Finding("host.no_launcher", "warn", "neither engram-mcp nor uvx is on PATH",
                    "install Engram with `pipx install engram-protocol` or install uv")]


def _entry_findings(where: str, entry: Any, roots: Roots) -> list[Finding]:
    out: list[Finding] = []
    version = command.installed_version()
    pinned = command.pinned_version(entry)
    if command.is_typescript(entry):
        out.append(Finding("host.stale_pin", "warn", f"{where}: launches the TypeScript tool",
                           "run `engram upgrade` to point it at this engram-mcp"))
    elif pinned is not None and pinned != version:
        out.append(Finding("host.stale_pin", "warn", f"{where}: pinned to {pinned}, "
                           f"installed {version}", "run `engram upgrade`"))
    head = entry.get("command") if isinstance(entry, dict) else None
    head = head[0] if isinstance(head, list) and head else head
    if isinstance(head, str) and not shutil.which(head, path=roots.env.path or None):
        out.append(Finding("host.missing_executable", "warn", f"{where}: {head} is not on PATH",
                           "install it, or run `engram upgrade` to switch to the pinned uvx form"))
    return out


def _json_host(path: Path, keys: list[str], target: Target, roots: Roots) -> list[Finding]:
    try:
        data = jsonc.loads(path.read_text(encoding="utf-8"), str(path))
    except (OSError, UnicodeDecodeError):
        return []
    except EngramError as exc:
        return [Finding("host.unparseable", "error", exc.message, exc.hint)]
    node: Any = data
    for k in [*keys, "engram"]:
        node = node.get(k) if isinstance(node, dict) else None
    if node is None or not command.is_engrams(node):
        return []
    where = f"{target.name} ({path})"
    out = _entry_findings(where, node, roots)
    if target.name == "opencode":
        out += _opencode_gate(where, data)
    if target.name == "gemini" and isinstance(node, dict) and node.get("trust") is True:
        out.append(Finding("host.gemini_trust", "warn",
                           f"{where}: `trust: true` skips Gemini's confirmation for engram_commit",
                           "remove `trust` from mcpServers.engram"))
    return out or [Finding("host.ok", "ok", f"{where}: Engram entry ok")]


def _codex_host(path: Path, roots: Roots) -> list[Finding]:
    try:
        data = blocks.toml_loads(path.read_text(encoding="utf-8"), str(path))
    except OSError:
        return []
    except EngramError as exc:
        return [Finding("host.unparseable", "error", exc.message, exc.hint)]
    entry = blocks.codex_entry(data)
    if not isinstance(entry, dict):
        return []
    where = f"codex ({path})"
    out = _entry_findings(where, entry, roots) if command.is_engrams(entry) else []
    tools = entry.get("tools") if isinstance(entry.get("tools"), dict) else {}
    commit = tools.get("engram_commit") if isinstance(tools, dict) else None
    modes = [entry.get("default_tools_approval_mode"),
             commit.get("approval_mode") if isinstance(commit, dict) else None]
    if any(m in AUTO_MODES for m in modes):
        out.append(Finding("host.codex_autoapprove", "error",
                           f"{where}: engram_commit would run without asking the human",
                           'set approval_mode = "prompt" (run `engram link --global codex`)'))
    return out or [Finding("host.ok", "ok", f"{where}: Engram entry ok")]


def _claude_allowlists(roots: Roots) -> list[Finding]:
    from engram.hosts.link import hook_files  # the same three Claude settings files

    out: list[Finding] = []
    for path in hook_files(roots):
        try:
            data = jsonc.loads(path.read_text(encoding="utf-8"), str(path))
        except (OSError, UnicodeDecodeError, EngramError):
            continue
        perms = data.get("permissions") if isinstance(data, dict) else None
        allow = perms.get("allow") if isinstance(perms, dict) else None
        if isinstance(allow, list) and any(a in COMMIT_PERMISSIONS for a in allow):
            found = ", ".join(str(a) for a in allow if a in COMMIT_PERMISSIONS)
            out.append(Finding("host.commit_allowlisted", "error",
                               f"{path}: permissions.allow holds {found}, which lets "
                               "engram_commit run unasked",
                               f"remove {found} from permissions.allow; allow the read-only "
                               "tools one by one (`engram link claude` writes them)"))
        if isinstance(perms, dict) and perms.get("defaultMode") == "bypassPermissions":
            out.append(Finding("host.claude_bypass", "warn",
                               f"{path}: defaultMode bypassPermissions lets tools, engram_commit "
                               "included, run without asking",
                               "remove permissions.defaultMode (or set it to \"default\")"))
    return out


def opencode_commit_decision(permission: Any) -> str:
    """What OpenCode decides for engram_commit: the last matching rule wins, none is allow."""
    if isinstance(permission, str):
        return permission
    decision = "allow"
    if isinstance(permission, dict):
        for pattern, value in permission.items():
            if isinstance(value, str) and fnmatch.fnmatchcase(OPENCODE_COMMIT, str(pattern)):
                decision = value
    return decision


def _opencode_gate(where: str, data: Any) -> list[Finding]:
    permission = data.get("permission") if isinstance(data, dict) else None
    if opencode_commit_decision(permission) != "allow":
        return []
    return [Finding("host.opencode_commit_allowed", "error",
                    f"{where}: OpenCode runs {OPENCODE_COMMIT} without asking",
                    f'add "permission": {{"{OPENCODE_COMMIT}": "ask"}} as the last permission '
                    "rule (`engram link opencode` writes it)")]


def check_hosts(roots: Roots) -> list[Finding]:
    out: list[Finding] = []
    seen: set[Path] = set()
    for target in all_targets():
        for is_global, base in ((False, roots.project), (True, roots.env.home)):
            mcp = target.scope(is_global).mcp
            if mcp is None or mcp.style == "print":
                continue
            for name in mcp.files:
                path = base / name
                if path in seen or not path.is_file():
                    continue
                seen.add(path)
                if mcp.style == "codex":
                    out += _codex_host(path, roots)
                else:
                    out += _json_host(path, list(mcp.keys), target, roots)
    return out + _claude_allowlists(roots)


def check_links(roots: Roots) -> list[Finding]:
    """Recorded links whose instruction block or MCP entry has gone missing since."""
    from engram.hosts.link import linked

    out: list[Finding] = []
    for rec in linked(roots):
        is_global = rec.get("scope") == "global"
        scope = get(str(rec.get("host"))).scope(is_global)
        base = roots.env.home if is_global else roots.project
        missing = []
        if not _has_block(base / scope.instructions):
            missing.append(scope.instructions)
        if scope.mcp is not None and scope.mcp.style != "print" and not any(
                _mentions_engram(base / f) for f in scope.mcp.files):
            missing.append(" or ".join(scope.mcp.files))
        if missing:
            flag = " --global" if is_global else ""
            out.append(Finding("host.link_incomplete", "warn",
                               f"{rec.get('host')} ({rec.get('scope')}): Engram is missing from "
                               + ", ".join(missing),
                               f"run `engram link{flag} {rec.get('host')}` (or unlink it)"))
    return out


def _has_block(path: Path) -> bool:
    try:
        return blocks.span(path.read_text(encoding="utf-8"), blocks.MD) is not None
    except (OSError, UnicodeDecodeError):
        return False


def _mentions_engram(path: Path) -> bool:
    try:
        return "engram" in path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return False


def run(roots: Roots) -> list[Finding]:
    return (check_config(roots) + check_roots(roots) + check_integrity(roots)
            + check_launcher(roots) + check_hosts(roots) + check_links(roots))
