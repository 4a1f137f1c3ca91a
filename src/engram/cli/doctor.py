"""`engram doctor [--json] [--strict]`: print findings with remediations; errors exit 1.

`--strict` also fails on warnings (for CI). The checks live in `engram.hosts.doctor`.
"""

from __future__ import annotations

import argparse
from typing import Any

from engram.errors import EXIT_ERROR
from engram.outcome import Diagnostic, Outcome


def configure_doctor(p: argparse.ArgumentParser) -> None:
    p.add_argument("--strict", action="store_true", help="exit non-zero on warnings too")


def run_doctor(args: argparse.Namespace, ctx: Any) -> Outcome:
    from engram.hosts.doctor import run
    from engram.workspace import resolve

    # Resolved without the containment check, so a symlinked root is explained, not refused.
    findings = run(resolve(workspace=getattr(args, "workspace", None), contain=False))
    failing = {"error", "warn"} if args.strict else {"error"}
    bad = [f for f in findings if f.level in failing]
    lines = [f"{f.level.upper():<5} {f.code}: {f.message}"
             + (f"\n      fix: {f.remediation}" if f.remediation and f.level != "ok" else "")
             for f in findings]
    counts = {lvl: sum(f.level == lvl for f in findings) for lvl in ("ok", "warn", "error")}
    lines.append(f"doctor: {counts['ok']} ok, {counts['warn']} warnings, {counts['error']} errors")
    diagnostics = [Diagnostic(f.code, "warn" if f.level == "warn" else "error", f.message)
                   for f in findings if f.level != "ok"]
    return Outcome(text="\n".join(lines), data={"findings": [f.as_dict() for f in findings]},
                   diagnostics=diagnostics, ok=not bad, exit_code=EXIT_ERROR if bad else 0)
