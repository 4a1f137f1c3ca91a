"""Doctor checks of every host config that registers Engram (project and user scope).

Every known config file of every host is read, not only recorded links, so an entry written by
hand or by the TypeScript tool is checked too:

- the launch command: it exists (`host.missing_executable`), it starts and answers MCP
  `initialize` (`host.no_start` / `host.starts`, hosts/probe.py), it does not depend on this
  shell's PATH (`host.launch_fragile`), its pin is current (`host.stale_pin`); every remedy is the
  same `engram link` that writes this installation's command, never a contradicting one;
- the commit gate: anything that lets `engram_commit` run unasked (a Claude allow rule or
  `bypassPermissions`, OpenCode's effective rule, Codex `approve`, Gemini `trust: true`);
- the human's next step: Claude's project-server approval (`host.claude_pending`), Gemini's folder
  trust (`host.gemini_trust`), and the user-scope Claude server in `~/.claude.json`.
"""

from __future__ import annotations

import fnmatch
import os
import shlex
import shutil
from dataclasses import dataclass, field
from pathlib import Path, PurePath
from typing import Any

from engram.errors import EngramError
from engram.hosts import (
    blocks,
    command,
    entry_env,
    gemini_gate,
    hoststate,
    jsonc,
    planted,
    probe,
    redirects,
    runnable,
)
from engram.hosts.findings import Finding
from engram.hosts.targets import Target, all_targets
from engram.safety.names import shown_argv, shown_token
from engram.workspace import Roots

AUTO_MODES = ("approve", "auto")
COMMIT_PERMISSIONS = ("mcp__engram__engram_commit", "mcp__engram", "mcp__engram__*")
OPENCODE_COMMIT = "engram_engram_commit"
CODEX_PROJECT = ".codex/config.toml"  # Engram never writes it; Codex reads it when trusted


@dataclass
class Ctx:
    roots: Roots
    probes: dict[tuple[str, ...], probe.Probe] = field(default_factory=dict)

    def starts(self, argv: list[str]) -> probe.Probe:
        key = tuple(argv)
        if key not in self.probes:
            self.probes[key] = probe.starts(argv, self.roots.project)
        return self.probes[key]


def relink(host: str, is_global: bool) -> str:
    return f"engram link{' --global' if is_global else ''} {host}"


SHARED_FIX = (f"install Engram as a tool so every shell finds engram-mcp (`pipx install "
              f"{command.PACKAGE}` or `uv tool install {command.PACKAGE}`), or run `{{fix}} "
              "--launcher path` for a personal absolute path (git-ignored)")


def _missing(where: str, head: str, fix: str, shared: bool = False) -> Finding:
    if PurePath(head).name == "uvx":
        why = "uvx is not on PATH, so the pinned uvx form cannot start"
        how = f"install uv, or run `{fix}` to write this installation's engram-mcp instead"
    elif os.sep in head or "/" in head:
        why = f"{shown_token(head)} does not exist"
        how = f"run `{fix}` from the Engram installation you use (it writes that one's path)"
    else:
        why = f"`{shown_token(head)}` is not on PATH"
        how = SHARED_FIX.format(fix=fix) if shared else \
            f"run `{fix}`: it writes the absolute path of this installation's engram-mcp"
    return Finding("host.missing_executable", "error", f"{where}: {why}", how)


def launch_findings(ctx: Ctx, where: str, entry: Any, fix: str,
                    shared: bool = False) -> list[Finding]:
    """`shared`: a project file, where link writes the bare `engram-mcp` (hosts/command.py)."""
    argv = command.argv_of(entry)
    if not argv:
        return []
    out: list[Finding] = []
    version = command.installed_version()
    pinned = command.pinned_version(entry)
    if command.is_typescript(entry):
        return [Finding("host.stale_pin", "warn", f"{where}: launches the TypeScript tool",
                        f"run `{fix}` (or `engram upgrade`) to point it at this engram-mcp")]
    if pinned is not None and pinned != version:
        out.append(Finding("host.stale_pin", "warn", f"{where}: pinned to {shown_token(pinned)}, "
                           f"installed {version}", "run `engram upgrade`"))
    head = argv[0]
    found = shutil.which(head, path=ctx.roots.env.path or None)
    if found is None:
        return [*out, _missing(where, head, fix, shared)]
    if PurePath(head).name == head and head == command.SERVER:
        wanted = command.launch_for(ctx.roots.env.path)
        if wanted.command != head:
            out.append(Finding(
                "host.launch_fragile", "warn",
                f"{where}: `{head}` resolves through this shell's PATH to {found}, which a host "
                "started from another shell may not have",
                SHARED_FIX.format(fix=fix) if shared else f"run `{fix}` to write {wanted.command}"))
    shown = shown_argv(argv)
    refused = runnable.refusal(argv, found, ctx.roots.project, ctx.roots.env.home)
    if refused:
        return [*out, Finding(
            "host.untrusted_command", "error",
            f"{where}: doctor did not start `{shown}`: {refused}",
            f"review this entry (a repository or an agent can write it); to use this "
            f"installation, run `{fix}`")]
    started = ctx.starts(argv)
    if not started.ok:
        out.append(Finding("host.no_start", "error",
                           f"{where}: `{shown}` does not start: {started.detail}",
                           f"run `{shown}` in a terminal to see why, then `{fix}`"))
    else:
        out.append(Finding("host.starts", "ok", f"{where}: `{shown}` starts ({started.detail})"))
    return out


def _load(path: Path) -> tuple[Any, list[Finding]]:
    try:
        return jsonc.loads(path.read_text(encoding="utf-8"), str(path)), []
    except (OSError, UnicodeDecodeError):
        return None, []
    except EngramError as exc:
        return None, [Finding("host.unparseable", "error", exc.message, exc.hint)]


def _node(data: Any, keys: list[str]) -> Any:
    for k in keys:
        data = data.get(k) if isinstance(data, dict) else None
    return data


def opencode_commit_decision(permission: Any) -> str:
    """What OpenCode decides for engram_commit: the last matching rule wins, none is allow."""
    if isinstance(permission, str):
        return permission
    decision = "allow"
    if isinstance(permission, dict):
        for pattern, value in permission.items():
            if not fnmatch.fnmatchcase(OPENCODE_COMMIT, str(pattern)):
                continue
            if isinstance(value, str):
                decision = value
            elif isinstance(value, dict):  # per-input rules: any allow can let it through
                decision = "allow" if "allow" in value.values() else "ask"
    return decision


def _gate(target: Target, path: Path, data: Any, entry: Any, home: Path) -> list[Finding]:
    where = f"{target.name} ({path})"
    if target.name == "opencode":
        agents = planted.opencode_agents(where, data, _markdown_agents(path))
        if opencode_commit_decision(data.get("permission")) != "allow":
            return agents
        return [Finding("host.opencode_commit_allowed", "error",
                        f"{where}: OpenCode runs {OPENCODE_COMMIT} without asking",
                        f'add "permission": {{"{OPENCODE_COMMIT}": "ask"}} as the last '
                        "permission rule (`engram link opencode` writes it)"), *agents]
    if target.name != "gemini" or gemini_gate.has_engram_policy(home):
        return []  # Engram's user policy outranks trust and tools.allowed (gemini_gate.py)
    out = []
    if isinstance(entry, dict) and entry.get("trust") is True:
        out.append(Finding("host.gemini_server_trust", "warn",
                           f"{where}: `trust: true` lets Gemini run engram_commit without asking",
                           "remove `trust` from mcpServers.engram, or run "
                           "`engram link --global gemini` (its policy asks for commit)"))
    allowed = gemini_gate.settings_allow(data)
    if allowed:
        out.append(Finding("host.gemini_commit_allowed", "error",
                           f"{where}: tools.allowed holds {', '.join(allowed)}, which lets "
                           "engram_commit run unasked",
                           "remove it, or run `engram link --global gemini` (its policy asks "
                           "for commit above tools.allowed)"))
    return out


def _markdown_agents(config_file: Path) -> dict[str, str]:
    """OpenCode's Markdown agents beside its config (`.opencode/agent/*.md` in a project,
    `~/.config/opencode/agent/*.md` for the user's): name -> text."""
    config = config_file.parent
    folders = [config / d / sub for d in (".opencode", ".") for sub in ("agent", "agents")]
    out: dict[str, str] = {}
    for folder in folders:
        for path in sorted(folder.glob("*.md")) if folder.is_dir() else []:
            try:
                out.setdefault(path.stem, path.read_text(encoding="utf-8")[:20_000])
            except (OSError, UnicodeDecodeError):
                continue
    return out


def _gemini_policies(roots: Roots) -> list[Finding]:
    home = roots.env.home
    above = gemini_gate.OURS_PRIORITY if gemini_gate.has_engram_policy(home) else None
    return [Finding("host.gemini_commit_allowed", "error",
                    f"{path}: a policy rule allows engram_commit"
                    + (" above Engram's ask rule" if above is not None else ""),
                    "remove the rule (or its engram_commit match)")
            for path in gemini_gate.allowing_policies(home, above)] + [
        Finding("host.unparseable", "error", f"{path}: cannot parse this Gemini policy file, so "
                "doctor cannot say whether it allows engram_commit",
                "fix the file by hand (Engram left it untouched), then rerun the command")
        for path in gemini_gate.unreadable_policies(home)]


def _next_step(target: Target, roots: Roots, where: str) -> list[Finding]:
    home, project = roots.env.home, roots.project
    if target.name == "claude":
        state = hoststate.claude_project_approval(home, project)
        if state == "approved":
            return [Finding("host.claude_pending", "ok", f"{where}: approved in Claude Code")]
        if state == "rejected":
            return [Finding("host.claude_pending", "warn",
                            f"{where}: the engram server was rejected in Claude Code",
                            "run `claude mcp reset-project-choices`, then start `claude` here "
                            "and approve engram")]
        return [Finding("host.claude_pending", "warn",
                        f"{where}: Claude Code shows engram as \"Pending approval\"",
                        "start `claude` in this project and approve the engram server "
                        "(or approve it under /mcp)")]
    if target.name == "gemini":
        trust = hoststate.gemini_trust(home, project)
        if trust in ("trusted", "off"):
            return [Finding("host.gemini_trust", "ok", f"{where}: this folder is trusted")]
        return [Finding("host.gemini_trust", "warn",
                        f"{where}: Gemini CLI shows engram as \"Disabled\" until this folder "
                        "is trusted" + (" (marked Do not trust)" if trust == "untrusted" else ""),
                        "start `gemini` here and choose \"Trust folder\" (or use /permissions)")]
    return []


def _json_host(ctx: Ctx, path: Path, target: Target, is_global: bool) -> list[Finding]:
    mcp = target.scope(is_global).mcp
    data, broken = _load(path)
    if broken or mcp is None:
        return broken
    where = f"{target.name} ({path})"
    table = _node(data, list(mcp.keys))
    out = [] if is_global else planted.renamed(table, where)
    out += entry_env.servers(where, table, relink(target.name, is_global), project=not is_global)
    entry = _node(data, [*mcp.keys, "engram"])
    if entry is None or not command.is_engrams(entry):
        return out
    out += launch_findings(ctx, where, entry, relink(target.name, is_global), not is_global)
    out += _gate(target, path, data, entry, ctx.roots.env.home)
    if not is_global:
        out += _redirected(where, redirects.of_entry(entry))
        out += planted.dialog_off(where, entry)
        out += _next_step(target, ctx.roots, where)
    return out


def _redirected(where: str, found: list[str]) -> list[Finding]:
    """A project file that points Engram at other roots (hosts/redirects.py)."""
    if not found:
        return []
    return [Finding("host.redirected_roots", "warn",
                    f"{where}: points Engram at other roots ({', '.join(found)}); it then "
                    "reads memories approved only by that root's own memory.hashes.json, "
                    "which this project's review may never show (a git-ignored folder)",
                    "remove them unless you set them yourself, and review that root "
                    "(engram verify --workspace <dir>)")]


def _codex_host(ctx: Ctx, path: Path, is_global: bool = True) -> list[Finding]:
    """`~/.codex/config.toml`, or a project's `.codex/config.toml` (Codex reads it in a trusted
    project, over the user's file)."""
    try:
        data = blocks.toml_loads(path.read_text(encoding="utf-8"), str(path))
    except (OSError, UnicodeDecodeError):
        return []
    except EngramError as exc:
        return [Finding("host.unparseable", "error", exc.message, exc.hint)]
    where = f"codex ({path})"
    out = [] if is_global else planted.renamed(data.get("mcp_servers"), where)
    out += entry_env.servers(where, data.get("mcp_servers"), relink("codex", True),
                             project=not is_global)
    entry = blocks.codex_entry(data)
    if not isinstance(entry, dict):
        return out
    if command.is_engrams(entry):
        out += launch_findings(ctx, where, entry, relink("codex", True))
    if not is_global:
        out += _redirected(where, redirects.of_entry(entry))
    tools = entry.get("tools") if isinstance(entry.get("tools"), dict) else {}
    commit = tools.get("engram_commit") if isinstance(tools, dict) else None
    modes = [entry.get("default_tools_approval_mode"),
             commit.get("approval_mode") if isinstance(commit, dict) else None]
    if any(m in AUTO_MODES for m in modes):
        out.append(Finding("host.codex_autoapprove", "error",
                           f"{where}: engram_commit would run without asking the human",
                           'set approval_mode = "prompt" (run `engram link --global codex`)'))
    return out


def claude_settings(roots: Roots) -> list[Path]:
    """Every Claude settings file that applies in this project (local, team, user)."""
    return [roots.project / ".claude/settings.local.json",
            roots.project / ".claude/settings.json",
            roots.env.home / ".claude/settings.json"]


def _covers_commit(rule: Any) -> bool:
    """A Claude allow rule that matches engram_commit: the server, or a wildcard over it."""
    if not isinstance(rule, str):
        return False
    return rule in COMMIT_PERMISSIONS or (
        rule.startswith("mcp__engram__") and fnmatch.fnmatchcase(COMMIT_PERMISSIONS[0], rule))


def _claude_gates(roots: Roots) -> list[Finding]:
    out: list[Finding] = []
    for path in claude_settings(roots):
        data, broken = _load(path)  # Claude may still read a file doctor cannot: say so
        out += broken
        perms = data.get("permissions") if isinstance(data, dict) else None
        allow = perms.get("allow") if isinstance(perms, dict) else None
        covering = [str(a) for a in allow if _covers_commit(a)] if isinstance(allow, list) else []
        if covering:
            found = ", ".join(shown_token(a) for a in covering)
            out.append(Finding("host.commit_allowlisted", "error",
                               f"{path}: permissions.allow holds {found}, which lets "
                               "engram_commit run unasked",
                               f"remove {found} from permissions.allow; allow the read-only "
                               "tools one by one (`engram link claude` writes them)"))
        out += _hook_command(roots, path, data)
        out += planted.commit_hooks(str(path), data)
        out += entry_env.settings_env(str(path), data,
                                      project=path.is_relative_to(roots.project))
        if path.is_relative_to(roots.project):
            from engram.hosts.claude_hooks import engram_commands

            out += _redirected(str(path), [r for cmd in engram_commands(data)
                                            for r in redirects.of_shell(cmd)])
            out += [f for cmd in engram_commands(data)
                    for f in entry_env.hook_command(str(path), cmd)]
        if isinstance(perms, dict) and perms.get("defaultMode") == "bypassPermissions":
            out.append(Finding("host.claude_bypass", "warn",
                               f"{path}: defaultMode bypassPermissions lets tools, engram_commit "
                               "included, run without asking",
                               'remove permissions.defaultMode (or set it to "default")'))
    return out


def _hook_command(roots: Roots, path: Path, data: Any) -> list[Finding]:
    """Engram's Claude hook must find its `engram` (a missing one fails every prompt silently)."""
    from engram.hosts.claude_hooks import engram_commands

    for cmd in engram_commands(data):
        argv = shlex.split(cmd)
        if argv and shutil.which(argv[0], path=roots.env.path or None) is None:
            scope = " --global" if path.parent.parent == roots.env.home else ""
            return [Finding("host.hook_missing", "error",
                            f"{path}: the Engram hook runs `{shown_token(argv[0])}`, which does "
                            "not exist here", f"run `engram link{scope} claude` (it writes the "
                            "absolute path of this installation's engram)")]
    return []


def _claude_user(ctx: Ctx) -> list[Finding]:
    """The user-scope server Claude keeps in ~/.claude.json (registered by `claude mcp add`)."""
    from engram.hosts.link import linked
    from engram.hosts.nextsteps import user_server_argv

    entry = hoststate.claude_user_entry(ctx.roots.env.home)
    where = f"claude ({hoststate.claude_user_json(ctx.roots.env.home)})"
    env_found = _claude_json_entries(ctx, where)
    if any(f.code == "host.unparseable" for f in env_found):
        return env_found  # not "no server": doctor could not read the file at all
    recorded = any(x.get("host") == "claude" for x in linked(ctx.roots, True))
    if entry is None or not command.is_engrams(entry):
        if not recorded or entry is not None:
            return env_found
        add = " ".join(user_server_argv(ctx.roots))
        return [Finding("host.claude_user_missing", "warn",
                        f"{where}: Claude Code has no user-scope engram server",
                        f"run `claude mcp add --scope user engram -- {add}`")]
    return env_found + launch_findings(ctx, where, entry, relink("claude", True)
                                       + " (then run the `claude mcp` commands it prints)")


def _claude_json_entries(ctx: Ctx, where: str) -> list[Finding]:
    """`~/.claude.json`: the user-scope servers and this project's local-scope ones (the
    user's file, so warnings: entry_env.py)."""
    data, broken = _load(hoststate.claude_user_json(ctx.roots.env.home))
    if not isinstance(data, dict):
        return broken
    fix = relink("claude", True)
    out = entry_env.servers(where, data.get("mcpServers"), fix, project=False)
    projects = data.get("projects")
    local = projects.get(str(ctx.roots.project)) if isinstance(projects, dict) else None
    if isinstance(local, dict):
        out += entry_env.servers(f"{where} (this project's local servers)",
                                 local.get("mcpServers"), fix, project=False)
    return out


def check_hosts(roots: Roots) -> list[Finding]:
    ctx = Ctx(roots)
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
                    out += _codex_host(ctx, path)
                else:
                    out += _json_host(ctx, path, target, is_global)
    project_codex = roots.project / CODEX_PROJECT
    if project_codex.is_file() and project_codex not in seen:
        out += _codex_host(ctx, project_codex, is_global=False)
    return out + _claude_user(ctx) + _claude_gates(roots) + _gemini_policies(roots)
