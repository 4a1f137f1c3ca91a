"""`engram load`, `engram route`, `engram search`: the read path on the command line
(docs/reading.md).

Each command parses its flags, calls one function of `engram.search.api` and returns its
Outcome; main.py prints the text or, with `--json`, the envelope (also on failure). Ranges and
choices are checked by the core, not by argparse, so a bad value still yields the JSON envelope.
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from engram.errors import NotFoundError, UsageError
from engram.outcome import Outcome

if TYPE_CHECKING:
    from engram.cli.main import Context


def configure_load(p: argparse.ArgumentParser) -> None:
    p.add_argument("task", nargs="*", help="the task to route, in plain words")
    p.add_argument("--id", metavar="ID[,ID]", help="load exactly these memories (no budget)")
    p.add_argument("--budget-tokens", metavar="N",
                   help="token budget 200-16000 (default: config load.max_tokens)")
    p.add_argument("--disclosure", default="tiered", metavar="MODE",
                   help="tiered (default): bodies, then cards, then omitted ids; "
                        "cards: one line per memory; bodies: no cards")
    p.add_argument("--full", action="store_true",
                   help="legacy output: whole files, all rule variants, no budget")
    p.add_argument("--explain", action="store_true",
                   help="why each memory routed and why candidates were left out (no bodies)")
    p.add_argument("--dry-run", action="store_true",
                   help="show what would load, by tier, without bodies or recall counts")
    p.add_argument("--all", action="store_true", dest="include_all",
                   help="route every visible memory instead of a task")


def run_load(args: argparse.Namespace, ctx: Context) -> Outcome:
    from engram.search.api import load

    require_root(ctx)
    return load(ctx.roots, query=" ".join(args.task) or None, ids=args.id,
                budget_tokens=_int(args.budget_tokens, "--budget-tokens"),
                disclosure=args.disclosure, full=args.full, explain=args.explain,
                dry_run=args.dry_run, include_all=args.include_all)


def configure_route(p: argparse.ArgumentParser) -> None:
    p.add_argument("task", nargs="*", help="the task to classify and route")


def run_route(args: argparse.Namespace, ctx: Context) -> Outcome:
    from engram.search.api import route

    require_root(ctx)
    return route(ctx.roots, " ".join(args.task))


def configure_search(p: argparse.ArgumentParser) -> None:
    # `*`, not `+`: `engram search --limit invoice` must say that --limit needs a number, not
    # that the query is missing (argparse took `invoice` as the limit).
    p.add_argument("query", nargs="*", help="words to search for")
    p.add_argument("--limit", default="10", metavar="N", help="results (default 10)")


def run_search(args: argparse.Namespace, ctx: Context) -> Outcome:
    from engram.search.api import search

    limit = _int(args.limit, "--limit")
    require_root(ctx)
    return search(ctx.roots, " ".join(args.query), limit=10 if limit is None else limit)


def require_root(ctx: Context) -> None:
    """Outside any project the real cause comes first, and the command fails (exit 1)."""
    roots = ctx.roots
    if not roots.existing():
        raise NotFoundError("no memory root here; run engram init",
                            hint=f"{roots.workspace.path} does not exist: run `engram init` in "
                                 "your project, or pass --workspace DIR",
                            code="load.no_root")


_EXAMPLE = {"--limit": 5, "--budget-tokens": 800}


def _int(value: str | None, flag: str) -> int | None:
    """Numbers are parsed here, not by argparse, so `--json` still gets its envelope."""
    if value is None:
        return None
    try:
        return int(value)
    except ValueError:
        raise UsageError(f"{flag} needs a number, got {value!r}",
                         hint=f"for example {flag} {_EXAMPLE.get(flag, 400)}",
                         code="usage.number") from None
