"""`engram link` / `unlink` / `link list`: put Engram into a host, or take exactly it out again.

One run stages every edit on a `Bench` (instruction block, Claude's slash command and hooks,
the MCP registration), then applies them together: a file one step cannot parse is skipped and
reported (`Result.skipped`), the rest still applies; `--plan` shows the staged edits and writes
nothing, and a second link stages nothing.
Results are values: `Linked`, `AlreadyLinked`, `Unlinked`, `NothingToUnlink`, `Planned`.
This module orchestrates; file formats live in `jsonc`, `blocks`, `mcpconf`, `claude_hooks`.
"""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from engram.hosts import (
    blocks,
    claude_hooks,
    command,
    gates,
    hoststate,
    keep,
    mcpconf,
    nextsteps,
    texts,
)
from engram.hosts.files import Bench, Edit, State, hosts_lock
from engram.hosts.targets import Mcp, Scope, Target, all_targets, get
from engram.workspace import Roots


@dataclass(frozen=True)
class Options:
    is_global: bool = False
    force: bool = False
    plan: bool = False
    no_mcp: bool = False
    no_hooks: bool = False
    team: bool = False
    no_allow: bool = False  # no allow rules for the read-only tools (the commit gate stays)
    launcher: str = "auto"  # "uvx": the pinned uvx form (hosts/command.py)
    repin: bool = False  # upgrade / automatic re-pin: keep a working absolute server path
    # upgrade: may also change --always-load (docs/hosts.md "Ownership, re-pinning, force")
    refresh: bool = False


@dataclass(frozen=True)
class Result:
    host: str
    scope: str
    changes: list[tuple[str, str]] = field(default_factory=list)  # (action, path)
    notes: list[str] = field(default_factory=list)
    # Host files left untouched because a step could not parse them: (code, message, fix).
    skipped: list[tuple[str, str, str]] = field(default_factory=list)


class Linked(Result):
    pass


class AlreadyLinked(Result):
    pass


class Unlinked(Result):
    pass


class NothingToUnlink(Result):
    pass


class Planned(Result):
    pass


def _base(roots: Roots, is_global: bool) -> Path:
    return roots.env.home if is_global else roots.project


def _scope_name(is_global: bool) -> str:
    return "global" if is_global else "workspace"


def _link_key(roots: Roots, host: str, is_global: bool) -> dict[str, Any]:
    return {"host": host, "scope": _scope_name(is_global),
            "project": None if is_global else str(roots.project)}


def _hooks_wanted(roots: Roots, target: Target, opts: Options) -> bool:
    scope = target.scope(opts.is_global)
    if scope.hooks_file is None or opts.no_hooks:
        return False
    return bool(roots.settings().get("read") != "off")


def _hooks_path(roots: Roots, scope: Scope, opts: Options) -> Path:
    """`.claude/settings.local.json` (personal), `--team` → `.claude/settings.json`
    (docs/hosts.md "Quick start")."""
    name = scope.team_hooks_file if opts.team and scope.team_hooks_file else scope.hooks_file
    return _base(roots, opts.is_global) / str(name)


def hook_files(roots: Roots) -> list[Path]:
    """Every settings file where an Engram Claude hook for this project could live."""
    claude = get("claude")
    ws, gl = claude.workspace, claude.global_
    return [roots.project / str(ws.hooks_file), roots.project / str(ws.team_hooks_file),
            roots.env.home / str(gl.hooks_file)]


def _always_load(roots: Roots, bench: Bench, installing_hooks: bool) -> bool:
    if installing_hooks:
        return False
    return not any(claude_hooks.has_engram_hook(bench.read(p)) for p in hook_files(roots))


def _put_block(bench: Bench, path: Path, header: str, block: str, force: bool) -> str | None:
    text = bench.read(path)
    if text is None:
        bench.write(path, header + block)
        return None
    if header and blocks.span(text, blocks.MD) is None and text.strip():
        # An owned file (rule, command) that someone else wrote: replace only with --force.
        if not force:
            return f"kept {path}: it exists and is not Engram's (use --force)"
        bench.write(path, header + block)
        return None
    bench.write(path, blocks.upsert(text, block, blocks.MD))
    return None


def _stage_link(roots: Roots, target: Target, opts: Options, bench: Bench) -> list[str]:
    """Each step through `bench.attempt`: a host file one step cannot parse is skipped and
    reported, the others are still linked (docs/hosts.md)."""
    scope = target.scope(opts.is_global)
    base = _base(roots, opts.is_global)
    step = bench.attempt
    notes = step(lambda: _block_note(bench, base / scope.instructions, scope.header,
                                     texts.BOOTSTRAP, opts.force))
    if scope.command_file:
        notes += step(lambda: _block_note(bench, base / str(scope.command_file),
                                          texts.COMMAND_HEADER, texts.COMMAND, opts.force))
    hooks = _hooks_wanted(roots, target, opts)
    if hooks:
        notes += step(lambda: _stage_hooks(roots, scope, opts, bench))
    if not opts.no_mcp:
        notes += step(lambda: _stage_mcp(roots, scope, opts, bench, hooks))
        notes += step(lambda: _stage_gate(roots, scope, opts, bench))
        notes += step(lambda: nextsteps.after_link(roots, target.name,
                                                   opts.is_global or opts.plan))
    if scope.mcp is None and scope.hint and not opts.no_mcp \
            and not nextsteps.registered_for_user(roots, target, bench):
        notes.append(scope.hint)
    if not opts.is_global and scope.hooks_file:
        notes += step(lambda: _ignore(bench, roots.project, base / str(scope.hooks_file)))
    if not opts.is_global and not opts.plan:
        notes += step(lambda: [_commit_line(roots, target, opts, bench)])
    return notes


def _block_note(bench: Bench, path: Path, header: str, block: str, force: bool) -> list[str]:
    note = _put_block(bench, path, header, block, force)
    return [note] if note else []


def _stage_hooks(roots: Roots, scope: Scope, opts: Options, bench: Bench) -> list[str]:
    path = _hooks_path(roots, scope, opts)
    cmd = claude_hooks.hook_command(roots.env.path, opts.launcher, _shared(path, roots, opts))
    if opts.repin:
        cmd = claude_hooks.kept_command(bench.read(path), cmd)
    claude_hooks.install(bench, path, cmd)
    return []


def _ignore(bench: Bench, project: Path, path: Path) -> list[str]:
    keep.stage_ignore(bench, project, path)
    return []


def _commit_line(roots: Roots, target: Target, opts: Options, bench: Bench) -> str:
    """Which of this link's project files the team shares and which are personal."""
    scope = target.scope(False)
    base = roots.project
    files = [base / scope.instructions] + ([base / scope.command_file]
                                           if scope.command_file else [])
    keys = list(scope.mcp.keys) if scope.mcp is not None else []
    mcp = None if opts.no_mcp or scope.mcp is None or scope.mcp.style not in ("json", "opencode") \
        else _pick(bench, base, scope.mcp.files)
    hooks = _hooks_path(roots, scope, opts) if _hooks_wanted(roots, target, opts) else None
    files += [p for p in (mcp, hooks) if p is not None]
    gitignore = base / keep.GITIGNORE
    if gitignore in {e.path for e in bench.edits()} or bench.state.peek(gitignore).get("lines"):
        files.append(gitignore)
    present = [p for p in dict.fromkeys(files) if bench.read(p) is not None]
    personal = [p for p in present if (p == hooks and not _shared(p, roots, opts))
                or (p == mcp and nextsteps.machine_path(bench, p, keys) is not None)]
    lines = set((bench.read(gitignore) or "").splitlines())
    ignored = {p for p in personal if p.relative_to(base).as_posix() in lines}
    return nextsteps.what_to_commit(base, [p for p in present if p not in personal], personal,
                                    ignored)


def _shared(path: Path, roots: Roots, opts: Options) -> bool:
    """A file the project commits (not user scope, not Claude's personal settings.local.json):
    it gets a launch command every teammate can run (hosts/command.py)."""
    return not opts.is_global and path != roots.project / str(get("claude").workspace.hooks_file)


def _gate_path(roots: Roots, scope: Scope, opts: Options, bench: Bench) -> Path | None:
    base = _base(roots, opts.is_global)
    if scope.gate == "claude":
        return _hooks_path(roots, scope, opts)
    if scope.gate in ("opencode", "gemini-settings") and scope.mcp is not None:
        return _pick(bench, base, scope.mcp.files)
    if scope.gate == "gemini-policy":
        return base / gates.GEMINI_POLICY
    return None


def _stage_gate(roots: Roots, scope: Scope, opts: Options, bench: Bench) -> list[str]:
    """The host's permission rules: commit asks, read-only tools run (hosts/gates.py)."""
    path = _gate_path(roots, scope, opts, bench)
    allow = not opts.no_allow
    note: str | None = None
    if scope.gate == "claude" and path is not None:
        gates.put_claude(bench, path, allow)
    elif scope.gate == "opencode" and path is not None:
        note = gates.put_opencode(bench, path, allow)
    elif scope.gate == "gemini-policy" and path is not None:
        note = gates.put_gemini_policy(bench, path, allow, opts.force)
    elif scope.gate == "gemini-settings" and path is not None:
        gates.put_gemini_allowed(bench, path, allow)
    if scope.gate_hint and bench.read(roots.env.home / gates.GEMINI_POLICY) is None:
        note = scope.gate_hint
    return [note] if note else []


def _stage_mcp(roots: Roots, scope: Scope, opts: Options, bench: Bench, hooks: bool) -> list[str]:
    mcp = scope.mcp
    if mcp is None:
        return []
    base = _base(roots, opts.is_global)
    wish = mcpconf.Wish(
        launch=command.launch_for(roots.env.path, launcher=opts.launcher,
                                  shared=not opts.is_global),
        always_load=mcp.claude_reads and _always_load(roots, bench, hooks),
        force=opts.force, refresh=opts.refresh, repin=opts.repin,
    )
    if mcp.style == "print":
        return nextsteps.print_user_server(roots, wish.launch.argv(
            command.with_always_load([], wish.always_load)))
    if mcp.style == "codex":
        note = mcpconf.put_codex(bench, base / mcp.files[0], wish)
        return [note] if note else []
    path = _pick(bench, base, mcp.files)
    style = "opencode" if mcp.style == "opencode" else "json"
    note = mcpconf.put_json(bench, path, list(mcp.keys), style, wish)
    if mcp.style == "cursor-plugin":
        for extra in scope.extra_files:
            bench.write(base / extra, _plugin_manifest())
    notes = [note] if note else []
    if not opts.is_global:
        program = nextsteps.machine_path(bench, path, list(mcp.keys))
        if program is not None:  # personal (--launcher path): kept out of `git add .`
            keep.stage_ignore(bench, roots.project, path)
            ignored = bench.created(path) and (roots.project / ".git").exists()
            notes.append(nextsteps.personal_path(path, program, ignored))
        notes += nextsteps.shared_launch(roots, wish.launch)
    return notes


def _pick(bench: Bench, base: Path, files: tuple[str, ...]) -> Path:
    for name in files:
        if bench.read(base / name) is not None:
            return base / name
    return base / files[0]


def _plugin_manifest() -> str:
    manifest = {"name": "engram", "version": command.installed_version(),
                "description": "Engram project memory: MCP server and an always-on rule"}
    return json.dumps(manifest, indent=2) + "\n"


def _changes(edits: list[Edit]) -> list[tuple[str, str]]:
    return [(e.action, str(e.path)) for e in edits]


def link(roots: Roots, host: str, opts: Options) -> Result:
    """Link one host. The user's `hosts.json` and files other links share (AGENTS.md,
    .gitignore, ~/.codex/config.toml) are read, staged and written under one lock, so links
    run at once never drop each other's records."""
    with hosts_lock(roots.config_dir):
        return _link(roots, host, opts)


def _link(roots: Roots, host: str, opts: Options) -> Result:
    target = get(host)
    bench = Bench(State(roots.config_dir), roots.project)
    notes = _stage_link(roots, target, opts, bench)
    edits = bench.edits()
    scope = _scope_name(opts.is_global)
    skipped = [(e.code, e.message, e.hint) for e in bench.skipped]
    if opts.plan:
        return Planned(host, scope, _changes(edits), notes, skipped)
    record = _link_key(roots, host, opts.is_global)
    if _hooks_wanted(roots, target, opts):
        record["hooks_file"] = str(_hooks_path(roots, target.scope(opts.is_global), opts))
    if opts.no_allow:
        record["no_allow"] = True
    if opts.launcher != "auto":
        record["launcher"] = opts.launcher
    known = record in [{k: x.get(k) for k in record} for x in bench.state.links]
    bench.state.add_link(record)
    if not edits and known:
        return AlreadyLinked(host, scope, [], notes, skipped)
    bench.apply()
    return Linked(host, scope, _changes(edits), notes, skipped)


def linked(roots: Roots, is_global: bool | None = None) -> list[dict[str, Any]]:
    """Links recorded for this project (workspace) and for the user (global)."""
    out = []
    for x in State(roots.config_dir).links:
        if x.get("scope") == "global":
            wanted = is_global is not False
        else:
            wanted = is_global is not True and x.get("project") == str(roots.project)
        if wanted:
            out.append(x)
    return out


def _shared_instructions(roots: Roots, target: Target, is_global: bool) -> bool:
    """Another host still linked in this scope reads the same instruction file."""
    mine = target.scope(is_global).instructions
    for x in linked(roots, is_global):
        other = x.get("host")
        if other != target.name and other in {t.name for t in all_targets()} \
                and get(str(other)).scope(is_global).instructions == mine:
            return True
    return False


def _drop_block(bench: Bench, path: Path, header: str) -> None:
    text = bench.read(path)
    if text is None or blocks.span(text, blocks.MD) is None:
        return
    rest = blocks.remove(text, blocks.MD)
    if bench.created(path) and rest.strip() in ("", header.strip()):
        bench.delete(path)
    else:
        bench.write(path, rest)


def _stage_unlink(roots: Roots, target: Target, is_global: bool, bench: Bench) -> list[str]:
    """Each step through `bench.attempt`, as in `_stage_link`: a file one step cannot parse is
    skipped and reported, Engram's part of the others is still taken out."""
    scope = target.scope(is_global)
    base = _base(roots, is_global)
    step = bench.attempt
    notes: list[str] = []
    if not _shared_instructions(roots, target, is_global):
        notes += step(lambda: _dropped(bench, base / scope.instructions, scope.header))
    if scope.command_file:
        notes += step(lambda: _dropped(bench, base / str(scope.command_file),
                                       texts.COMMAND_HEADER))
    if scope.hooks_file:
        for name in (scope.hooks_file, scope.team_hooks_file):
            if name:
                notes += step(functools.partial(_unhook, bench, base / name))
        if not is_global:
            notes += step(lambda: _unignore(bench, roots.project, base / str(scope.hooks_file)))
    if scope.gate == "gemini-policy":
        notes += step(lambda: _no_policy(bench, base / gates.GEMINI_POLICY))
    mcp = scope.mcp
    if mcp is None:
        return notes
    if mcp.style == "print":
        if hoststate.claude_user_entry(roots.env.home) is not None:
            notes.append("remove the user-scope server with: "
                          "claude mcp remove --scope user engram")
    elif mcp.style == "codex":
        notes += step(lambda: _no_codex(bench, base / mcp.files[0]))
    else:
        notes += step(lambda: _unlink_json(roots, mcp, scope, is_global, bench))
    return notes


def _dropped(bench: Bench, path: Path, header: str) -> list[str]:
    _drop_block(bench, path, header)
    return []


def _unhook(bench: Bench, path: Path) -> list[str]:
    claude_hooks.uninstall(bench, path)
    gates.take_out(bench, path)
    return []


def _unignore(bench: Bench, project: Path, path: Path) -> list[str]:
    keep.stage_unignore(bench, project, path)
    return []


def _no_policy(bench: Bench, path: Path) -> list[str]:
    gates.take_out_gemini_policy(bench, path)
    return []


def _no_codex(bench: Bench, path: Path) -> list[str]:
    mcpconf.take_out_codex(bench, path)
    return []


def _unlink_json(roots: Roots, mcp: Mcp, scope: Scope, is_global: bool,
                 bench: Bench) -> list[str]:
    base = _base(roots, is_global)
    picked = _pick(bench, base, mcp.files)
    if scope.gate in ("opencode", "gemini-settings"):
        gates.take_out(bench, picked)
    note = mcpconf.take_out_json(bench, picked, list(mcp.keys))
    notes = [note] if note else []
    if not is_global:
        keep.stage_unignore(bench, roots.project, picked)
    for extra in scope.extra_files:
        if bench.created(base / extra):
            bench.delete(base / extra)
    return notes


def _host_files(roots: Roots, target: Target, is_global: bool) -> list[Path]:
    """Every file this host's link may have changed (for `unlink --restore`)."""
    scope = target.scope(is_global)
    base = _base(roots, is_global)
    names = [scope.command_file, scope.hooks_file, scope.team_hooks_file, *scope.extra_files]
    if not _shared_instructions(roots, target, is_global):
        names.append(scope.instructions)
    if scope.mcp is not None:
        names += list(scope.mcp.files)
    if scope.gate == "gemini-policy":
        names.append(gates.GEMINI_POLICY)
    if not is_global and scope.hooks_file:
        names.append(keep.GITIGNORE)
    return [base / n for n in names if n]


def unlink(roots: Roots, host: str | None, *, is_global: bool = False,
           plan: bool = False, restore: bool = False) -> list[Result]:
    with hosts_lock(roots.config_dir):
        return _unlink(roots, host, is_global=is_global, plan=plan, restore=restore)


def _unlink(roots: Roots, host: str | None, *, is_global: bool,
            plan: bool, restore: bool) -> list[Result]:
    hosts = [host] if host else [str(x["host"]) for x in linked(roots, is_global)]
    results: list[Result] = []
    for name in hosts:
        target = get(name)
        bench = Bench(State(roots.config_dir), roots.project)
        notes = _stage_unlink(roots, target, is_global, bench)
        edits = bench.edits()
        scope = _scope_name(is_global)
        backups = keep.restorable(roots.config_dir, _host_files(roots, target, is_global)) \
            if restore else []
        changes = _changes(edits) + [("restore", str(p)) for p, _ in backups]
        skipped = [(e.code, e.message, e.hint) for e in bench.skipped]
        if plan:
            results.append(Planned(name, scope, changes, notes, skipped))
            continue
        bench.state.remove_link(_link_key(roots, name, is_global))
        bench.apply()
        keep.restore(backups)
        cls = Unlinked if changes else NothingToUnlink
        results.append(cls(name, scope, changes, notes, skipped))
    return results
