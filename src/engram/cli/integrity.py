"""`engram verify` and `engram rehash`: check files against hashes; approve hand edits."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from engram.outcome import Outcome

if TYPE_CHECKING:
    from engram.cli.main import Context


def configure_verify(p: argparse.ArgumentParser) -> None:
    p.epilog = ("Prints problems and a summary. Exit status 4 when any file is MISMATCH, "
                "MISSING HASH, MISSING FILE or INVALID.")
    p.add_argument("--all", action="store_true", dest="every_file",
                   help="list every file, not only the problems")


def run_verify(args: argparse.Namespace, ctx: Context) -> Outcome:
    from engram.search.roots_index import parsed_files
    from engram.store.integrity import verify

    return verify(ctx.roots, parsed=parsed_files, every_file=args.every_file)


def configure_rehash(p: argparse.ArgumentParser) -> None:
    p.add_argument("ids", nargs="*", metavar="ID", help="only these memories (default: all)")
    p.add_argument("--merged", action="store_true",
                   help="resolve a git merge conflict inside memory.hashes.json")
    p.add_argument("--dry-run", action="store_true",
                   help="show and scan what would be approved; approve nothing")
    p.add_argument("--accept-unsafe", action="store_true",
                   help="approve files even if they hold a secret, personal data or an "
                   "injection line (only after you reviewed them)")
    p.epilog = ("Shows the text of every file it approves. Exit status 4 when a file was not "
                "approved because it failed the safety scan.")


def run_rehash(args: argparse.Namespace, ctx: Context) -> Outcome:
    from engram.store.integrity import rehash

    return rehash(ctx.roots, args.ids, merged=args.merged, accept_unsafe=args.accept_unsafe,
                  dry_run=args.dry_run)
