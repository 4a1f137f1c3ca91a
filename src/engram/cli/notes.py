"""`engram notes [list|prune]` and `engram promote <note-id> [--force]` (docs/saving.md).

Listing shows every working note with its expiry (expired ones marked; load never shows them);
prune deletes the expired ones and every file of `working/` Engram did not write. Promote
proposes the note's text as a durable memory through the normal preview and approval (see
cli/write.py) and deletes the note once it was written.
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from engram.outcome import Outcome

if TYPE_CHECKING:
    from engram.cli.main import Context


def configure_notes(p: argparse.ArgumentParser) -> None:
    p.add_argument("action", nargs="?", choices=["list", "prune"], default="list")


def run_notes(args: argparse.Namespace, ctx: Context) -> Outcome:
    from engram.clock import today as utc_today
    from engram.proposals import notes

    today = utc_today()
    if args.action == "prune":
        gone = notes.prune(ctx.roots, today)
        lines = [f"removed {n.id} (expired {n.valid_until})" for n in gone.expired]
        lines += [f"removed {safe_name(f)} (not written by Engram)" for f in gone.unsealed]
        return Outcome(text="\n".join(lines) or "no expired notes",
                       data={"removed": [n.id for n in gone.expired],
                             "removed_unsealed": [safe_name(f) for f in gone.unsealed]})
    rows = []
    lines = []
    found, unsealed = notes.survey(ctx.roots)
    for n in found:
        old = notes.expired(n, today)
        rows.append({"id": n.id, "type": n.type, "scope": n.scope, "valid_until": n.valid_until,
                     "objective": n.meta.get("objective") or "", "expired": old})
        mark = " [expired: run engram notes prune]" if old else ""
        lines.append(f"- {n.id} ({n.type}, {n.scope}) valid until {n.valid_until}{mark}")
    if unsealed:
        lines.append(f"warning: {len(unsealed)} file(s) in working/ were not written by Engram "
                     "and are never shown; `engram notes prune` removes them: "
                     + ", ".join(safe_name(f) for f in unsealed[:5])
                     + (" …" if len(unsealed) > 5 else ""))
    return Outcome(text="\n".join(lines) or "no working notes",
                   data={"notes": rows, "unsealed": [safe_name(f) for f in unsealed]})


def safe_name(name: str) -> str:
    """A file name an attacker chose, as every file name nobody reviewed is printed
    (`engram.safety.shown_name`: escaped, shortened, withheld unless plain)."""
    from engram.safety import shown_name

    return shown_name(name)


def configure_promote(p: argparse.ArgumentParser) -> None:
    from engram.cli.write import _common

    p.add_argument("id", help="the working note's id")
    _common(p)


def run_promote(args: argparse.Namespace, ctx: Context) -> Outcome:
    from engram.cli.write import propose_and_write
    from engram.proposals import notes

    note = notes.find(ctx.roots, args.id)
    what = notes.promotion(note)  # as api.propose_promotion, answered in the terminal instead

    def forget(outcome: Outcome) -> None:
        from engram.proposals.effects import done

        gone = notes.remove_note(ctx.roots, note.id)
        outcome.text += f"\n  {done(gone)}"
        outcome.data["removed_note"] = note.id

    return propose_and_write(args, ctx, what.text, single=True, type=what.type,
                             context=what.context, answer_from_stdin=True, after_write=forget,
                             promote=note.id)
