"""`engram confirm <id>`: a human re-read a memory and says it still holds.

It sets `last_confirmed` to today through the one write path (hashes and changelog follow), so
changed-since-confirmed starts counting again from today. Like `engram archive` it is the human's
explicit act in the CLI. It never approves a hand edit on the side: a file whose bytes differ
from its approved hash is refused (review it, then `engram rehash`).
"""

from __future__ import annotations

from datetime import date

from engram.errors import IntegrityError, InvalidMemoryError, NotFoundError, StorageError
from engram.outcome import Outcome
from engram.proposals.build import to_text
from engram.store.fileio import root_lock
from engram.store.ids import validate_id
from engram.store.model import TYPE_DIR, Memory
from engram.store.repo import Change, Store, parse_bytes, sha256_bytes, stores_in
from engram.workspace import Roots


def confirm(roots: Roots, memory_id: str, *, scope: str | None = None,
            today: date) -> Outcome:
    validate_id(memory_id)
    for store in stores_in(roots, scope):
        with root_lock(store.path):
            found = _find(store, memory_id)
            if found is None:
                continue
            memory, data = found
            approved = store.approved_hashes().get(memory.rel_path)
            if approved != sha256_bytes(data):
                raise IntegrityError(
                    f"{memory.rel_path} changed since it was approved; confirming it would "
                    "approve that edit unseen", code="integrity.mismatch",
                    hint="review the file (engram verify), then run `engram rehash "
                         f"{memory_id}` if the edit is right, and confirm again")
            day = today.isoformat()
            if str(memory.meta.get("last_confirmed") or "") == day:
                return Outcome(text=f"{memory_id} was already confirmed today ({day})",
                               data={"id": memory_id, "scope": store.root.scope,
                                     "last_confirmed": day, "written": False})
            meta = {**memory.meta, "last_confirmed": day}
            store.write_files([Change(memory.rel_path, to_text(memory._replace(meta=meta)))],
                              f"confirmed: {memory_id} re-read and still true")
            return Outcome(text=f"confirmed {memory_id} ({store.root.scope}): last_confirmed {day}",
                           data={"id": memory_id, "scope": store.root.scope, "last_confirmed": day,
                                 "written": True})
    raise NotFoundError(f"no active memory {memory_id!r}", code="not_found.memory",
                        hint="find the id with `engram search <words>`")


def _find(store: Store, memory_id: str) -> tuple[Memory, bytes] | None:
    """The active durable memory with this id: its usual file first, then every file."""
    rels = [f"{d}/{memory_id}.md" for d in TYPE_DIR.values()]
    rels += [r for r in store.memory_files(include_notes=False) if r not in rels]
    for rel in rels:
        if not (store.path / rel).is_file():
            continue
        try:
            data = store.read_bytes(rel)
            m = parse_bytes(data, rel, store.root)
        except (InvalidMemoryError, StorageError):
            continue  # an unreadable file is not the one asked for
        if m.id == memory_id and m.lifecycle == "active":
            return m, data
    return None
