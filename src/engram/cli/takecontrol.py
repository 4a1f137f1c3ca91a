"""`engram take-control` (`tc`): adopt the guidance a repository and its hosts already hold
(docs/adopting.md "Take control").

Discovery, candidates and the plan are `engram.adopt`; the proposal is the one `save-session`
and `import` use (cli/export.py `_propose_batches`: preview, then `A` / `A 1,3` / `B <note>` /
`C`, eight candidates per proposal). `--plan` prints what would happen; `--agent` prints the
sanitized source pack for a model; `--pointer` offers, as a diff, to replace what was adopted
with a pointer to Engram, and `--pointer --undo` puts the originals back. `--file bundle.json`
with an export bundle is `engram import`.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from engram.adopt.discover import MAX_CHARS, MAX_SOURCES
from engram.cli.answers import ANSWER_HELP
from engram.cli.write import _common
from engram.errors import EXIT_APPROVAL_NEEDED, UsageError
from engram.outcome import Outcome, terminal_safe

if TYPE_CHECKING:
    from engram.adopt.plan import Survey
    from engram.cli.main import Context

TWICE = ("To stop loading the same guidance twice (the host file in full, Engram's pack on "
         "top): engram take-control --pointer")


def configure_take_control(p: argparse.ArgumentParser) -> None:
    p.add_argument("--plan", "--dry-run", dest="plan", action="store_true",
                   help="print each source (size, tokens, hash, what it proposes) and each "
                   "skip with its reason; write nothing")
    p.add_argument("--file", action="append", metavar="FILE",
                   help="adopt exactly this file (repeatable; personal files too; an export "
                   "bundle is imported)")
    p.add_argument("--dir", metavar="DIR", help="discover under this directory of the project")
    p.add_argument("--include", action="append", default=[], metavar="GLOB",
                   help="also adopt files matching this glob (relative to the project)")
    p.add_argument("--exclude", action="append", default=[], metavar="GLOB",
                   help="leave out files matching this glob")
    p.add_argument("--max-sources", type=int, default=MAX_SOURCES, metavar="N",
                   help=f"read at most N sources (default {MAX_SOURCES})")
    p.add_argument("--max-chars", type=int, default=MAX_CHARS, metavar="N",
                   help=f"skip a source longer than N characters (default {MAX_CHARS})")
    p.add_argument("--from-hosts", action="store_true",
                   help="also read (never write) the memory hosts keep for this project")
    p.add_argument("--personal", action="store_true",
                   help="propose personal files (CLAUDE.local.md) too")
    p.add_argument("--agent", action="store_true",
                   help="print the sanitized source pack and protocol for an agent")
    p.add_argument("--pointer", action="store_true",
                   help="offer to replace adopted guidance with a pointer to Engram (a diff, "
                   "written after approval)")
    p.add_argument("--undo", action="store_true", help="with --pointer: restore the originals")
    _common(p)


def run_take_control(args: argparse.Namespace, ctx: Context) -> Outcome:
    if args.max_sources < 1 or args.max_chars < 1:
        raise UsageError("--max-sources and --max-chars take a positive number",
                         code="usage.value", hint="e.g. --max-sources 50 --max-chars 100000")
    bundle = _bundle_file(args)
    if bundle is not None:
        from engram.cli.export import run_import_bundle

        args.bundle = bundle
        return run_import_bundle(args, ctx)
    if args.pointer:
        return _pointer(args, ctx)
    from engram.adopt import plan as plan_mod
    from engram.adopt.agent import pack

    roots = ctx.roots
    project = roots.project
    found = plan_mod.find(roots, project, args)
    host = None
    if args.from_hosts:
        from engram.adopt.hosts import host_sources
        from engram.config import read_env

        env = read_env()
        claude = Path(env.claude_config_dir).expanduser() if env.claude_config_dir else None
        host = host_sources(env.home, project, args.max_chars, claude)
    if args.agent:
        sources = [s for s in found.sources if not s.personal] + (host[0] if host else [])
        text, counts = pack(sources)
        return Outcome(text=text, data={"pack": text, **counts})
    from engram.proposals.author import git_author
    from engram.proposals.plan import target_scopes

    scopes = target_scopes(roots, args.scope)
    survey = plan_mod.survey(roots, found, host=host, scopes=scopes,
                             allow_emails=[git_author(project).email])
    if args.plan:
        return Outcome(text=plan_mod.render(survey, project), data=survey.as_data())
    return _propose(args, ctx, survey)


def _bundle_file(args: argparse.Namespace) -> str | None:
    """`--file bundle.json` naming an export bundle: the import path takes it."""
    if not args.file or len(args.file) != 1 or not str(args.file[0]).endswith(".json"):
        return None
    try:
        head = Path(args.file[0]).read_text(encoding="utf-8", errors="replace")[:4096]
    except OSError:
        return None
    return str(args.file[0]) if '"engram-export"' in head else None


def _propose(args: argparse.Namespace, ctx: Context, survey: Survey) -> Outcome:
    from engram.proposals.candidates import MAX_CANDIDATES

    head = [_summary(survey)]
    project = [a for a in survey.proposed if not a.about_user]
    personal = [a for a in survey.proposed if a.about_user]
    if not project and not personal:
        return Outcome(text="\n".join([*head, "nothing new to adopt"]),
                       data={**survey.as_data(), "written": [], "proposals": 0})
    outcomes = []
    groups: list[tuple[list[Any], str | None]] = []
    if project:
        groups.append((project, args.scope))
    if personal:  # about the person, not the project: suggested global when one exists
        root = ctx.roots.root("global")
        suggested = "global" if args.scope is None and root is not None and root.exists() \
            else args.scope
        groups.append((personal, suggested))
    if len(groups) > 1 and args.answer:
        from engram.cli.export import _numbered

        if _numbered(args.answer):
            raise UsageError("a numbered answer picks from one proposal, and this adoption "
                             "makes one for the project and one for memories about you",
                             code="usage.answer", hint="answer A or C, or adopt the host "
                             "memory separately (without --from-hosts first)")
    scope_was = args.scope
    for items, scope in groups:
        args.scope = scope
        fields = [a.fields() for a in items]
        batches = [fields[i:i + MAX_CANDIDATES] for i in range(0, len(fields), MAX_CANDIDATES)]
        if items is personal:
            origins = sorted({a.origin for a in items if a.origin})
            head.append(f"The next proposal holds memories about you (from {', '.join(origins)}"
                        f"); suggested scope: {scope or 'workspace'}.")
        out = _answered(args, ctx, batches, head)
        head = []
        outcomes.append(out)
        if out.exit_code != 0:
            break
    args.scope = scope_was
    last = outcomes[-1]
    written = [w for o in outcomes for w in o.data.get("written") or []]
    deferred = [d for o in outcomes for d in o.data.get("deferred") or []]
    text = "\n\n".join(o.text for o in outcomes if o.text)
    if written and last.exit_code == 0:
        text += f"\n\n{TWICE}"
    return last.replace(text=text, data={**last.data, "written": written,
                                         "deferred": deferred, "summary": survey.as_data()})


def _answered(args: argparse.Namespace, ctx: Context, batches: list[list[dict[str, Any]]],
              head: list[str]) -> Outcome:
    from engram.cli.export import _numbered, _propose_batches

    if len(batches) > 1 and args.answer and _numbered(args.answer):
        raise UsageError(f"a numbered answer picks from one proposal, and this adoption makes "
                         f"{len(batches)} (8 candidates each)", code="usage.answer",
                         hint="narrow it with --file or --include, or answer A or C")
    return _propose_batches(args, ctx, batches, head)


def _summary(s: Survey) -> str:
    parts = [f"{len(s.sources)} sources", f"{len(s.proposed)} candidates"]
    if s.built.left_out:
        parts.append(f"{len(s.built.left_out)} lines left out")
    if s.built.folded:
        parts.append(f"{len(s.built.folded)} duplicates folded")
    if s.held:
        parts.append(f"{len(s.held)} already in Engram")
    skipped = sum(1 for _, r in s.skipped)
    if skipped:
        parts.append(f"{skipped} files skipped")
    return "note: take-control: " + ", ".join(parts) + " (details: engram take-control --plan)"


def _pointer(args: argparse.Namespace, ctx: Context) -> Outcome:
    from engram.adopt.pointer import Backup, plan_pointer
    from engram.cli.answers import ask_terminal, parse

    roots = ctx.roots
    root = roots.root("workspace")
    if root is None or not root.exists():
        raise UsageError("no workspace memory root", code="not_found.root",
                         hint="run `engram init` first")
    backup = Backup(root.path)
    if args.undo:
        done = backup.restore(roots.project)
        if not done:
            return Outcome(text="no pointer rewrite on record; nothing to undo",
                           data={"restored": []})
        return Outcome(text="\n".join(f"{f}: {what}" for f, what in done),
                       data={"restored": [f for f, w in done if w == "restored"],
                             "kept": [f for f, w in done if w != "restored"]})
    changes = plan_pointer(roots.project, _adopted(roots))
    if not changes:
        return Outcome(text="no adopted guidance left to replace (adopt it first with engram "
                       "take-control)", data={"files": []})
    diff = "\n".join(c.diff() for c in changes)
    data: dict[str, Any] = {"files": [c.rel for c in changes], "diff": diff}
    answer = args.answer
    if not answer and not args.force:
        if sys.stdin.isatty() and sys.stdout.isatty() and not args.json:
            sys.stdout.write(terminal_safe(diff) + "\n")
            answer = ask_terminal(input)
        if not answer:
            return Outcome(text=f"{diff}\nNothing was written: approval needed. Answer with "
                           f"--answer (\"{ANSWER_HELP}\") or rerun with --force.", data=data,
                           ok=False, exit_code=EXIT_APPROVAL_NEEDED)
    letter, rest = parse(answer) if answer else ("A", "")
    if letter == "C":
        return Outcome(text="cancelled; no file was changed", data={**data, "cancelled": True})
    picked = _picked(rest, len(changes)) if letter == "A" and rest else set(range(1, 1 + len(
        changes)))
    wrote = []
    from engram.store.fileio import atomic_write

    for n, change in enumerate(changes, 1):
        if n in picked:
            backup.save(change)
            atomic_write(roots.project / change.rel, change.after)
            wrote.append(change.rel)
    lines = [f"{diff}", *(f"rewrote {f} (undo: engram take-control --pointer --undo)"
                          for f in wrote)]
    return Outcome(text="\n".join(lines), data={**data, "written": wrote})


def _picked(rest: str, count: int) -> set[int]:
    from engram.proposals.api import approved

    return approved(rest, count)


def _adopted(roots: Any) -> list[tuple[str, list[str]]]:
    """(text, source files) of every memory take-control wrote."""
    from engram.store.repo import stores_in

    out = []
    for store in stores_in(roots):
        for m in store.scan(include_notes=False).memories:
            files = m.meta.get("source_files")
            if m.meta.get("source") == "take-control" and isinstance(files, list):
                text = "\n".join(ln[2:] for ln in m.content.splitlines() if ln.startswith("- "))
                out.append((text, [str(f) for f in files]))
    return out
