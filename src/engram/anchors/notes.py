"""The line a load shows above a stale memory's body. Imports nothing from search/, so the read
path can call it; git is asked only when the cached facts are out of date (facts.py)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from engram.anchors.check import GONE_PREFIX, Staleness, check_memory, note_line
from engram.anchors.extract import Anchor, candidates
from engram.anchors.facts import Facts, open_facts
from engram.store.model import Memory
from engram.workspace import Roots


def confirmed_day(meta: dict[str, Any]) -> str:
    for key in ("last_confirmed", "updated", "created"):
        value = meta.get(key)
        if value:
            return str(value)[:10]
    return ""


def facts_for(roots: Roots) -> Facts:
    ws = roots.workspace
    return open_facts(roots.project, ws.cache_dir if ws.exists() else None)


def check(facts: Facts, m: Memory, anchors: Sequence[Anchor] | None = None) -> Staleness:
    found = candidates(m.body, m.meta) if anchors is None else anchors
    return check_memory(facts, m.id, m.rel_path, confirmed_day(m.meta), found)


def load_notes(roots: Roots, memories: Sequence[Memory]) -> dict[str, str]:
    """`{memory key: one line}` for the stale workspace memories among `memories`."""
    anchored = [(m, candidates(m.body, m.meta)) for m in memories
                if m.scope == "workspace" and not m.is_note]
    anchored = [(m, a) for m, a in anchored if a]
    if not anchored:
        return {}
    facts = facts_for(roots)
    notes = {}
    for m, found in anchored:
        st = check(facts, m, found)
        if st.state != "ok":
            notes[m.key] = note_line(st)
    return notes




def demote_gone(memories: list[Memory], raws: list[str],
                notes: dict[str, str]) -> tuple[list[Memory], list[str]]:
    """Memories describing deleted code go after the others, unless another memory of the pack
    depends on them (a prerequisite keeps its place before its dependant)."""
    gone = {k for k, line in notes.items() if line.startswith(GONE_PREFIX)}
    if not gone:
        return memories, raws
    needed = {d for m in memories for d in m.depends_on}
    pairs = list(zip(memories, raws, strict=True))
    keep = [p for p in pairs if p[0].key not in gone or p[0].id in needed]
    last = [p for p in pairs if p[0].key in gone and p[0].id not in needed]
    ordered = keep + last
    return [m for m, _ in ordered], [r for _, r in ordered]
