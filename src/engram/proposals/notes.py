"""Working-tier notes (docs/saving.md): short task notes under `working/`, with a time to live.

A note's text is redacted (secrets and personal data replaced by placeholders) and stripped of
instruction-like lines before its preview; a note with nothing left is refused. It gets an id no
durable, archived or other note file of its root uses, so writing a note can never touch a
durable memory. `valid_until` = today + `load.working_ttl_days`. Every note is sealed when
written (an HMAC under the user's key over its root, path and bytes, in
`working/.seals.json`, store/seal.py): `working/` is git-ignored, so a file nobody approved
could otherwise land there. Only sealed
notes are listed, found or promoted; `prune` removes expired notes and every unsealed file of
`working/`. `find` serves `engram promote`, which makes a note durable through a normal
proposal. Visibility of notes in load is the read path's business (it checks the same seal).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date, timedelta
from typing import Any, NamedTuple

from engram.errors import InvalidMemoryError, NotFoundError, StorageError, UsageError
from engram.outcome import Outcome
from engram.proposals.approvals import ensure_ignored
from engram.proposals.candidates import MAX_TEXT_CHARS
from engram.proposals.checks import check_note, clean_note
from engram.proposals.effects import Effect, describe, done, note_removed, of_note
from engram.proposals.plan import root_of, target_scopes, view
from engram.safety import printable
from engram.store.fileio import root_lock
from engram.store.format import render_memory
from engram.store.ids import slugify, title_from_text, unique_id, validate_id
from engram.store.model import AUTHORITY, TYPE_ALIASES, Memory
from engram.store.repo import NOTE_DIR, Change, Store, parse_bytes
from engram.store.seal import NOTE_SEALS, note_seal, read_note_seals, render_note_seals, user_key
from engram.workspace import Root, Roots, Scope


@dataclass(frozen=True)
class NotePrep:
    id: str
    title: str
    type: str
    scope: Scope
    valid_until: str
    payload: dict[str, Any]
    preview: str
    effect: Effect


def prepare_note(roots: Roots, text: str, *, objective: str | None, type: str | None,
                 scope: str | None, today: date) -> NotePrep:
    if not text or not text.strip():
        raise UsageError("the note text is empty", code="note.empty", hint="give the note text")
    if len(text) > MAX_TEXT_CHARS:
        raise UsageError(f"the note is {len(text)} characters long", code="note.value",
                         hint=f"keep notes under {MAX_TEXT_CHARS} characters")
    mtype = TYPE_ALIASES.get((type or "knowledge").strip().lower())
    if mtype is None:
        raise UsageError(f"unknown type {type!r}", code="candidate.type",
                         hint="use rule, skill (or workflow) or knowledge")
    check_note(text, objective)
    clean, redacted, removed = clean_note(text)
    goal = clean_note(objective)[0].strip() if objective else ""
    if not clean.strip():
        raise UsageError("nothing is left of the note after removing instruction-like lines",
                         code="note.refused", hint="write the note as plain task facts")
    scopes = target_scopes(roots, scope)
    where: Scope = "global" if scopes == ["global"] else "workspace"
    ttl = roots.settings().int("load.working_ttl_days")
    valid_until = (today + timedelta(days=ttl)).isoformat()
    store = Store(root_of(roots, where))
    title = title_from_text(clean)
    nid = unique_id(slugify(title) or "note", view(store, frozenset(), include_notes=True).taken)
    payload = {"id": nid, "text": clean.strip(), "objective": goal, "type": mtype,
               "scope": where, "valid_until": valid_until}
    effect = of_note(where, mtype, nid, f"{NOTE_DIR}/{nid}.md", title, valid_until)
    lines = [f"Working note (nothing is saved yet) → {where} {NOTE_DIR}/{nid}.md, "
             f"valid until {valid_until}", f"    {describe(effect)}", "",
             *[f"    {ln}" for ln in clean.strip().splitlines()]]
    if goal:
        lines.append(f"    Objective: {goal}")
    if redacted or removed:
        lines.append(f"Redacted {redacted} secret or personal value(s); removed {removed} "
                     "instruction-like line(s).")
    lines.append("Show this note to the human; save it only after they answer yes.")
    return NotePrep(nid, title, mtype, where, valid_until, payload,
                    printable("\n".join(lines), keep_lines=True), effect)


def commit_note(roots: Roots, payload: dict[str, Any], *, today: date) -> Outcome:
    """Write an approved note; a new id is chosen if its id was taken since the preview."""
    scope: Scope = "global" if payload.get("scope") == "global" else "workspace"
    store = Store(root_of(roots, scope))
    with root_lock(store.path):
        ensure_ignored(store.root)  # working/ must never reach git, even without `engram init`
        taken = view(store, frozenset(), include_notes=True).taken
        nid = unique_id(validate_id(str(payload["id"])), taken)
        rel = f"{NOTE_DIR}/{nid}.md"
        text = note_text(payload, nid, today)
        seals = read_note_seals(store.path)
        seals[rel] = note_seal(_key(roots), store.path, rel, text.encode("utf-8"))
        # The seal first: a reader never meets the note before its seal.
        store.write_files([Change(NOTE_SEALS, render_note_seals(seals)), Change(rel, text)],
                          "working note")
    valid_until = str(payload["valid_until"])
    effect = of_note(scope, str(payload.get("type") or "knowledge"), nid, rel,
                     title_from_text(str(payload["text"])), valid_until)
    text = f"Saved working note {nid} (valid until {valid_until}).\n  {done(effect)}"
    return Outcome(text=text, data={"id": nid, "file": rel, "valid_until": valid_until,
                                    "effects": [effect.as_dict()]})


def note_text(payload: dict[str, Any], nid: str, today: date) -> str:
    mtype = str(payload.get("type") or "knowledge")
    meta: dict[str, Any] = {
        "authority": AUTHORITY.get(mtype, "reference"), "confidence": "medium",
        "created": today.isoformat(), "id": nid, "scope": payload.get("scope", "workspace"),
        "source": "note", "tier": "working", "type": mtype, "updated": today.isoformat(),
        "valid_from": today.isoformat(), "valid_until": payload["valid_until"], "revision": 1,
    }
    if payload.get("objective"):
        meta["objective"] = payload["objective"]
    text = str(payload["text"])
    return render_memory(meta, title_from_text(text), text)


def _key(roots: Roots) -> bytes:
    return user_key(roots.state_dir, roots.project)


@dataclass
class Working:
    """What `working/` of one root holds: sealed notes and everything else."""

    root: Root
    notes: list[Memory] = field(default_factory=list)
    unsealed: list[str] = field(default_factory=list)  # rel paths Engram did not write
    seals: dict[str, str] = field(default_factory=dict)


def working(roots: Roots, root: Root) -> Working:
    """Sort a root's `working/` into notes whose seal verifies and files nobody approved."""
    import hmac

    store = Store(root)
    out = Working(root, seals=read_note_seals(root.path))
    try:
        names = sorted(p.name for p in root.working_dir.iterdir())
    except OSError:
        return out
    key = _key(roots) if names else b""
    for name in names:
        rel = f"{NOTE_DIR}/{name}"
        if rel == NOTE_SEALS or name.startswith(".engram-tmp-"):
            continue
        try:
            data = store.read_bytes(rel)
            sealed = hmac.compare_digest(out.seals.get(rel, ""),
                                         note_seal(key, root.path, rel, data))
            # Parsed from the very bytes whose seal verified, never from a second read.
            note = parse_bytes(data, rel, root) if sealed and name.endswith(".md") else None
        except (InvalidMemoryError, StorageError):
            note = None
        if note is not None and note.is_note:
            out.notes.append(note)
        elif not (root.working_dir / name).is_dir() or (root.working_dir / name).is_symlink():
            out.unsealed.append(rel)
    return out


def all_notes(roots: Roots) -> list[Memory]:
    """Every sealed note of every root (files Engram did not write are not notes)."""
    return survey(roots)[0]


def survey(roots: Roots) -> tuple[list[Memory], list[str]]:
    """Sealed notes of every root, and the `<scope>:working/<name>` files Engram did not write."""
    found: list[Memory] = []
    unsealed: list[str] = []
    for root in roots.existing():
        w = working(roots, root)
        found += w.notes
        unsealed += [f"{root.scope}:{rel}" for rel in w.unsealed]
    return sorted(found, key=lambda m: (m.scope, m.id)), unsealed


def expired(note: Memory, today: date) -> bool:
    return bool(note.valid_until) and str(note.valid_until) < today.isoformat()


@dataclass
class Pruned:
    expired: list[Memory] = field(default_factory=list)
    unsealed: list[str] = field(default_factory=list)  # "<scope>:working/<name>"


def prune(roots: Roots, today: date) -> Pruned:
    """Delete expired notes and every file of `working/` Engram did not write (or that was
    changed since); drop seals of files that are gone. Returns what was removed."""
    out = Pruned()
    for root in roots.existing():
        store = Store(root)
        with root_lock(store.path):
            w = working(roots, root)
            old = [n for n in w.notes if expired(n, today)]
            keep = {n.rel_path for n in w.notes} - {n.rel_path for n in old}
            changes = [Change(rel, None) for rel in [*(n.rel_path for n in old), *w.unsealed]]
            seals = {rel: v for rel, v in w.seals.items() if rel in keep}
            if seals != w.seals:
                changes.append(Change(NOTE_SEALS, render_note_seals(seals)))
            if changes:
                store.write_files(changes, "pruned working notes")
        out.expired += old
        out.unsealed += [f"{root.scope}:{rel}" for rel in w.unsealed]
    return out


def find(roots: Roots, note_id: str) -> Memory:
    validate_id(note_id)
    for note in all_notes(roots):
        if note.id == note_id:
            return note
    raise NotFoundError(f"no working note {note_id!r}", code="not_found.note",
                        hint="list notes with `engram notes`")


def remove_note(roots: Roots, note_id: str) -> Effect:
    """Delete a promoted note; returns what was removed (effects.note_removed)."""
    note = find(roots, note_id)
    root = roots.root(note.scope)
    if root is not None:
        store = Store(root)
        with root_lock(store.path):
            seals = read_note_seals(store.path)
            seals.pop(note.rel_path, None)
            store.write_files([Change(note.rel_path, None),
                               Change(NOTE_SEALS, render_note_seals(seals))],
                              f"promoted note {note_id}")
    return note_removed(note.scope, note.type, note.id, note.rel_path, note.title)


class Promotion(NamedTuple):
    """What promoting a note proposes: its text, type and objective as the context. Both flows
    (`engram promote` and the token flow, `api.propose_promotion`) take it from here."""

    text: str
    type: str
    context: str | None


def promotion(note: Memory) -> Promotion:
    return Promotion(note.content, note.type, str(note.meta.get("objective") or "") or None)
