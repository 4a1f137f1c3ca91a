"""`engram stale` (memories whose anchored code moved, vanished or changed) and `engram confirm`."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from engram.outcome import Outcome

if TYPE_CHECKING:
    from engram.cli.main import Context

EXIT_STALE = 1


def configure_stale(p: argparse.ArgumentParser) -> None:
    p.add_argument("--fail", action="store_true",
                   help="exit 1 when any memory is stale (for CI)")
    p.add_argument("--propose", action="store_true",
                   help="draft UPDATE proposals that rewrite moved paths (you approve them)")
    p.add_argument("--answer", metavar="ANSWER", help="answer the proposal (A, A 1,3, C)")
    p.add_argument("-f", "--force", action="store_true",
                   help="with --propose: the human already approved these exact fixes")
    p.epilog = ("States: moved (renamed, with the commit), gone (deleted or not found), changed "
                "(anchored files have commits since the memory was last confirmed).")


def run_stale(args: argparse.Namespace, ctx: Context) -> Outcome:
    from engram.anchors.api import report
    from engram.cli.read import require_root

    require_root(ctx)  # outside a project `--fail` must not pass quietly
    outcome = report(ctx.roots)
    if args.propose:
        return _propose(args, ctx, outcome)
    if args.fail and any(outcome.data["counts"][s] for s in ("gone", "moved", "changed")):
        outcome.exit_code = EXIT_STALE
        outcome.ok = False
    return outcome


def _propose(args: argparse.Namespace, ctx: Context, report: Outcome) -> Outcome:
    from engram.anchors.propose import drafts, review_text
    from engram.cli.write import propose_and_write

    candidates = drafts(ctx.roots, report.data["memories"])
    review = review_text(report.data["memories"])
    if not candidates:
        text = "no moved path to fix" + (f"\n\n{review}" if review else "")
        return Outcome(text=text, data={"candidates": 0, "review": report.data["memories"]})
    args.scope, args.role, args.json = "workspace", [], getattr(args, "json", False)
    outcome = propose_and_write(args, ctx, candidates, single=False, source="stale")
    if review:
        outcome.text = f"{outcome.text.rstrip()}\n\n{review}"
    outcome.data["review"] = [m for m in report.data["memories"] if m["state"] != "moved"]
    return outcome


def configure_confirm(p: argparse.ArgumentParser) -> None:
    p.add_argument("id", help="the memory you re-read and found still true")
    p.add_argument("--scope", choices=["workspace", "global"], help="only look in this root")
    p.add_argument("--json", action="store_true", help="print the JSON envelope")


def run_confirm(args: argparse.Namespace, ctx: Context) -> Outcome:
    from engram.clock import utcnow
    from engram.proposals.confirm import confirm

    return confirm(ctx.roots, args.id, scope=args.scope, today=utcnow().date())


