"""Other Engram workspaces in the same repository, for `engram doctor`.

Engram uses the nearest `.agents/.engram` above the directory it runs in, so a workspace in a
subfolder (`src/.agents/.engram`) is the one read by every command and every host started
there, with its own `memory.hashes.json`. An agent that can write the repository can plant one
(and a `.gitignore` line that keeps it out of `git status`); a human reviewing the top-level
workspace never sees it. Doctor lists them, and says when the workspace in use is itself nested
inside another one. Reads directory names only, within a bounded walk.
"""

from __future__ import annotations

import os
from pathlib import Path

from engram.workspace import ROOT_REL

# Directories never searched: VCS data, dependency and build trees (large, never a workspace).
SKIP = frozenset({".git", ".hg", ".svn", "node_modules", ".venv", "venv", "__pycache__",
                  ".tox", ".mypy_cache", ".ruff_cache", ".pytest_cache", "dist", "build",
                  "target", ".cache"})
MAX_DIRS = 20_000  # directories looked at, at most (a walk of well under a second)


def below(project: Path, max_dirs: int = MAX_DIRS) -> tuple[list[Path], bool]:
    """Project directories below `project` holding a workspace, and whether the walk stopped
    at `max_dirs` before seeing everything."""
    found: list[Path] = []
    for seen, (top, dirs, _) in enumerate(os.walk(project), 1):
        here = Path(top)
        if seen > max_dirs:
            return found, True
        if here != project and (here / ROOT_REL).is_dir():
            found.append(here)
        dirs[:] = sorted(d for d in dirs if d not in SKIP
                         and not (here == project and d == ROOT_REL.parts[0]))
    return found, False


def enclosing(project: Path) -> Path | None:
    """The nearest project directory above `project`, within its git repository, that holds a
    workspace of its own (None outside git or when there is none)."""
    for d in project.parents:
        if (d / ROOT_REL).is_dir():
            return d
        if (d / ".git").exists():
            return None
    return None
