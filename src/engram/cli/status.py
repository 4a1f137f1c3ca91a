"""`engram status`: roots, counts by type/scope/tier, invalid files, pending work, config."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from engram.outcome import Outcome

if TYPE_CHECKING:
    from engram.cli.main import Context


def configure_status(p: argparse.ArgumentParser) -> None:
    p.epilog = "Invalid memory files are listed with their line and reason."


def run_status(args: argparse.Namespace, ctx: Context) -> Outcome:
    from engram.status import status

    return status(ctx.roots)
