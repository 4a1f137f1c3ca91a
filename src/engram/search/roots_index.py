"""Every root of a resolution at once: `MemoryIndex` (the workspace wins over global on an
id) and `parsed_files` (which files of a root the index parsed cleanly, for `engram verify`).
index.py owns one root's index; this module only combines and asks them.
"""

from __future__ import annotations

import sqlite3

from engram.search.index import RootIndex
from engram.store.model import Memory
from engram.workspace import Root, Roots


class MemoryIndex:
    """All roots of a resolution; the workspace wins over global on an id."""

    def __init__(self, roots: Roots) -> None:
        self.roots = roots
        self.parts = [RootIndex(r) for r in roots.existing()]

    def memories(self) -> list[Memory]:
        seen: set[str] = set()
        out: list[Memory] = []
        for part in self.parts:
            for m in part.memories():
                if m.id not in seen:
                    seen.add(m.id)
                    out.append(m)
        return out

    def get(self, mem_id: str) -> Memory | None:
        for part in self.parts:
            m = part.get(mem_id)
            if m is not None:
                return m
        return None

    def close(self) -> None:
        for p in self.parts:
            p.close()


def parsed_files(root: Root) -> dict[str, str]:
    """{rel: sha256} of the root's files that the index parsed without error, after a refresh
    (`engram verify` skips re-parsing exactly those bytes). A cache: an index that cannot be
    opened or refreshed yields nothing, and verify parses every file itself."""
    try:
        part = RootIndex(root)
    except (OSError, sqlite3.Error):
        return {}
    try:
        part.ensure_fresh()
        return {str(r): str(s) for r, s in part.db.execute(
            "SELECT rel, sha FROM files WHERE error IS NULL AND sha != ''")}
    except (OSError, sqlite3.Error):
        return {}
    finally:
        part.close()
