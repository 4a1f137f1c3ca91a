"""`engram upgrade [--plan]`: re-pin linked hosts and refresh what link installed."""

from __future__ import annotations

import argparse
from typing import Any

from engram.cli.link import render
from engram.outcome import Outcome


def configure_upgrade(p: argparse.ArgumentParser) -> None:
    p.add_argument("--plan", action="store_true", help="show what would change; write nothing")


def run_upgrade(args: argparse.Namespace, ctx: Any) -> Outcome:
    from engram.hosts.upgrade import upgrade

    results = upgrade(ctx.roots, plan=args.plan)
    if not results:
        return Outcome(text="nothing to upgrade: no linked hosts and no Engram entries found",
                       data={"results": []})
    return render(results)
