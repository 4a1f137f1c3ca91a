"""Path containment: a target a caller names must stay inside its root.

Owns the lexical check of a relative path (no `..`, no absolute path, no NUL, no backslash,
not empty) and the resolved check (symlinks followed: a link that points outside the root is
outside). It does not create, read or write any file.
"""

from __future__ import annotations

import re
from pathlib import Path, PurePosixPath

# `C:foo` and `C:\foo` are drive-relative/absolute on Windows; refuse them everywhere so a
# memory written on Linux cannot become an escape when the repository is used on Windows.
_DRIVE = re.compile(r"^[A-Za-z]:")


class PathEscape(ValueError):
    """A relative path that is malformed or resolves outside its root. `reason` says why."""

    def __init__(self, rel: str, reason: str) -> None:
        super().__init__(f"unsafe path {rel!r}: {reason}")
        self.rel = rel
        self.reason = reason


def is_contained(root: Path, target: Path) -> bool:
    """True when `target` (relative targets are taken from `root`) resolves inside `root`.

    Symlinks are resolved on both sides, so a link inside the root that points outside is
    not contained. The root itself counts as contained.
    """
    try:
        real_root = root.resolve()
        real = (target if target.is_absolute() else root / target).resolve()
    except (OSError, RuntimeError):  # a symlink loop: whatever it is, it is not safe to use
        return False
    return real.is_relative_to(real_root)


def _lexical_problem(rel: str) -> str | None:
    if not rel or not rel.strip():
        return "empty path"
    if "\x00" in rel:
        return "contains a NUL byte"
    if "\\" in rel:
        return "contains a backslash (use '/')"
    if rel.startswith("/") or _DRIVE.match(rel):
        return "absolute path"
    parts = PurePosixPath(rel).parts
    if ".." in parts:
        return "contains a '..' component"
    if not parts:
        return "names the root itself, not a file in it"
    return None


def contained_path(root: Path, rel: str) -> Path:
    """`root / rel`, after checking `rel` is a clean relative path that stays inside `root`.

    Raises `PathEscape` for an empty, absolute, NUL-bearing, backslashed or `..` path, and for
    one that leaves the root through a symlink.
    """
    problem = _lexical_problem(rel)
    if problem:
        raise PathEscape(rel, problem)
    target = root.joinpath(*PurePosixPath(rel).parts)
    if not is_contained(root, target):
        raise PathEscape(rel, "resolves outside the root (symlink)")
    return target
