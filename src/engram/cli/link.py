"""`engram link <host>`, `link list` and `unlink [<host>]`: a thin CLI over `hosts.link`."""

from __future__ import annotations

import argparse
from typing import Any

from engram.errors import EXIT_ERROR
from engram.hosts import link as engine
from engram.hosts.command import LAUNCHERS
from engram.hosts.targets import NAMES
from engram.outcome import Diagnostic, Outcome


def configure_link(p: argparse.ArgumentParser) -> None:
    p.add_argument("target", help=f"host to link: {', '.join(NAMES)}, or `list`")
    p.add_argument("--global", dest="is_global", action="store_true",
                   help="link the user-level config instead of this project")
    p.add_argument("--force", action="store_true",
                   help="replace an existing `engram` entry or file that is not Engram's")
    p.add_argument("--plan", action="store_true", help="show what would change; write nothing")
    p.add_argument("--no-mcp", action="store_true", help="skip the MCP registration")
    p.add_argument("--no-hooks", action="store_true", help="skip Claude Code hooks")
    p.add_argument("--team", action="store_true",
                   help="Claude hooks in .claude/settings.json (shared) instead of settings.local")
    p.add_argument("--no-allow", action="store_true",
                   help="no allow rules for the read-only tools (commit still asks)")
    p.add_argument("--launcher", choices=LAUNCHERS, default="auto",
                   help="auto: the bare engram-mcp in files a project commits (each teammate's "
                        "PATH finds it), this installation's absolute path in your own files; "
                        "name: always the bare engram-mcp; path: always the absolute path "
                        "(personal: keep the file out of git); uvx: the pinned uvx form")


def configure_unlink(p: argparse.ArgumentParser) -> None:
    p.add_argument("target", nargs="?", help="host to unlink (default: every linked host)")
    p.add_argument("--global", dest="is_global", action="store_true",
                   help="unlink the user-level config")
    p.add_argument("--plan", action="store_true", help="show what would change; write nothing")
    p.add_argument("--restore", action="store_true",
                   help="after unlinking, put back the copies saved before Engram's first change")


def render(results: list[engine.Result]) -> Outcome:
    lines: list[str] = []
    data: list[dict[str, Any]] = []
    verbs = {engine.Linked: "linked", engine.AlreadyLinked: "already linked",
             engine.Unlinked: "unlinked", engine.NothingToUnlink: "nothing to unlink for",
             engine.Planned: "plan for"}
    for r in results:
        verb = verbs[type(r)]
        lines.append(f"{verb} {r.host} ({r.scope})" + (":" if r.changes else ""))
        lines += [f"  {action} {path}" for action, path in r.changes]
        if isinstance(r, engine.Planned) and not r.changes:
            lines.append("  no changes")
        lines += [f"note: {n}" for n in r.notes]
        for _, message, hint in r.skipped:  # the rest was linked; this file needs the human
            lines += [f"skipped {message}", f"  fix: {hint}"]
        data.append({"host": r.host, "scope": r.scope, "status": verb,
                     "changes": [{"action": a, "path": p} for a, p in r.changes],
                     "notes": list(r.notes),
                     "skipped": [{"code": c, "message": m} for c, m, _ in r.skipped]})
    skipped = [s for r in results for s in r.skipped]
    return Outcome(text="\n".join(lines), data={"results": data}, ok=not skipped,
                   exit_code=EXIT_ERROR if skipped else 0,
                   diagnostics=[Diagnostic(c, "error", m) for c, m, _ in skipped])


def run_link(args: argparse.Namespace, ctx: Any) -> Outcome:
    if args.target == "list":
        return _list(ctx)
    opts = engine.Options(is_global=args.is_global, force=args.force, plan=args.plan,
                          no_mcp=args.no_mcp, no_hooks=args.no_hooks, team=args.team,
                          no_allow=args.no_allow, launcher=args.launcher)
    return render([engine.link(ctx.roots, args.target, opts)])


def run_unlink(args: argparse.Namespace, ctx: Any) -> Outcome:
    results = engine.unlink(ctx.roots, args.target, is_global=args.is_global, plan=args.plan,
                            restore=args.restore)
    if not results:
        return Outcome(text="no linked hosts in this scope", data={"results": []})
    return render(results)


def _list(ctx: Any) -> Outcome:
    links = engine.linked(ctx.roots)
    if not links:
        return Outcome(text="no linked hosts (run `engram link <host>`)", data={"links": []})
    lines = [f"{x['host']:<12} {x['scope']:<10} {x.get('project') or '~'}" for x in links]
    return Outcome(text="\n".join(lines), data={"links": links})
