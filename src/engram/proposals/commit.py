"""Writing approved candidates (docs/saving.md): the one path shared by `engram_commit` and
`--force`.

Per target root, under its lock: verdicts are recomputed against the files as they are now
(`plan.plan_root`), compared with the verdicts pinned at proposal time, and only then files
change. Ready candidates are written; a candidate with an unanswered hint, a vanished target or
a verdict that no longer holds is deferred with ID-only guidance (no paths, scores, authors or
bodies); an ADD that became a duplicate is reported as NOOP. Each written candidate is one
`Store.write_files` call, so the changelog says what happened to which file.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date
from typing import Any

from engram.errors import EngramError, InvalidMemoryError
from engram.proposals.author import Author
from engram.proposals.build import merged, new_memory, superseded, to_text
from engram.proposals.candidates import Candidate
from engram.proposals.checks import check_path
from engram.proposals.effects import Effect, done, of_candidate, unlisted
from engram.proposals.plan import PlannedCandidate, plan_root, root_of
from engram.proposals.verdicts import Hint, still_holds
from engram.store.fileio import root_lock
from engram.store.ids import is_valid_id
from engram.store.model import Memory
from engram.store.repo import Change, Store, parse_bytes, sha256_bytes
from engram.workspace import Roots, Scope

PinKey = tuple[int, str]


@dataclass
class CandidateResult:
    """What happened to one candidate in one root."""

    number: int
    scope: Scope
    status: str  # written | deferred | noop
    verdict: str
    id: str
    file: str = ""
    related: list[str] = field(default_factory=list)
    action: str = ""
    reason: str = ""
    after_write: list[str] = field(default_factory=list)  # storage.after_write notes
    effects: list[Effect] = field(default_factory=list)  # what a written candidate changed

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"number": self.number, "scope": self.scope,
                               "status": self.status, "verdict": self.verdict, "id": self.id}
        if self.status == "written":
            out["file"] = self.file
            out["effects"] = [e.as_dict() for e in self.effects]
            if self.after_write:
                out["after_write"] = self.after_write
        if self.status == "deferred":
            out.update(related_ids=self.related, reason=self.reason)
        return out


def apply(roots: Roots, candidates: Sequence[Candidate], scopes: Sequence[Scope], *,
          pins: Mapping[PinKey, Mapping[str, Any]] | None, author: Author, today: date,
          source: str = "manual") -> list[CandidateResult]:
    """Write what is ready. `pins=None` is the force path: the human approved these candidates."""
    results: list[CandidateResult] = []
    for scope in scopes:
        store = Store(root_of(roots, scope), roots.state_dir)
        with root_lock(store.path):
            for p in plan_root(store, scope, candidates):
                pin = None if pins is None else pins.get((p.number, scope))
                results.append(_one(store, p, pin, author, today.isoformat(), source))
    return sorted(results, key=lambda r: (r.number, scopes.index(r.scope)))


def _one(store: Store, p: PlannedCandidate, pin: Mapping[str, Any] | None, author: Author,
         today: str, source: str) -> CandidateResult:
    v = p.verdict
    base = CandidateResult(p.number, p.scope, "deferred", v.label, p.id)
    if v.kind == "NOOP":
        base.status = "noop"
        return base
    if pin is not None and not still_holds(dict(pin), v):
        was = _label(pin)
        base.reason = f"the verdict changed since the proposal ({was} → {v.label})"
        base.related = sorted({x for x in (pin.get("target"), v.target) if x})
        base.action = "propose it again and review the new verdict"
        return base
    if pin is not None and v.kind in {"UPDATE", "SUPERSEDE"} \
            and pin.get("target_sha") != p.target_sha:
        # The human approved a rewrite of the target as it was when proposed, not of this.
        base.reason = f"{v.target} changed since the proposal"
        base.related = [v.target] if v.target else []
        base.action = "review it (engram verify), then propose it again"
        return base
    if pin is not None and pin.get("rel") and v.kind in {"ADD", "SUPERSEDE"} \
            and pin["rel"] != p.rel:
        # The approval named the new memory's file: write that one (a candidate left unticked
        # can free a shorter id), or nothing when a file appeared there since (planted while
        # the dialog was open): never a file nobody was shown.
        wanted = str(pin["rel"])
        if _taken(store, wanted):
            base.reason = f"the new memory's file {wanted} was taken since the proposal"
            base.action = "review that file (engram verify), then propose it again"
            return base
        p = dataclasses.replace(p, id=wanted.rsplit("/", 1)[-1].removesuffix(".md"),
                                rel=wanted)
        base.id = p.id
    if v.blocked:
        base.reason = f"{v.label}: {v.blocked}"
        base.related = [v.target] if v.target else []
        base.action = "propose it again without that target"
        return base
    if v.unanswered:
        base.reason = "related memories need review"
        base.related = [h.id for h in v.unanswered]
        base.action = _action(v.unanswered)
        return base
    old = None
    if v.kind in {"UPDATE", "SUPERSEDE"}:
        old, why = _target(store, p)
        if old is None:
            base.reason = why
            base.related = [v.target] if v.target else []
            base.action = "propose it again and review the new verdict"
            return base
    base.effects = _write(store, p, old, author, today, source)
    base.status, base.file = "written", p.rel
    base.after_write, store.after_write = store.after_write, []
    return base


def _taken(store: Store, rel: str) -> bool:
    """Whether a new memory may not be written at `rel` (a file there, or an archived one with
    its name, or a path that is not a memory path of this root)."""
    stem = rel.rsplit("/", 1)[-1].removesuffix(".md")
    if rel.count("/") != 1 or rel.split("/")[0] not in {"rules", "skills", "knowledge"} \
            or not is_valid_id(stem):
        return True
    try:
        check_path(store.path, rel)
    except EngramError:
        return True
    path = store.path / rel
    archived = {a.rsplit("/", 1)[-1].removesuffix(".md") for a in store.archived_files()}
    return path.exists() or path.is_symlink() or stem in archived


def _target(store: Store, p: PlannedCandidate) -> tuple[Memory | None, str]:
    """The rewrite target parsed from the very bytes whose hash was checked under this lock, or
    why it cannot be rewritten."""
    try:
        data = store.read_bytes(p.target_rel)
        old = parse_bytes(data, p.target_rel, store.root)
    except InvalidMemoryError as exc:
        return None, f"{p.verdict.target} cannot be read: {exc.reason}"
    if old.lifecycle != "active":
        # An earlier candidate of this same commit superseded it: never merge into the past.
        return None, f"{p.verdict.target} was superseded by another candidate of this proposal"
    if sha256_bytes(data) != p.target_sha:
        return None, f"{p.verdict.target} changed while this commit ran"
    return old, ""


def _write(store: Store, p: PlannedCandidate, old: Memory | None, author: Author, today: str,
           source: str) -> list[Effect]:
    """Write one candidate; return its effects. Every file changed must be one of the effects
    the human was shown (effects.py): a change nobody listed is a bug, and is not written."""
    c, v = p.candidate, p.verdict
    check_path(store.path, p.rel)
    listed = of_candidate(p)
    if v.kind == "UPDATE" and old is not None:
        mem = merged(old, c, today)
        changes = [Change(mem.rel_path, to_text(mem))]
        message = f"UPDATE revision {mem.meta.get('revision')} (approved proposal)"
    else:
        supersedes = v.target if v.kind == "SUPERSEDE" else None
        mem = new_memory(c, p.id, p.scope, today, author, source=source, supersedes=supersedes)
        changes = [Change(mem.rel_path, to_text(mem))]
        if supersedes and old is not None:
            gone = superseded(old, mem.id, today)
            changes.append(Change(gone.rel_path, to_text(gone)))
        message = f"{v.label} (approved proposal)"
    missing = unlisted((ch.rel for ch in changes), listed)
    if missing:
        raise EngramError(f"candidate {p.number} would change {', '.join(missing)}, which "
                          "the approval did not show", code="internal.unlisted_effect",
                          hint="nothing was written for it; report this as a bug")
    store.write_files(changes, message)
    return listed


def _action(hints: Sequence[Hint]) -> str:
    deps = ", ".join(h.id for h in hints if h.kind == "suggested dependency")
    dups = [h.id for h in hints if h.kind == "possible duplicate"]
    if not dups:
        return f"rerun with DEPENDS_ON: {deps}"
    if len(dups) == 1 and not deps:
        return f"rerun with DEPENDS_ON: {dups[0]} or UPDATE: {dups[0]}"
    return f"rerun with DEPENDS_ON: {', '.join(x for x in [deps, *dups] if x)} " \
        f"or UPDATE: <one of {', '.join(dups)}>"


def _label(pin: Mapping[str, Any]) -> str:
    kind, target = pin.get("kind"), pin.get("target")
    if kind == "NOOP":
        return f"NOOP duplicate of {target}"
    return f"{kind} {target}" if target else str(kind)


def render_results(results: Sequence[CandidateResult]) -> str:
    """ID-only report: written, NOOP and deferred candidates with what to do next."""
    multi = len({r.scope for r in results}) > 1
    lines: list[str] = []
    for r in results:
        who = f"Candidate {r.number}" + (f" ({r.scope})" if multi else "")
        if r.status == "written":
            lines.append(f"{who}: written ({r.verdict} → {r.id})")
            lines += [f"  {done(e)}" for e in r.effects]
        elif r.status == "noop":
            lines.append(f"{who}: not written ({r.verdict})")
        else:
            lines.append(f"{who}: not written")
            lines.append(f"Reason: {r.reason}")
            if r.related:
                lines.append(f"Related IDs: {', '.join(r.related)}")
                lines.append(f"Inspect: engram load --id {','.join(r.related)}")
            lines.append(f"Action: {r.action}")
    written = sum(r.status == "written" for r in results)
    lines.append(f"{written} written, {sum(r.status == 'deferred' for r in results)} deferred, "
                 f"{sum(r.status == 'noop' for r in results)} unchanged")
    return "\n".join(lines)
