"""`engram export` and `engram import` (docs/adopting.md "Export").

Export renders the approved memories for tools and teammates without Engram: to stdout, or to
`--out FILE`, which it replaces only when it wrote that file itself (the marker and digest in
engram/export/render.py); a file it never wrote is refused, one it wrote and someone edited is
refused unless `--force`. Import takes a JSON bundle back through the usual proposal: the
preview, then the human's `A` / `A 1,3` / `B <note>` / `C` (cli/write.py), eight memories per
proposal (the proposal limit), each proposal answered on its own.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from engram.cli.write import _common, _read_file, _stdin_ready, propose_and_write
from engram.errors import EngramError, UsageError
from engram.export.render import FORMATS
from engram.outcome import Diagnostic, Outcome, terminal_safe

if TYPE_CHECKING:
    from engram.cli.main import Context
    from engram.export.collect import Exported
    from engram.search.guard import Skip

MAX_BUNDLE_BYTES = 16 * 1024 * 1024


def configure_export(p: argparse.ArgumentParser) -> None:
    p.add_argument("--format", choices=FORMATS, default="agents-md",
                   help="agents-md (default), claude-md, cursorrules, or json (a bundle "
                   "`engram import` reads)")
    p.add_argument("--out", type=Path, metavar="FILE",
                   help="write here (default: stdout); only a file engram export wrote is "
                   "replaced")
    p.add_argument("--scope", choices=["workspace", "global", "both"], default="workspace",
                   help="which memory to export (default: the project's)")
    p.add_argument("--force", action="store_true",
                   help="replace an exported file even though it was edited since")


def configure_import_bundle(p: argparse.ArgumentParser) -> None:
    p.add_argument("bundle", metavar="BUNDLE",
                   help="a JSON bundle from `engram export --format json` (- reads stdin)")
    _common(p)


def run_export(args: argparse.Namespace, ctx: Context) -> Outcome:
    from engram import __version__
    from engram.export.collect import collect
    from engram.export.render import render

    items, skipped = collect(ctx.roots, args.scope)
    text = render(args.format, items, skipped, __version__)
    notes = [Diagnostic("export.skipped", "warn", f"left out {s.name}: {s.shown_reason} "
                        f"({s.fix})") for s in skipped]
    if args.out is None:
        for d in notes:
            sys.stderr.write(terminal_safe(f"warning: {d.message}") + "\n")
        return Outcome(text=text, diagnostics=notes,
                       data={"memories": len(items), "skipped": len(skipped)})
    _outside_roots(args.out, ctx)
    return _write(args.out, text, args.force, items, skipped, notes)


def _outside_roots(out: Path, ctx: Context) -> None:
    """An export is never written into a memory root: a file there would be read as a memory
    nobody approved."""
    where = out.absolute().parent.resolve() / out.name
    for root in ctx.roots.all():
        base = root.path.resolve()
        if where == base or base in where.parents:
            raise EngramError(f"{out} lies inside the memory root {root.path}; nothing was "
                              "written", code="export.inside_root",
                              hint="write the export outside .agents/.engram (e.g. --out "
                              "AGENTS.md)")


def _write(out: Path, text: str, force: bool, items: list[Exported], skipped: list[Skip],
           notes: list[Diagnostic]) -> Outcome:
    from engram.export.render import state
    from engram.store.fileio import atomic_write

    old = _existing(out)
    found = state(old)
    if found == "foreign":
        raise EngramError(f"{out} was not written by engram export (it has no export marker); "
                          "nothing was written", code="export.not_ours",
                          hint="pick another --out, or move that file away yourself")
    if found == "edited" and not force:
        raise EngramError(f"{out} was written by engram export but edited since; nothing was "
                          "written", code="export.edited",
                          hint="keep those edits as memories (engram save), or rerun with "
                          "--force to replace them")
    if old == text:
        verb = "unchanged"
    else:
        atomic_write(out, text)
        verb = "wrote" if found == "absent" else "replaced"
    lines = [f"{verb} {out}: {len(items)} memor{'y' if len(items) == 1 else 'ies'}"]
    lines += [f"left out {s.name}: {s.shown_reason} ({s.fix})" for s in skipped]
    return Outcome(text="\n".join(lines), diagnostics=notes, data={
        "file": str(out), "written": verb != "unchanged", "memories": len(items),
        "skipped": [s.name for s in skipped]})


def _existing(out: Path) -> str | None:
    """The text at `out`, None when nothing is there; a symlink or a non-file is refused (a
    link could aim the write at a file the export never wrote)."""
    if out.is_symlink():
        raise EngramError(f"{out} is a symlink; nothing was written", code="export.not_ours",
                          hint="give --out a regular file's path")
    if not out.exists():
        return None
    if not out.is_file():
        raise EngramError(f"{out} is not a regular file; nothing was written",
                          code="export.not_ours", hint="give --out a file's path")
    data = out.read_bytes()
    return data.decode("utf-8", errors="replace")


def run_import_bundle(args: argparse.Namespace, ctx: Context) -> Outcome:
    from engram.export.bundle import parse
    from engram.proposals.candidates import MAX_CANDIDATES
    from engram.safety import printable

    from_stdin = args.bundle == "-"
    text = sys.stdin.read(MAX_BUNDLE_BYTES + 1) if from_stdin else _read_bundle(Path(args.bundle))
    bundle = parse(text, "stdin" if from_stdin else printable(args.bundle, 120))
    head: list[str] = []
    if bundle.edited:
        head.append("note: this bundle was edited after it was exported (its digest does not "
                    "match): read each candidate below before you approve it")
    if bundle.skipped:
        names = ", ".join(printable(n, 120) for n in bundle.skipped[:10])
        head.append(f"note: the exporting side left out {len(bundle.skipped)} memories it "
                    f"could not vouch for: {names}")
    if not bundle.candidates:
        return Outcome(text="\n".join([*head, "the bundle holds no memories; nothing to import"]),
                       data={"written": [], "proposals": 0})
    batches = [bundle.candidates[i:i + MAX_CANDIDATES]
               for i in range(0, len(bundle.candidates), MAX_CANDIDATES)]
    if args.answer is None and not from_stdin and not sys.stdin.isatty() and _stdin_ready():
        # A piped answer, read once: it answers every proposal, as --answer does.
        lines = [ln.strip() for ln in sys.stdin.read().splitlines() if ln.strip()]
        args.answer = lines[-1] if lines else None
    if len(batches) > 1 and args.answer and _numbered(args.answer):
        raise UsageError(f"a numbered answer picks from one proposal, and this bundle makes "
                         f"{len(batches)} ({MAX_CANDIDATES} memories each)",
                         code="usage.answer", hint="answer A or C for all, or answer each "
                         "proposal at the terminal")
    return _propose_batches(args, ctx, batches, head)


def _numbered(answer: str) -> bool:
    from engram.cli.answers import parse

    letter, rest = parse(answer)
    return letter == "A" and bool(rest)


def _propose_batches(args: argparse.Namespace, ctx: Context,
                     batches: list[list[dict[str, Any]]], head: list[str]) -> Outcome:
    texts: list[str] = []
    written: list[Any] = []
    deferred: list[dict[str, Any]] = []
    diagnostics = [Diagnostic("import.note", "warn", note.removeprefix("note: "))
                   for note in head]
    if head and not args.json:  # before the preview: it says how to read it
        sys.stdout.write(terminal_safe("\n".join(head)) + "\n\n")
        sys.stdout.flush()
    for n, batch in enumerate(batches, 1):
        title = f"Proposal {n} of {len(batches)} from the bundle" if len(batches) > 1 else ""
        if title and not args.json:
            sys.stdout.write(f"{title}\n\n")
            sys.stdout.flush()
        outcome = propose_and_write(args, ctx, batch, single=False, source="import")
        if title and not args.json and outcome.exit_code == 0:
            # each proposal's result right after its preview, not all of them at the end
            sys.stdout.write(terminal_safe(outcome.text.rstrip("\n")) + "\n\n")
            sys.stdout.flush()
        else:
            texts.append(outcome.text)
        written += outcome.data.get("written") or []
        deferred += [{**d, "text": batch[int(d["number"]) - 1].get("text", "")}
                     for d in outcome.data.get("deferred") or []]
        diagnostics += outcome.diagnostics
        if outcome.exit_code != 0:
            return outcome.replace(text="\n\n".join(texts), diagnostics=diagnostics)
    if len(batches) > 1:
        texts.append(f"{len(written)} written from {len(batches)} proposals")
    return Outcome(text="\n\n".join(t for t in texts if t), diagnostics=diagnostics,
                   data={"written": written, "deferred": deferred, "proposals": len(batches)})


def _read_bundle(path: Path) -> str:
    try:
        size = path.stat().st_size
    except OSError:
        size = 0
    if size > MAX_BUNDLE_BYTES:
        raise UsageError(f"{path} is {size} bytes; a bundle is at most {MAX_BUNDLE_BYTES}",
                         code="import.bundle", hint="export fewer memories per bundle")
    return _read_file(path)
