"""Create a root's layout (README.md#how-it-works) idempotently, never rewriting a file a user may
have edited.

Missing directories and files are created; `.gitignore` and `.gitattributes` only get the lines
they lack appended. A second run changes nothing and says so.
"""

from __future__ import annotations

import json
from pathlib import Path

from engram.storage import read_text
from engram.store.fileio import atomic_write, root_lock
from engram.workspace import IGNORED_LINES, TYPE_DIRS, Root

ATTRIBUTE_LINES = ("changelog.md merge=union",)
DEFAULT_CONFIG = {"version": 1}


def ensure_lines(path_text: str | None, lines: tuple[str, ...]) -> str | None:
    """New text with missing lines appended, or None when nothing is missing."""
    old = path_text or ""
    present = {ln.strip() for ln in old.splitlines()}
    missing = [ln for ln in lines if ln not in present]
    if not missing:
        return None
    if old and not old.endswith("\n"):
        old += "\n"
    return old + "".join(f"{ln}\n" for ln in missing)


def _read(path: Path) -> str | None:
    try:
        return read_text(path)
    except FileNotFoundError:
        return None


def init_root(root: Root) -> list[str]:
    """Create what is missing; return the relative names created or changed."""
    changed: list[str] = []
    root.path.mkdir(parents=True, exist_ok=True)
    with root_lock(root.path):
        for d in (*TYPE_DIRS, "archive", "working"):
            if not (root.path / d).is_dir():
                (root.path / d).mkdir(parents=True)
                changed.append(f"{d}/")
        for d in TYPE_DIRS:
            keep = root.path / d / ".gitkeep"
            if not any((root.path / d).iterdir()):
                atomic_write(keep, "")
        files = {
            root.config_file: json.dumps(DEFAULT_CONFIG, indent=2) + "\n",
            root.hashes_file: "{}\n",
            root.changelog_file: "# Engram changelog\n\n",
        }
        for path, text in files.items():
            if not path.exists():
                atomic_write(path, text)
                changed.append(path.name)
        for path, lines in ((root.gitignore_file, IGNORED_LINES),
                            (root.path / ".gitattributes", ATTRIBUTE_LINES)):
            new = ensure_lines(_read(path), lines)
            if new is not None:
                atomic_write(path, new)
                changed.append(path.name)
    return changed
