"""`engram archive --reason "<why>" <id>`: move an active memory to `archive/<YYYY-MM-DD>/`.

The archived copy keeps its body and gets `lifecycle: archived`, `archived_on` and
`archive_reason` in its frontmatter (the reason header), under the same type directory so it still
parses. Removal of the active file and the new archived file are one `write_files` call, so the
hashes and changelog follow. Archiving is the human's explicit act in the CLI: no token. A file
changed by hand since it was approved is refused (archiving would approve the edit).
"""

from __future__ import annotations

from datetime import date

from engram.errors import IntegrityError, NotFoundError, UnsafeContentError, UsageError
from engram.outcome import Outcome
from engram.proposals.build import to_text
from engram.proposals.checks import check_path
from engram.safety import scan_text
from engram.store.fileio import root_lock
from engram.store.ids import validate_id
from engram.store.model import Memory
from engram.store.repo import Change, Store, parse_bytes, sha256_bytes, stores_in
from engram.workspace import Roots

MAX_REASON = 300


def archive(roots: Roots, memory_id: str, reason: str, *, scope: str | None = None,
            today: date) -> Outcome:
    validate_id(memory_id)
    why = " ".join((reason or "").split())
    if not why:
        raise UsageError("an archive needs a reason", code="usage.reason",
                         hint='pass --reason "<why it no longer applies>"')
    if len(why) > MAX_REASON:
        raise UsageError("the reason is too long", code="usage.reason",
                         hint=f"keep it under {MAX_REASON} characters")
    findings = scan_text(why)
    if findings:
        raise UnsafeContentError(f"the reason contains {findings[0].category} "
                                 f"({findings[0].label})", code=f"safety.{findings[0].category}",
                                 hint="write the reason without secrets or instructions")
    for store in stores_in(roots, scope):
        with root_lock(store.path):
            found = _active(store, memory_id)
            if found is None:
                continue
            found = _approved(store, found)
            rel = f"archive/{today.isoformat()}/{found.rel_path}"
            check_path(store.path, rel)
            meta = {**found.meta, "lifecycle": "archived", "archived_on": today.isoformat(),
                    "archive_reason": why}
            moved = Memory(found.id, found.type, found.title, meta, found.body, found.content,
                           rel, found.scope, found.variants, found.schema_version)
            store.write_files([Change(found.rel_path, None), Change(rel, to_text(moved))],
                              f"archived: {why}")
            return Outcome(text=f"archived {memory_id} ({store.root.scope}): {why}",
                           data={"id": memory_id, "scope": store.root.scope, "file": rel})
    raise NotFoundError(f"no active memory {memory_id!r}", code="not_found.memory",
                        hint="find the id with `engram search <words>`")


def _approved(store: Store, found: Memory) -> Memory:
    """The memory parsed from bytes that match memory.hashes.json: archiving rehashes the file,
    so archiving a hand-edited one would approve the edit as a side effect."""
    data = store.read_bytes(found.rel_path)
    if store.approved_hashes().get(found.rel_path) != sha256_bytes(data):
        raise IntegrityError(f"{found.id} was changed by hand since it was approved",
                             code="integrity.target",
                             hint=f"review it (engram verify), run `engram rehash {found.id}` "
                             "or undo the edit, then archive it")
    return parse_bytes(data, found.rel_path, store.root)


def _active(store: Store, memory_id: str) -> Memory | None:
    for m in store.scan(include_notes=False).memories:
        if m.id == memory_id:
            return m
    return None
