"""`engram verify` and `engram rehash`: check files against hashes; approve hand edits."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from engram.outcome import Diagnostic, Outcome

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
    p.add_argument("ids", nargs="*", metavar="ID",
                   help="the memories to approve, by id or by path (rules/<id>, global:rules/<id>) "
                   "when two files share an id (without ids: list what would be approved and "
                   "ask, or pass --all)")
    p.add_argument("--all", action="store_true", dest="every_file",
                   help="approve every changed file at once (after reviewing them all)")
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
    """Without ids, approving every changed file at once would approve a file an agent planted
    together with the human's own edit (issue 27 class 7): list them and ask on a terminal;
    anywhere else, or on no, approve nothing and say how (`--all` or ids)."""
    from engram.store.integrity import rehash

    if args.ids or args.every_file or args.merged or args.dry_run:
        return rehash(ctx.roots, args.ids, merged=args.merged, accept_unsafe=args.accept_unsafe,
                      dry_run=args.dry_run)
    seen = rehash(ctx.roots, None, accept_unsafe=args.accept_unsafe, dry_run=True)
    changed = seen.data.get("changed") or []
    if not changed:  # nothing to approve: what the real run would say (refusals included)
        return rehash(ctx.roots, None, accept_unsafe=args.accept_unsafe)
    if _yes(seen.text, len(changed)):
        return rehash(ctx.roots, None, accept_unsafe=args.accept_unsafe)
    return Outcome(
        text=seen.text + f"\nnothing approved: rehash without ids would approve these "
        f"{len(changed)} file(s) at once. Review each, then run `engram rehash <id> …` for "
        "the ones you mean, or `engram rehash --all` for all of them.",
        data={**seen.data, "dry_run": False, "changed": [], "would_approve": changed},
        diagnostics=[Diagnostic("usage.rehash_all", "error",
                                "rehash without ids needs a yes on a terminal, ids, or --all")],
        ok=False, exit_code=2)


def _yes(shown: str, count: int) -> bool:
    """Ask on the terminal (stdin and stdout both one); anything but y/yes is no."""
    import sys

    if not (sys.stdin.isatty() and sys.stdout.isatty()):
        return False
    print(shown)
    try:
        answer = input(f"Approve these {count} file(s)? [y/N] ")
    except EOFError:
        return False
    return answer.strip().lower() in ("y", "yes")
