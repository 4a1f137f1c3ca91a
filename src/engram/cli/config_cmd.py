"""`engram config get|set|list`: read and change layered configuration with range checks."""

from __future__ import annotations

import argparse
import json
from typing import TYPE_CHECKING

from engram.errors import UsageError
from engram.outcome import Outcome

if TYPE_CHECKING:
    from pathlib import Path

    from engram.cli.main import Context


def configure_config(p: argparse.ArgumentParser) -> None:
    p.add_argument("action", choices=["get", "set", "list"])
    p.add_argument("key", nargs="?")
    p.add_argument("value", nargs="?")
    where = p.add_mutually_exclusive_group()
    where.add_argument("--user", action="store_true", help="set in ~/.engram/engram.config.json")
    where.add_argument("--global", dest="global_", action="store_true",
                       help="set in the global root's config")


def _target(args: argparse.Namespace, ctx: Context) -> Path:
    roots = ctx.roots
    if args.user:
        return roots.user_config_file
    if args.global_:
        if roots.global_root is None:
            raise UsageError("no global root is configured",
                             hint="create one with `engram init --global PATH`")
        return roots.global_root.config_file
    return roots.workspace.config_file


def run_config(args: argparse.Namespace, ctx: Context) -> Outcome:
    from engram.config import KEYS

    settings = ctx.roots.settings()
    if args.action == "list":
        lines = [f"{k} = {json.dumps(settings.values[k])}    # {KEYS[k].doc}" for k in KEYS]
        return Outcome(text="\n".join(lines), data={"values": settings.values})
    if not args.key:
        raise UsageError(f"`engram config {args.action}` needs a key",
                         hint=f"known keys: {', '.join(KEYS)}")
    if args.action == "get":
        value = settings.get(args.key)
        return Outcome(text=json.dumps(value), data={"key": args.key, "value": value})
    if args.value is None:
        raise UsageError("`engram config set` needs a value", hint="engram config set load.limit 8")
    from engram.settings import write_config

    path = _target(args, ctx)
    if args.key == "global_path" and path != ctx.roots.user_config_file:
        raise UsageError("global_path is read only from your user config",
                         hint="engram init --global PATH (creates the root and records it), or "
                         "engram config set global_path PATH --user", code="config.user_only")
    _check_repo_narrowing(args.key, args.value, path == ctx.roots.workspace.config_file)
    write_config(path, {args.key: args.value})
    value = ctx.roots.settings().get(args.key)
    return Outcome(text=f"{args.key} = {json.dumps(value)} (in {path})",
                   data={"key": args.key, "value": value, "file": str(path)})


def _check_repo_narrowing(key: str, value: str, in_repo: bool) -> None:
    """The workspace's config is the repository's: it may only narrow some keys (config.py
    `REPO_NARROW`), so a value it could not use is refused here instead of ignored later."""
    from engram.config import REPO_NARROW

    allowed = REPO_NARROW.get(key)
    if in_repo and allowed is not None and value not in allowed:
        raise UsageError(f"{key} {value} cannot be set in the repository's config",
                         hint=f"set it for yourself: engram config set {key} {value} --user "
                         "(a repository may not send saves to your global memory)",
                         code="config.repo_narrow")
