"""Generated git repositories for the staleness benchmark, written with `git fast-import`.

`History` collects commits (adds, edits, renames, deletions, each with a date) and writes them
in one fast-import stream, then checks the tree out; a 100,000-file, 5,000-commit repository
takes seconds. Memories for it are written in one batch through the store's write path.
"""

from __future__ import annotations

import subprocess
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from engram.store.format import render_memory
from engram.store.repo import Change, Store
from engram.workspace import ROOT_REL, Root


def _epoch(day: str, seq: int = 0) -> int:
    base = datetime.strptime(day, "%Y-%m-%d").replace(tzinfo=UTC)
    return int(base.timestamp()) + 60 * (seq % 1000)


class History:
    def __init__(self) -> None:
        self.commits: list[tuple[str, list[str]]] = []

    def commit(self, day: str, ops: Sequence[tuple[str, ...]]) -> None:
        """ops: ("M", path, text) | ("D", path) | ("R", old, new)."""
        lines = []
        for op in ops:
            if op[0] == "M":
                data = op[2].encode()
                lines.append(f"M 100644 inline {op[1]}\ndata {len(data)}\n{op[2]}")
            elif op[0] == "D":
                lines.append(f"D {op[1]}")
            else:
                lines.append(f"R {op[1]} {op[2]}")
        self.commits.append((day, lines))

    def write(self, path: Path) -> None:
        path.mkdir(parents=True, exist_ok=True)
        subprocess.run(["git", "init", "-q", "-b", "main", str(path)], check=True)
        chunks = []
        for i, (day, lines) in enumerate(self.commits):
            msg = f"change {i}"
            chunks.append(f"commit refs/heads/main\ncommitter Bench <bench@example.com> "
                          f"{_epoch(day, i)} +0000\ndata {len(msg)}\n{msg}\n"
                          + "".join(f"{ln}\n" for ln in lines))
        stream = "".join(chunks).encode()
        subprocess.run(["git", "-C", str(path), "fast-import", "--quiet"], input=stream,
                       check=True)
        subprocess.run(["git", "-C", str(path), "reset", "-q", "--hard", "main"], check=True)


def write_memories(project: Path, items: Sequence[tuple[str, str, dict[str, Any]]]) -> None:
    """(id, content, extra frontmatter) as knowledge memories of the project's workspace."""
    root = Root(project / ROOT_REL, "workspace")
    changes = []
    for mid, content, extra in items:
        meta: dict[str, Any] = {"id": mid, "type": "knowledge", "created": "2026-01-01",
                                "updated": "2026-01-01", "confidence": "high", "revision": 1,
                                "scope": "workspace", "source": "manual", "tags": ["bench"],
                                "author": "unknown", **extra}
        changes.append(Change(f"knowledge/{mid}.md",
                              render_memory(meta, mid.replace("-", " ").capitalize(), content)))
    root.path.mkdir(parents=True, exist_ok=True)
    Store(root, project.parent / f"{project.name}-state").write_files(changes, "bench memories")
