"""What a commit will change, as data: one `Effect` per memory file it writes, rewrites or removes.

`of_plan` turns the commit plan (`plan.PlannedCandidate` rows) into effects, `of_note` and
`note_removed` do the same for a working note and for the note a promotion deletes. Everything
a human approves from is rendered from these values with `describe` (before) and `done`
(after): the CLI and chat preview (plan.render_preview), the MCP approval dialog
(mcp/elicitation.py) and the `engram_commit` result (commit.render_results). The commit checks
the files it is about to write against the same list (`unlisted`), so a new kind of side effect
cannot reach disk without first reaching the human (docs/safety.md, issue 27 class 1).

Not effects: the bookkeeping every write updates the same way (`changelog.md`,
`memory.hashes.json`, `memory.index.json`, `working/.seals.json`), which records the approved
change and holds no text of its own. Pure: no I/O.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any, Literal, get_args

from engram.safety import printable
from engram.store.ids import title_from_text

if TYPE_CHECKING:
    from engram.proposals.plan import PlannedCandidate
    from engram.workspace import Scope

EffectKind = Literal["new", "updated", "superseded", "note", "note-removed"]
KINDS: tuple[EffectKind, ...] = get_args(EffectKind)
BOOKKEEPING = frozenset({"changelog.md", "memory.hashes.json", "memory.index.json",
                         "working/.seals.json"})
EXCERPT_MAX = 240  # of a memory being rewritten: enough to recognise it; its id names it whole


@dataclass(frozen=True)
class Effect:
    """One file a commit writes or changes, with what a human needs to judge it."""

    kind: EffectKind
    number: int  # the candidate that causes it
    scope: Scope
    type: str
    id: str
    file: str
    title: str = ""  # a memory being rewritten or removed: its title today
    excerpt: str = ""  # … and the start of its content today (approved bytes)
    by: str = ""  # superseded: the new memory that replaces it
    until: str = ""  # a working note: when it expires

    def as_dict(self) -> dict[str, Any]:
        return {k: v for k, v in asdict(self).items() if v != ""}


def of_plan(planned: Iterable[PlannedCandidate]) -> list[Effect]:
    """Every file the plan's writable candidates write or change, in candidate order."""
    return [e for p in planned for e in of_candidate(p)]


def of_candidate(p: PlannedCandidate) -> list[Effect]:
    """What committing one planned candidate changes: nothing for a NOOP or a blocked verdict,
    the merged target for an UPDATE, the new file (and the retired target) otherwise."""
    v, c = p.verdict, p.candidate
    if not v.writable or v.blocked:
        return []
    if v.kind == "UPDATE":
        return [_rewritten("updated", p)]
    out = [Effect("new", p.number, p.scope, c.type, p.id, p.rel, title_from_text(c.text))]
    if v.kind == "SUPERSEDE":
        out.append(_rewritten("superseded", p, by=p.id))
    return out


def _rewritten(kind: EffectKind, p: PlannedCandidate, by: str = "") -> Effect:
    t = p.target
    mid = t.id if t else str(p.verdict.target or p.id)
    return Effect(kind, p.number, p.scope, t.type if t else p.candidate.type, mid,
                  p.target_rel or p.rel, t.title if t else "", _excerpt(t.content) if t else "",
                  by=by)


def of_note(scope: Scope, type_: str, nid: str, file: str, title: str, until: str) -> Effect:
    return Effect("note", 1, scope, type_, nid, file, title, until=until)


def note_removed(scope: Scope, type_: str, nid: str, file: str, title: str) -> Effect:
    """A promotion deletes its working note once something was written."""
    return Effect("note-removed", 1, scope, type_, nid, file, title)


def _excerpt(text: str) -> str:
    flat = " / ".join(ln.strip() for ln in text.splitlines() if ln.strip())
    return flat if len(flat) <= EXCERPT_MAX else flat[: EXCERPT_MAX - 1] + "…"


def describe(e: Effect) -> str:
    """One line saying what approving will do to this file (preview and dialog)."""
    where = f"{e.type} {e.id} ({e.scope}, {e.file})"
    said = f': "{e.title}": {e.excerpt}' if e.excerpt else (f': "{e.title}"' if e.title else "")
    line = {
        "new": f"New: {where}",
        "updated": f"Updates: {where}, merged with this candidate (revision + 1){said}",
        "superseded": f"Retires: {where}, rewritten lifecycle: superseded (superseded_by "
                      f"{e.by}) and gone from every load{said}",
        "note": f"New working note: {where}, valid until {e.until}",
        "note-removed": f"Removes working note: {where}, once the promoted memory is written",
    }[e.kind]
    return printable(line)


def done(e: Effect) -> str:
    """One line saying what the commit did to this file (the result)."""
    verb = {"new": "wrote new", "updated": "updated", "superseded": "superseded",
            "note": "wrote working note", "note-removed": "removed working note"}[e.kind]
    extra = f" (now lifecycle: superseded, superseded_by {e.by})" if e.kind == "superseded" \
        else ""
    return printable(f"{verb} {e.type} {e.id} ({e.scope}, {e.file}){extra}")


def unlisted(changed: Iterable[str], listed: Sequence[Effect]) -> list[str]:
    """Files a write would change that no effect names (bookkeeping aside): must be empty."""
    named = {e.file for e in listed}
    return sorted(f for f in changed if f not in named and f not in BOOKKEEPING)
