"""`engram save`, `engram save-session` (`ss`) and `engram archive` (docs/saving.md).

Both save commands show the proposal preview and take the human's answer: `A` (all), `A 1,3`,
`B <note>` (all, plus a human note), `C` (cancel) (cli/answers.py). The answer comes from the
terminal when there is one (forgiving: `y` is re-asked), else `--answer`, else — when candidates
came from arguments or `--file` — the last non-empty line of stdin (strict); a non-interactive
answer prints the preview before the outcome, so logs show what was decided. With no answer the
preview is printed, nothing is written and the exit code is 3. `--force` means the human already
approved these exact candidates in chat. The preview a person reads leaves out the instructions
for agents; `--json` carries them. All writing goes through `engram.proposals.api`; this module
only parses, asks and renders.
"""

from __future__ import annotations

import argparse
import io
import re
import select
import sys
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from engram.cli.answers import ANSWER_HELP, NATURAL, ask_terminal, parse
from engram.errors import EXIT_APPROVAL_NEEDED, EXIT_ERROR, UsageError
from engram.outcome import Diagnostic, Outcome, terminal_safe

if TYPE_CHECKING:
    from engram.cli.main import Context
    from engram.proposals.api import Prepared

_LAST_N = re.compile(r"^\s*(?:last\s+)?(\d{1,9})(?:\s+(?:recent\s+)?(?:sessions?|chats?))?\s*$",
                     re.I)
STDIN_WAIT_S = 2.0


def _common(p: argparse.ArgumentParser) -> None:
    p.add_argument("-f", "--force", action="store_true",
                   help="the human already approved these exact candidates: write ready ones")
    p.add_argument("--scope", choices=["workspace", "global", "both"], help="save target")
    p.add_argument("--role", action="append", default=[], metavar="ROLE",
                   help="make the memory role-scoped (repeat or comma-separate)")
    p.add_argument("--answer", metavar="ANSWER", help=ANSWER_HELP)
    p.add_argument("--json", action="store_true", help="print the JSON envelope")


def configure_save(p: argparse.ArgumentParser) -> None:
    p.add_argument("words", nargs="*", metavar="[TYPE] TEXT",
                   help="optional rule|skill|knowledge (first or last), then the memory text "
                   "(or pipe form); no text or `-`: read it from stdin")
    p.add_argument("--context", help="why this memory matters")
    _common(p)


def configure_save_session(p: argparse.ArgumentParser) -> None:
    p.add_argument("candidates", nargs="*", metavar="CANDIDATE",
                   help="pipe-form candidates (default: stdin, one per line), or `last N sessions`")
    p.add_argument("--file", type=Path, help="read candidates from this file")
    p.add_argument("--query-level", metavar="N",
                   help="mine at most N recent accessible sessions (`last 50 sessions` works)")
    _common(p)


def configure_archive(p: argparse.ArgumentParser) -> None:
    p.add_argument("id", help="the memory id")
    p.add_argument("--reason", required=True, help="why it no longer applies")
    p.add_argument("--scope", choices=["workspace", "global"], help="only look in this root")


def run_save(args: argparse.Namespace, ctx: Context) -> Outcome:
    from engram.cli.savewords import split_save_words

    said = split_save_words(list(args.words))
    text = said.text
    if text is None:  # no text argument, or `-`: the text is what was piped
        text = _piped_text()
    outcome = propose_and_write(args, ctx, text, single=True, type=said.type,
                                context=args.context, answer_from_stdin=said.text is not None,
                                text_from_stdin=said.text is None)
    return outcome


def _piped_text() -> str:
    """The memory text from stdin (`echo "…" | engram save rule`, or `-`)."""
    example = 'engram save rule "Never commit directly to main."'
    if sys.stdin is None or sys.stdin.isatty():
        raise UsageError("no memory text given", code="usage.save_text",
                         hint=f"give it after the type ({example}), or pipe it: "
                         'echo "…" | engram save rule --answer A')
    text = sys.stdin.read() if _stdin_ready() else ""
    if not text.strip():
        raise UsageError("no memory text given: stdin was empty", code="usage.save_text",
                         hint=f"give the text as an argument ({example}) or pipe it")
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    if len(lines) > 1 and _is_answer(lines[-1]):
        raise UsageError(
            f"the last line of the piped text, {lines[-1]!r}, looks like an approval answer",
            code="usage.answer_in_text",
            hint="when the text comes from stdin, the answer comes only from --answer (or the "
            "terminal): pipe only the text and add --answer A")
    return text.strip()


def _is_answer(line: str, *, short: bool = True) -> bool:
    """Whether `line` parses as an answer; `short`: and is no longer than `A 1,3` or `C` (a
    sentence that starts with "a" is text)."""
    try:
        parse(line)
    except UsageError:
        return False
    return not short or len(line) <= 12


def run_save_session(args: argparse.Namespace, ctx: Context) -> Outcome:
    level = query_level(args.query_level)
    items = list(args.candidates)
    if items and level is None and _LAST_N.match(" ".join(items)) and \
            re.search(r"[a-z]", " ".join(items), re.I):
        level, items = query_level(" ".join(items)), []
    from_stdin = not items and args.file is None
    if args.file is not None:
        text = _read_file(args.file)
    elif items:
        text = "\n".join(items)
    else:
        text = "" if sys.stdin.isatty() or not _stdin_ready() else sys.stdin.read()
    if not text.strip() and level is not None:
        return _mining_instruction(level, args.force)
    return propose_and_write(args, ctx, text, single=False, source="session", level=level,
                             answer_from_stdin=not from_stdin)


def run_archive(args: argparse.Namespace, ctx: Context) -> Outcome:
    from engram.clock import today
    from engram.proposals.archive import archive

    return archive(ctx.roots, args.id, args.reason, scope=args.scope, today=today())


def query_level(raw: str | None) -> int | None:
    """`50`, `last 50 sessions`, `50 chats` → 50; anything else is a usage error."""
    if raw is None:
        return None
    m = _LAST_N.match(str(raw))
    if not m or int(m.group(1)) < 1:
        shown = raw if len(raw) <= 40 else f"{raw[:40]}…"
        raise UsageError(f"--query-level {shown!r} is not a positive number of sessions",
                         code="usage.query_level",
                         hint="use --query-level 50 or `last 50 sessions`")
    return int(m.group(1))


def propose_and_write(args: argparse.Namespace, ctx: Context,
                      text: str | Sequence[Mapping[str, Any]], *, single: bool,
                      type: str | None = None, context: str | None = None,
                      source: str = "manual", level: int | None = None,
                       answer_from_stdin: bool = False, text_from_stdin: bool = False,
                       after_write: Callable[[Outcome], None] | None = None,
                       promote: str | None = None) -> Outcome:
    """The shared save flow of save, save-session and promote (`promote`: the note removed)."""
    from engram.proposals import api

    roots = ctx.roots
    prep = api.prepare(roots, text, scope=args.scope, query_level=level, type=type,
                       role=args.role, context=context, single=single, promote=promote)
    if args.force:
        outcome = _all_deferred_fails(api.save_now(prep, roots, source=source))
    else:
        answer, shown = _answer(args, prep, answer_from_stdin, text_from_stdin)
        if answer is None:
            return _warned(_needs_answer(prep, args.json, text_from_stdin), prep.warnings)
        if not shown and not args.json:
            # A piped or --answer answer: the log shows what was decided, then the outcome.
            sys.stdout.write(terminal_safe(prep.human_preview) + "\n\n")
            sys.stdout.flush()
        letter, rest = parse(answer)
        if letter == "C":
            return _warned(Outcome(text="cancelled; nothing was saved", data={"cancelled": True}),
                           prep.warnings)
        approve = rest if letter == "A" and rest else "all"
        _check_numbers(approve, len(prep.candidates))
        note = rest if letter == "B" else None
        outcome = api.save_now(prep, roots, approve, human_note=note, pinned=True, source=source)
    if after_write is not None and outcome.data.get("written"):
        after_write(outcome)
    return _warned(outcome, prep.warnings)


def _warned(outcome: Outcome, warnings: Sequence[str]) -> Outcome:
    """The outcome with the proposal's prose-secret warnings (already in the preview)."""
    outcome.diagnostics.extend(Diagnostic("safety.prose_secret", "warn", w) for w in warnings)
    return outcome


def _check_numbers(approve: str, count: int) -> None:
    """`A 2` of a one-candidate proposal: the error speaks the terminal's answers, not the
    MCP tool's `approve: "all"`."""
    from engram.proposals.api import approved

    try:
        approved(approve, count)
    except UsageError as exc:
        example = "A 1" if count == 1 else f"A 1,{count}"
        raise UsageError(exc.message, code=exc.code,
                         hint=f"answer A to save all, or A with numbers from 1 to {count} "
                         f"({example}); C cancels") from exc


def _all_deferred_fails(outcome: Outcome) -> Outcome:
    """`--force` that wrote nothing because every candidate was deferred is a failure: a script
    must not read exit 0 as "saved"."""
    if outcome.data.get("written") or not outcome.data.get("deferred"):
        return outcome
    text = (f"{outcome.text}\nerror: nothing was saved: every candidate was deferred; follow "
            "each Action above, then save again")
    return outcome.replace(text=text, ok=False, exit_code=EXIT_ERROR, diagnostics=[
        *outcome.diagnostics, Diagnostic("save.deferred", "error",
                                         "nothing was saved: every candidate was deferred")])


def _answer(args: argparse.Namespace, prep: Prepared, from_stdin: bool,
            text_from_stdin: bool = False) -> tuple[str | None, bool]:
    """The answer, and whether the preview was already shown (at a terminal).

    When stdin carried the memory text it cannot carry the answer too: the answer then comes
    from --answer or, for a person at a terminal, from the terminal itself (/dev/tty)."""
    if args.answer:
        return str(args.answer), False
    if text_from_stdin:
        return _ask_tty(prep, args.json)
    if sys.stdin.isatty() and sys.stdout.isatty() and not args.json:
        # A human at a terminal sees the preview and answers in place.
        sys.stdout.write(terminal_safe(prep.human_preview) + "\n\n")
        return ask_terminal(input), True
    if from_stdin and not sys.stdin.isatty() and _stdin_ready():
        lines = [ln.strip() for ln in sys.stdin.read().splitlines() if ln.strip()]
        if lines and not _is_answer(lines[-1], short=False) and len(prep.candidates) == 1 \
                and lines[-1].lower() not in NATURAL:  # `y` gets parse's own error
            # `echo "Never commit…" | engram save rule "Other text"`: say which is which.
            shown = lines[-1] if len(lines[-1]) <= 60 else f"{lines[-1][:57]}…"
            raise UsageError(
                f"stdin held {shown!r}, which is not an approval answer; the memory text came "
                "from the arguments", code="usage.answer",
                hint="pass the answer with --answer A (A saves, C cancels); to save the piped "
                "text instead, give no text argument: echo \"…\" | engram save rule --answer A")
        return (lines[-1] if lines else None), False
    return None, False


def _ask_tty(prep: Prepared, as_json: bool) -> tuple[str | None, bool]:
    """Ask at the controlling terminal when stdin is a pipe and stdout a terminal; else no
    answer (the caller says to pass --answer)."""
    if as_json or not sys.stdout.isatty():
        return None, False
    try:  # two streams: a terminal cannot be opened "r+" in text mode (not seekable)
        tty_in = Path("/dev/tty").open(encoding="utf-8")  # noqa: SIM115 - closed below
        tty_out = Path("/dev/tty").open("w", encoding="utf-8")  # noqa: SIM115
    except OSError:
        return None, False
    with tty_in, tty_out:
        sys.stdout.write(terminal_safe(prep.human_preview) + "\n\n")
        sys.stdout.flush()

        def ask(prompt: str) -> str:
            tty_out.write(prompt)
            tty_out.flush()
            line = tty_in.readline()
            if not line:
                raise EOFError
            return line

        return ask_terminal(ask), True


def _stdin_ready(timeout: float = STDIN_WAIT_S) -> bool:
    """True when stdin has data or EOF soon: a host that leaves an idle pipe open must not hang
    a save that only wanted an optional piped answer."""
    try:
        fd = sys.stdin.fileno()
    except (OSError, ValueError, io.UnsupportedOperation):
        return True  # an in-memory stream (tests, embedding): reading cannot block
    try:
        ready, _, _ = select.select([fd], [], [], timeout)
    except OSError:  # Windows selects only sockets: read, as a pipe is the usual case there
        return True
    return bool(ready)


def _needs_answer(prep: Prepared, as_json: bool, text_from_stdin: bool = False) -> Outcome:
    if text_from_stdin:
        text = (f"{prep.human_preview}\n\nNothing was saved: approval needed. The text came from "
                f"stdin, so the answer cannot: pass --answer A to save it (\"{ANSWER_HELP}\"), "
                "or rerun with --force once the human approved this exact candidate.")
    else:
        text = (f"{prep.human_preview}\n\nNothing was saved: approval needed. Answer with "
                f"--answer (\"{ANSWER_HELP}\"), or pipe the answer on stdin, or rerun with "
                "--force once the human approved these exact candidates.")
    items = [i.as_dict() for i in prep.items()]
    data = {"items": items, "approval_needed": True}
    if as_json:  # an agent reads this: the preview with its instructions
        data["preview"] = prep.preview
    return Outcome(text=text, data=data, ok=False,
                   exit_code=EXIT_APPROVAL_NEEDED)


def _mining_instruction(level: int, force: bool) -> Outcome:
    flag = " --force" if force else ""
    text = (f"Review at most {level} recent accessible sessions of this project for rules, "
            "skills and knowledge worth keeping; propose only what they actually contain and "
            "never invent history. Then run:\n"
            f"  engram save-session{flag} --query-level {level} < candidates.txt\n"
            "with one pipe-form candidate per line (TYPE: rule | TEXT: …), at most 8.")
    return Outcome(text=text, data={"query_level": level, "candidates": 0})


def _read_file(path: Path) -> str:
    hint = "pass a UTF-8 text file with one candidate per line"
    try:
        data = path.read_bytes()
    except IsADirectoryError as exc:
        raise UsageError(f"cannot read {path}: it is a directory", code="usage.file",
                         hint=hint) from exc
    except FileNotFoundError as exc:
        raise UsageError(f"cannot read {path}: it does not exist", code="usage.file",
                         hint=hint) from exc
    except OSError as exc:
        raise UsageError(f"cannot read {path}: {exc.strerror or exc}", code="usage.file",
                         hint=hint) from exc
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise UsageError(f"cannot read {path}: line {line} is not UTF-8 (byte "
                         f"0x{data[exc.start]:02X})", code="usage.file",
                         hint="save it as UTF-8 (e.g. iconv -f latin1 -t utf-8), one candidate "
                         "per line") from exc
