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

    report = upgrade(ctx.roots, plan=args.plan)
    out = render(report.hosts) if report.hosts else Outcome(
        text="hosts: nothing to re-pin (no linked hosts or Engram entries found)",
        data={"results": []})
    lines = [f"memory {m.scope}:{m.rel}: {m.status}" for m in report.memories]
    if not report.memories:
        lines = ["memories: all files already use schema v3"]
    out.text = "\n".join([out.text, *lines])
    out.data["memories"] = [{"scope": m.scope, "file": m.rel, "status": m.status}
                            for m in report.memories]
    return out
