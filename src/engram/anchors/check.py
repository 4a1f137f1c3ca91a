"""Decide each anchor's state from repository facts, and summarise a memory. No git calls.

States: `ok` (the path is there), `moved` (git's rename detection found where it went),
`gone` (deleted, or a declared path, glob or symbol that cannot be found); per memory,
`changed` when an anchored file has commits dated after the memory was last confirmed.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import NamedTuple

from engram.anchors.extract import Anchor
from engram.anchors.facts import Facts, glob_tracked

MAX_HOPS = 20
MAX_SYMBOL_FILE = 2_000_000
ORDER = ("gone", "moved", "changed")
GONE_PREFIX = "stale (gone): "


class AnchorState(NamedTuple):
    anchor: Anchor
    state: str  # "ok" | "moved" | "gone"
    new_path: str = ""
    commit: str = ""
    date: str = ""
    detail: str = ""


class Staleness(NamedTuple):
    """One memory's anchors and what happened to them since `confirmed`."""

    id: str
    rel: str
    confirmed: str
    anchors: list[AnchorState]
    changed: int = 0  # commits touching anchored files after `confirmed`
    newest_commit: str = ""
    newest_date: str = ""

    @property
    def state(self) -> str:
        """The worst state: gone, moved, changed, else ok."""
        states = {a.state for a in self.anchors}
        for s in ("gone", "moved"):
            if s in states:
                return s
        return "changed" if self.changed else "ok"


def check_anchor(facts: Facts, a: Anchor) -> AnchorState | None:
    """The anchor's state, or None when a path merely mentioned was never in the repository."""
    if a.kind == "glob":
        found = glob_tracked(facts, a.path)
        return AnchorState(a, "ok") if found else AnchorState(
            a, "gone", detail="no tracked file matches")
    is_tracked = a.kind == "file" and facts.tracked(a.path)
    if a.kind == "dir" or (not is_tracked and facts.tracked_under(a.path)):
        return _check_dir(facts, a)
    if is_tracked:
        if not os.path.isfile(f"{facts.top}/{a.path}"):  # noqa: PTH113 - hot loop
            return AnchorState(a, "gone", detail="deleted in the working tree (not committed)")
        return _symbol(facts, a, a.path) or AnchorState(a, "ok")
    fate = facts.fate(a.path)
    if fate is None:
        if facts.known(a.path):
            return AnchorState(a, "gone", detail="removed from the git index, not committed yet")
        if a.explicit:
            return AnchorState(a, "gone", detail="not in the repository")
        return None
    path, hops = a.path, 0
    while fate is not None and fate.kind == "moved" and hops < MAX_HOPS:
        path, hops = fate.new_path, hops + 1
        if facts.tracked(path):
            moved = AnchorState(a, "moved", path, fate.commit, fate.date)
            return _symbol(facts, a, path) or moved
        fate = facts.fate(path)
    if fate is not None and fate.kind == "deleted":
        return AnchorState(a, "gone", path if path != a.path else "", fate.commit, fate.date)
    return AnchorState(a, "gone", detail="not in the repository")


def _check_dir(facts: Facts, a: Anchor) -> AnchorState | None:
    if facts.tracked_under(a.path):
        return AnchorState(a, "ok")
    fates = facts.fates_under(a.path)
    if not fates:
        return AnchorState(a, "gone", detail="not in the repository") if a.explicit else None
    moved = [f for _, f in fates if f.kind == "moved"]
    if moved and len(moved) == len(fates):
        newest = max(moved, key=lambda f: f.date)
        old_rel = next(p for p, f in fates if f is newest)[len(a.path):].lstrip("/")
        new_dir = newest.new_path[: -len(old_rel)].rstrip("/") if old_rel and \
            newest.new_path.endswith(old_rel) else newest.new_path.rsplit("/", 1)[0]
        return AnchorState(a, "moved", new_dir, newest.commit, newest.date)
    newest = max((f for _, f in fates), key=lambda f: f.date)
    return AnchorState(a, "gone", "", newest.commit, newest.date)


def _symbol(facts: Facts, a: Anchor, path: str) -> AnchorState | None:
    """A `path::symbol` anchor whose symbol is no longer in the file is gone."""
    if not a.symbol:
        return None
    try:
        p = f"{facts.top}/{path}"
        if os.stat(p).st_size > MAX_SYMBOL_FILE:  # noqa: PTH116 - hot loop
            return None
        with open(p, encoding="utf-8", errors="replace") as f:  # noqa: PTH123 - hot loop
            text = f.read()
    except OSError:
        return AnchorState(a, "gone", path, detail="file unreadable")
    if has_word(text, a.symbol):
        return None
    return AnchorState(a, "gone", path if path != a.path else "",
                       detail=f"symbol {a.symbol} not found")


def has_word(text: str, word: str) -> bool:
    """`word` occurs in `text` not as part of a longer identifier (plain search, no regex:
    thousands of distinct symbols would each compile a pattern)."""
    start = text.find(word)
    while start != -1:
        end = start + len(word)
        before = text[start - 1] if start else " "
        after = text[end] if end < len(text) else " "
        if not (_ident(before) or _ident(after)):
            return True
        start = text.find(word, start + 1)
    return False


def _ident(ch: str) -> bool:
    return ch.isalnum() or ch in "_$"


def check_memory(facts: Facts, mid: str, rel: str, confirmed: str,
                 anchors: Sequence[Anchor]) -> Staleness:
    states = [s for s in (check_anchor(facts, a) for a in anchors) if s is not None]
    files: list[str] = []
    for s in states:
        if s.state == "ok" and s.anchor.kind == "file":
            files.append(s.anchor.path)
        elif s.state == "ok" and s.anchor.kind == "glob":
            files += glob_tracked(facts, s.anchor.path)
        elif s.state == "ok":
            files += facts.tracked_under(s.anchor.path)
        elif s.state == "moved" and s.anchor.kind == "file":
            files.append(s.new_path)
    ch = facts.changes_after(files, confirmed)
    return Staleness(mid, rel, confirmed, states, ch.commits, ch.commit, ch.date)


def short(sha: str) -> str:
    return sha[:7]


def _safe(path: str, width: int = 80) -> str:
    """A path as printed for an agent: printable characters only, shortened."""
    text = "".join(c if c.isprintable() and c != "`" else "?" for c in path)
    return text if len(text) <= width else text[: width - 1] + "…"


def shown_path(path: str) -> str:
    """A path from git (or from the cache any workspace writer can rewrite): printed like a
    file name nobody reviewed (docs/safety.md), withheld when a part reads like an instruction."""
    from engram.safety import shown_name

    return _safe(shown_name(path, 80))


def describe(s: AnchorState) -> str:
    """One short sentence on what happened to one anchor."""
    name = f"`{_safe(s.anchor.label)}`"
    when = f" in {short(s.commit)}, {s.date}" if s.commit else ""
    if s.state == "moved":
        return f"{name} was renamed to `{shown_path(s.new_path)}`{when}"
    if s.state == "gone":
        if s.detail.startswith("symbol"):
            return f"{name}: {s.detail}"
        if s.commit:
            return f"{name} was deleted{when}"
        return f"{name}: {s.detail or 'not found'}"
    return f"{name} is unchanged"


def note_line(st: Staleness) -> str:
    """The one line a load shows above a stale memory's body."""
    bad = sorted((a for a in st.anchors if a.state != "ok"), key=lambda a: a.state != "gone")
    if bad:
        more = f" (+{len(bad) - 1} more)" if len(bad) > 1 else ""
        prefix = GONE_PREFIX if bad[0].state == "gone" else "stale: "
        return f"{prefix}{describe(bad[0])}{more}; check before following it"
    return (f"stale: anchored code changed in {st.changed} commit"
            f"{'s' if st.changed != 1 else ''} since this was confirmed on {st.confirmed} "
            f"(newest {short(st.newest_commit)}, {st.newest_date})")
