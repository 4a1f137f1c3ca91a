"""`engram demo`: initialise a throwaway workspace, propose, approve, load, MCP round trip."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from engram.outcome import Outcome

if TYPE_CHECKING:
    from engram.cli.main import Context


def configure_demo(p: argparse.ArgumentParser) -> None:
    p.add_argument("--dir", metavar="DIR",
                   help="keep the demo project in DIR instead of a temp dir that is removed")


def run_demo(args: argparse.Namespace, ctx: Context) -> Outcome:
    from engram.demo import run

    def say(text: str) -> None:
        sys.stdout.write(text + "\n")
        sys.stdout.flush()

    data = run(Path(args.dir).resolve() if args.dir else None, say=say)
    return Outcome(text="", data=data)
