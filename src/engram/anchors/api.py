"""Staleness for the commands: `engram stale`, load notes, and the counts status reports.

Only workspace memories are anchored: their paths are relative to the repository that holds the
workspace. A global memory serves many repositories, so its paths are not checked.
"""

from __future__ import annotations

from typing import Any

from engram.anchors.check import ORDER, Staleness, check_memory, describe, short, shown_path
from engram.anchors.extract import Anchor, candidates, decode, encode
from engram.anchors.facts import Facts
from engram.anchors.notes import confirmed_day, facts_for
from engram.outcome import Diagnostic, Outcome
from engram.store.hashcache import HashCache
from engram.workspace import Roots

DERIVED = "anchors:1"


def scan(roots: Roots) -> tuple[list[Staleness], Facts | None]:
    """Every active workspace memory with at least one anchor, checked."""
    from engram.search.index import RootIndex

    ws = roots.workspace
    if not ws.exists():
        return [], None
    from engram.search.session import approved_hashes
    from engram.store.ids import is_valid_id

    # Only approved memories are anchored (a file nobody approved is never shown, so its
    # paths and id are not printed either), and the index row must have Engram's shapes.
    approved = approved_hashes(ws, roots.state_dir)
    idx = RootIndex(ws)
    try:
        rows = [r for r in idx.listed() if r.lifecycle == "active" and r.tier != "working"
                and approved.get(r.rel) == r.sha and is_valid_id(r.id)]

        def compute(missing: set[str]) -> dict[str, str]:
            whole = idx.memories_at([r.rel for r in rows if r.sha in missing])
            return {r.sha: encode(candidates(m.body, m.meta)) + "\n@" + confirmed_day(m.meta)
                    for r in rows if r.sha in missing and (m := whole.get(r.rel)) is not None}

        with HashCache(ws.cache_dir, DERIVED) as cache:
            values = cache.derive({r.sha for r in rows}, compute)
    finally:
        idx.close()
    todo: list[tuple[str, str, str, list[Anchor]]] = []
    for row in rows:
        text, _, day = values[row.sha].rpartition("\n@")
        anchors = decode(text)
        if anchors:
            todo.append((row.id, row.rel, day, anchors))
    if not todo:
        return [], None
    facts = facts_for(roots)
    if len(todo) > 200:
        facts.preload()
    checked = [check_memory(facts, mid, rel, day, anchors) for mid, rel, day, anchors in todo]
    return [st for st in checked if st.anchors], facts


def counts(roots: Roots) -> dict[str, int]:
    found, _ = scan(roots)
    out = dict.fromkeys(ORDER, 0)
    out["anchored"] = len(found)
    for st in found:
        if st.state != "ok":
            out[st.state] += 1
    return out


def as_dict(st: Staleness) -> dict[str, Any]:
    return {"id": st.id, "file": st.rel, "state": st.state, "confirmed": st.confirmed,
            "changed_commits": st.changed, "newest_commit": st.newest_commit,
            "newest_date": st.newest_date,
            "anchors": [{"path": a.anchor.label, "state": a.state,
                         "new_path": shown_path(a.new_path) if a.new_path else "",
                         "commit": a.commit, "date": a.date, "detail": a.detail}
                        for a in st.anchors]}


def report(roots: Roots) -> Outcome:
    """`engram stale`: stale memories grouped by state, each with what happened."""
    found, facts = scan(roots)
    stale = [st for st in found if st.state != "ok"]
    groups: dict[str, list[Staleness]] = {s: [] for s in ORDER}
    for st in stale:
        groups[st.state].append(st)
    lines: list[str] = []
    for state in ORDER:
        if not groups[state]:
            continue
        lines.append(f"{state.upper()} ({len(groups[state])})")
        for st in groups[state]:
            lines.append(f"  {st.id}  ({st.rel}, confirmed {st.confirmed or 'never'})")
            for a in st.anchors:
                if a.state != "ok":
                    lines.append(f"    {describe(a)}")
            if st.changed and state == "changed":
                lines.append(f"    {st.changed} commit{'s' if st.changed != 1 else ''} on "
                             f"anchored files since then (newest {short(st.newest_commit)}, "
                             f"{st.newest_date})")
    summary = (f"{len(found)} anchored memories: " + ", ".join(
        f"{len(groups[s])} {s}" for s in ORDER) + f", {len(found) - len(stale)} ok")
    if not found:
        summary = "no workspace memory names a path in this repository"
    lines.append(summary)
    diags = []
    if facts is not None and facts.note:
        lines.append(f"note: {facts.note}")
        diags.append(Diagnostic("stale.partial", "info", facts.note))
    if stale:
        lines.append("next: `engram stale --propose` drafts path fixes; "
                     "`engram confirm <id>` records a re-read memory as still true")
    data = {"counts": {s: len(groups[s]) for s in ORDER} | {"anchored": len(found)},
            "memories": [as_dict(st) for st in stale],
            "git": bool(facts is not None and facts.in_git)}
    return Outcome(text="\n".join(lines), data=data, diagnostics=diags)
