"""The write path's public API, called by the CLI and the MCP server (docs/ARCHITECTURE.md).

    propose(roots, candidates, …)  -> Proposal      checks, verdicts, preview, approval token
    commit(roots, token, approve)  -> Outcome       writes through commit.apply (same as --force)
    decline(roots, token)          -> None          dialog decline: later commits fail clearly
    save_now(roots, candidates, …) -> Outcome       `--force` / a human's answer in the CLI
    propose_note(roots, text, …)   -> Proposal      working-tier note (notes.py)
    set_role / set_rule_variant    -> Outcome       engram/settings.py (re-exported)

Nothing here prints or knows exit codes. A proposal never writes a memory; only `commit` and
`save_now` do, and both go through `commit.apply`.
"""

from __future__ import annotations

import contextlib
import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import date
from typing import Any

from engram.clock import Clock
from engram.clock import today as utc_today
from engram.config import normalise_roles
from engram.errors import IntegrityError, NotFoundError, UsageError
from engram.outcome import Diagnostic, Outcome
from engram.proposals import notes
from engram.proposals.approvals import PendingApprovals
from engram.proposals.author import git_author
from engram.proposals.candidates import Candidate, parse_candidates
from engram.proposals.checks import check_candidates, prose_warnings
from engram.proposals.codewords import code_of
from engram.proposals.commit import CandidateResult, apply, render_results
from engram.proposals.effects import Effect, done, note_removed, of_plan
from engram.proposals.plan import (
    AGENT_NOTE,
    PlannedCandidate,
    human_preview,
    plan,
    render_preview,
    target_scopes,
)
from engram.proposals.shown import candidate_lines
from engram.proposals.verdicts import Kind
from engram.settings import set_role, set_rule_variant
from engram.store.ids import title_from_text
from engram.store.repo import AFTER_WRITE
from engram.workspace import Roots, Scope

__all__ = ["Item", "Prepared", "Proposal", "ScopedKind", "commit", "decline", "prepare",
           "propose", "propose_note", "propose_promotion", "save_now", "set_role",
           "set_rule_variant"]
Approve = str | Sequence[int]
NEW_FILE = frozenset({"ADD", "SUPERSEDE"})  # verdicts that write a new memory file
ScopedKind = tuple[Scope, Kind]  # one target root's verdict kind, e.g. ("global", "UPDATE")


@dataclass(frozen=True)
class Item:
    number: int
    verdict: str
    id: str
    title: str
    writable: bool
    type: str = ""
    ready: bool = True
    # What the human approves: the text and every other field written (proposals/shown.py);
    # the approval dialog shows it whole.
    text: str = ""
    # The verdict as data, one entry per target root, built from the same rows as `verdict`
    # (its display text): the approval dialog reads these, never the text.
    parts: tuple[ScopedKind, ...] = ()
    # Every file approving this candidate writes or changes (effects.py), which the dialog
    # renders in full: the new memory, a memory it updates or retires, a note it removes.
    effects: tuple[Effect, ...] = ()

    def as_dict(self) -> dict[str, Any]:
        """The item on the wire (`--json`, MCP `data.items`): `parts` stays in-process."""
        out = {k: v for k, v in dataclasses.asdict(self).items()
               if k not in {"parts", "effects"}}
        out["effects"] = [e.as_dict() for e in self.effects]
        return out


@dataclass(frozen=True)
class Prepared:
    """A checked, planned proposal before any token exists (the CLI asks its human here)."""

    candidates: list[Candidate]
    scopes: list[Scope]
    planned: list[PlannedCandidate]
    preview: str
    query_level: int | None = None
    warnings: tuple[str, ...] = ()  # safety.prose_secret, already in the preview
    also: tuple[Effect, ...] = ()  # effects beyond the plan's own (a promoted note's removal)

    def effects(self) -> list[Effect]:
        """Everything committing this proposal writes or changes, in candidate order."""
        return sorted([*of_plan(self.planned), *self.also], key=lambda e: e.number)

    def items(self) -> list[Item]:
        out = []
        every = self.effects()
        for c in self.candidates:
            rows = [p for p in self.planned if p.number == c.number]
            multi = len(rows) > 1
            label = "; ".join(f"{p.scope}: {p.verdict.label}" if multi else p.verdict.label
                              for p in rows)
            out.append(Item(c.number, label, rows[0].id, title_from_text(c.text),
                            any(p.verdict.writable for p in rows), c.type,
                            all(p.verdict.ready or not p.verdict.writable for p in rows),
                            "\n".join(candidate_lines(c)),
                            tuple((p.scope, p.verdict.kind) for p in rows),
                            tuple(e for e in every if e.number == c.number)))
        return out

    @property
    def human_preview(self) -> str:
        """The preview for a person at a terminal (no instructions for agents)."""
        return human_preview(self.preview)

    def pins(self) -> list[dict[str, Any]]:
        # A new file's path too: the commit writes the file the approval named, or nothing.
        return [{"number": p.number, "scope": p.scope, **p.verdict.pin(),
                 **({"target_sha": p.target_sha} if p.target_sha else {}),
                 **({"rel": p.rel} if p.verdict.kind in NEW_FILE else {})}
                for p in self.planned]


@dataclass(frozen=True)
class Proposal:
    token: str
    preview: str
    items: list[Item]
    kind: str = "save"
    data: dict[str, Any] = dataclasses.field(default_factory=dict)

    def outcome(self) -> Outcome:
        text = (f"{self.preview}\n\napproval_token: {self.token} (single use, expires in 30 "
                "minutes)\nAfter the human approves: engram_commit {approval_token, approve: "
                '"all" or [numbers]}.')
        words = code_of(self.token)
        if words:
            text += (f" Tell the human this proposal's words, {words.replace('-', ' ')}: the "
                     "host's prompt to allow engram_commit shows the token, which starts with "
                     "them.")
        data = {"approval_token": self.token, "kind": self.kind,
                "items": [i.as_dict() for i in self.items], **self.data}
        return Outcome(text=text, data=data)


def prepare(roots: Roots, candidates: str | Sequence[Mapping[str, Any]], *,
            scope: str | None = None, query_level: int | None = None, type: str | None = None,
            role: str | Sequence[str] | None = None, context: str | None = None,
            single: bool = False, promote: str | None = None) -> Prepared:
    """Parse, run every write-time check, compute verdicts and the preview. Writes nothing.

    `promote` names the working note the commit removes (shown as one more effect)."""
    if query_level is not None and (isinstance(query_level, bool)
                                    or not isinstance(query_level, int) or query_level < 1):
        raise UsageError(f"query_level {query_level!r} is not a positive number of sessions",
                         code="usage.query_level", hint="pass a positive integer such as 50")
    parsed = parse_candidates(candidates, default_type=type, single=single)
    roles = normalise_roles([role] if isinstance(role, str) else role or ())
    if roles or context:
        parsed = [dataclasses.replace(
            c, role=c.role or tuple(roles),
            context=c.context or (context or "").strip()) for c in parsed]
    if any(c.source_files for c in parsed):
        from engram.adopt.sources import with_hashes

        parsed = with_hashes(roots.project, parsed)
    check_candidates(parsed, allow_emails=[git_author(roots.project).email])
    scopes = target_scopes(roots, scope)
    planned = plan(roots, parsed, scopes)
    for c in parsed:
        rows = [p for p in planned if p.number == c.number]
        if all(p.verdict.blocked for p in rows):
            v = rows[0].verdict
            if rows[0].target_rel:  # the target exists but may not be rewritten
                raise IntegrityError(f"candidate {c.number}: {v.kind} {v.target}: {v.blocked}",
                                     code="integrity.target",
                                     hint="nothing was saved; approve or undo the hand edit "
                                     "first, then propose again")
            raise UsageError(f"candidate {c.number}: no active memory {v.target!r} to "
                             f"{v.kind.lower()}", code="candidate.target",
                             hint="check the id with `engram search`, or drop UPDATE/SUPERSEDES")
    also = _promoted(roots, promote)
    preview = render_preview(planned, query_level=query_level, also=also)
    warnings = tuple(prose_warnings(parsed))
    if warnings:  # before the agent note, which human_preview cuts off the end
        shown = "".join(f"\n\nWarning (safety.prose_secret): {w}" for w in warnings)
        body, sep, note = preview.rpartition("\n\n" + AGENT_NOTE)
        preview = body + shown + sep + note if sep else preview + shown
    return Prepared(parsed, scopes, planned, preview, query_level, warnings, also)


def _promoted(roots: Roots, note_id: str | None) -> tuple[Effect, ...]:
    if note_id is None:
        return ()
    note = notes.find(roots, note_id)
    return (note_removed(note.scope, note.type, note.id, note.rel_path, note.title),)


def propose(roots: Roots, candidates: str | Sequence[Mapping[str, Any]], *,
            scope: str | None = None, query_level: int | None = None, type: str | None = None,
            role: str | Sequence[str] | None = None, context: str | None = None,
            single: bool = False, source: str = "manual", clock: Clock | None = None,
            promote: str | None = None) -> Proposal:
    """Check and preview candidates and mint their approval token. Writes no memory.

    `promote` names a working note that the commit deletes once something was written.
    """
    prep = prepare(roots, candidates, scope=scope, query_level=query_level, type=type,
                   role=role, context=context, single=single, promote=promote)
    token = PendingApprovals(roots, clock).mint(
        "save", list(prep.scopes), [c.to_dict() for c in prep.candidates], prep.pins(),
        {"source": source, "query_level": query_level, "promote": promote})
    return Proposal(token, prep.preview, prep.items())


def propose_promotion(roots: Roots, note_id: str, *, scope: str | None = None,
                      clock: Clock | None = None) -> Proposal:
    """`engram promote` in the token flow: the note's text as a normal proposal."""
    note = notes.find(roots, note_id)
    what = notes.promotion(note)
    return propose(roots, what.text, scope=scope, type=what.type, context=what.context,
                   single=True, clock=clock, promote=note.id)


def commit(roots: Roots, token: str, approve: Approve = "all", scope: str | None = None, *,
           human_note: str | None = None, clock: Clock | None = None) -> Outcome:
    """Validate the token, write what is ready; the token is used up only if something was."""
    pending = PendingApprovals(roots, clock)
    entry = pending.claim(token)
    wrote = False
    try:
        if entry.kind == "note":
            outcome = notes.commit_note(roots, entry.candidates[0], today=_today(clock))
            wrote = True
            return outcome
        candidates = [Candidate.from_dict(d) for d in entry.candidates]
        scopes = narrow(entry.scopes, scope)
        pins = {(int(p["number"]), str(p["scope"])): p for p in entry.pins}
        results = _apply(roots, candidates, scopes, approve, pins, human_note,
                         str(entry.extra.get("source") or "manual"), clock)
        wrote = any(r.status == "written" for r in results)
        outcome = results_outcome(results)
        promoted = entry.extra.get("promote")
        if wrote and isinstance(promoted, str):
            with contextlib.suppress(NotFoundError):  # already removed by another promote
                gone = notes.remove_note(roots, promoted)
                outcome.data["removed_note"] = promoted
                outcome.data["written"][0].setdefault("effects", []).append(gone.as_dict())
                outcome = outcome.replace(text=f"{outcome.text}\n  {done(gone)}")
        return outcome
    finally:
        pending.settle(token, used=wrote)


def save_now(prep: Prepared, roots: Roots, approve: Approve = "all", *,
             human_note: str | None = None, pinned: bool = False, source: str = "manual",
             clock: Clock | None = None) -> Outcome:
    """Write a prepared proposal a human approved right now (CLI answer or --force).

    `pinned=True` (an interactive answer) defers candidates whose verdict changed since the
    preview; `--force` recomputes freely, as the human approved these exact candidates.
    """
    pins = {(p["number"], p["scope"]): p for p in prep.pins()} if pinned else None
    results = _apply(roots, prep.candidates, prep.scopes, approve, pins, human_note, source,
                     clock)
    return results_outcome(results)


def decline(roots: Roots, token: str, *, clock: Clock | None = None) -> None:
    PendingApprovals(roots, clock).decline(token)


def propose_note(roots: Roots, text: str, *, objective: str | None = None,
                 type: str | None = None, scope: str | None = None,
                 clock: Clock | None = None) -> Proposal:
    prep = notes.prepare_note(roots, text, objective=objective, type=type, scope=scope,
                              today=_today(clock))
    token = PendingApprovals(roots, clock).mint("note", [prep.scope], [prep.payload],
                                                          [], {})
    goal = str(prep.payload.get("objective") or "")  # written too: the dialog shows it
    item = Item(1, "NOTE", prep.id, prep.title, True, prep.type,
                text=str(prep.payload.get("text", "")) + (f"\nObjective: {goal}" if goal else ""),
                parts=((prep.scope, "ADD"),), effects=(prep.effect,))
    return Proposal(token, prep.preview, [item], kind="note",
                    data={"id": prep.id, "valid_until": prep.valid_until})


def _apply(roots: Roots, candidates: Sequence[Candidate], scopes: Sequence[Scope],
           approve: Approve, pins: Mapping[tuple[int, str], Mapping[str, Any]] | None,
           human_note: str | None, source: str, clock: Clock | None) -> list[CandidateResult]:
    chosen = [c for c in candidates if c.number in approved(approve, len(candidates))]
    if human_note and human_note.strip():
        extra = f"Human note: {human_note.strip()}"
        chosen = [dataclasses.replace(c, context=f"{c.context} {extra}".strip()) for c in chosen]
        check_candidates(chosen)
    author = git_author(roots.project)
    return apply(roots, chosen, scopes, pins=pins, author=author, today=_today(clock),
                 source=source)


def results_outcome(results: Sequence[CandidateResult]) -> Outcome:
    data = {
        "written": [r.as_dict() for r in results if r.status == "written"],
        "deferred": [r.as_dict() for r in results if r.status == "deferred"],
        "noop": [r.as_dict() for r in results if r.status == "noop"],
    }
    notes = [(r, n) for r in results for n in r.after_write]
    text = render_results(results)
    if notes:  # the write stands: said after the results, as a warning, never as a failure
        text = text.rstrip("\n") + "\n" + "".join(
            f"Candidate {r.number}: {n}\n" for r, n in notes)
    return Outcome(text=text, data=data, diagnostics=[
        Diagnostic(AFTER_WRITE, "warn", f"candidate {r.number}: {n}") for r, n in notes])


def approved(approve: Approve, count: int) -> set[int]:
    """"all", "1,3" or [1, 3] → the set of candidate numbers, each checked against 1..count."""
    if isinstance(approve, str):
        if approve.strip().lower() in {"all", "a", ""}:
            return set(range(1, count + 1))
        parts = [p for p in approve.replace(" ", ",").split(",") if p]
    else:
        parts = [str(p) for p in approve]
    numbers: set[int] = set()
    for part in parts:
        if not part.isdigit() or not 1 <= int(part) <= count:
            raise UsageError(f"no candidate {part!r} in this proposal", code="usage.approve",
                             hint=f'approve "all" or numbers from 1 to {count}')
        numbers.add(int(part))
    if not numbers:
        raise UsageError("no candidate approved", code="usage.approve",
                         hint='approve "all" or a list of candidate numbers')
    return numbers


def narrow(scopes: Sequence[str], scope: str | None) -> list[Scope]:
    """A commit may narrow `both` to one root, never widen the proposal's scopes."""
    if scope is None or scope == "both" and len(scopes) == 2:
        return [s for s in ("workspace", "global") if s in scopes]
    if scope not in scopes:
        raise UsageError(f"scope {scope!r} was not part of this proposal",
                         code="usage.scope", hint="a commit may narrow the scope, never widen it")
    return [scope]  # type: ignore[list-item]


def _today(clock: Clock | None) -> date:
    return utc_today(clock)
