"""Containment: nothing Engram reads or writes for a root may lie behind a symlink it did not
choose (docs/safety.md "Path containment").

A cloned repository controls everything in it, symlinks included. If `.agents/.engram`, a type
folder or a state file were a symlink, even `engram load` would create its index, lock and usage
files wherever the link points, `save` would write memories and hashes there, and appending to
a symlinked `changelog.md` would copy an outside file into the repository. So the workspace
root, the `.agents` folder above it, every fixed folder and every state file must be what they
look like (a real directory or a regular file) or absent; anything else is refused before
anything is touched. The global root is the user's own choice: its path may be a symlink
(`workspace.resolve` resolves it once, and every write goes under the resolved path), but what
is inside it is held to the same rule. This module only looks (lstat); it never creates.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path
from typing import NamedTuple

from engram.errors import StorageError
from engram.store.fileio import contain
from engram.workspace import ROOT_REL, Root, Roots

DIRS = ("rules", "skills", "knowledge", "archive", "working", ".cache")
FILES = ("memory.hashes.json", "engram.config.json", "changelog.md", "pending-approvals.json",
         "usage.json", ".lock", ".gitignore", ".gitattributes",
         # read and rewritten on writes (a link would copy the file it points to into the
         # repository), and the notes' seals
         "memory.index.json", "working/.seals.json")
CACHE_FILES = ("index.sqlite", "index.sqlite-wal", "index.sqlite-shm", "derived.sqlite",
               "derived.sqlite-wal", "derived.sqlite-shm", "hooks.json", "anchors.sqlite",
               "anchors.sqlite-wal", "anchors.sqlite-shm", "anchors.sqlite-journal")
CODE = "storage.symlink"
HINT = ("a cloned repository controls its symlinks: replace it with a real directory or file "
        "(or delete it and run `engram init`); `engram doctor` lists every one")
WRONG_KIND_HINT = ("Engram did not put it there: move it away (look inside first), then run "
                   "`engram init` to recreate what is missing; `engram doctor` lists every one")


class Problem(NamedTuple):
    path: Path
    what: str  # "symlink" or "not a directory" / "not a regular file"
    target: str  # where a symlink points ("" otherwise)

    @property
    def message(self) -> str:
        from engram.storage import shown_path

        if self.what == "symlink":
            return (f"{shown_path(self.path)} is a symlink (to {shown_path(self.target)}); "
                    "Engram will not follow it")
        return f"{shown_path(self.path)} is {self.what}"

    @property
    def bypassed(self) -> bool:
        """A cache database: `store/sqlitefile.open_cache` bypasses it (an in-memory database
        serves the command), so it never blocks a read; `doctor` still reports it."""
        return self.path.parent.name == ".cache" and ".sqlite" in self.path.name

    @property
    def hint(self) -> str:
        return HINT if self.what == "symlink" else WRONG_KIND_HINT


def _problem(path: Path, want_dir: bool) -> Problem | None:
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return None
    except OSError as exc:
        return Problem(path, f"unreadable ({errno.errorcode.get(exc.errno or 0, 'EIO')})", "")
    if stat.S_ISLNK(st.st_mode):
        try:
            target = str(path.readlink())
        except OSError:
            target = "?"
        return Problem(path, "symlink", target)
    if want_dir and not stat.S_ISDIR(st.st_mode):
        return Problem(path, "not a directory", "")
    if not want_dir and not stat.S_ISREG(st.st_mode):
        return Problem(path, "not a regular file", "")
    return None


def _inside(root: Root) -> list[Problem]:
    found = [p for p in (_problem(root.path / d, True) for d in DIRS) if p is not None]
    # Below a folder already reported nothing exists to look at (a file named `.cache` is one
    # problem, not twelve).
    bad = {p.path.name for p in found}
    found += [p for p in (_problem(root.path / f, False) for f in FILES
                          if f.split("/")[0] not in bad) if p is not None]
    if ".cache" not in bad:
        found += [p for p in (_problem(root.cache_dir / f, False) for f in CACHE_FILES)
                  if p is not None]
    return found


def problems(roots: Roots) -> list[Problem]:
    """Every symlink (or wrong kind of file) where a root or its fixed names should be."""
    ws = roots.workspace
    out: list[Problem] = []
    for path in (roots.project / ROOT_REL.parts[0], ws.path):
        found = _problem(path, True)
        if found is not None:
            return [found]  # nothing below it can be trusted, nor needs looking at
    out += _inside(ws)
    g = roots.global_root
    if g is not None and g.path != ws.path:
        out += _inside(g)
    return out


def ensure(roots: Roots) -> Roots:
    """`roots` when nothing is behind a symlink; else a coded error naming the first one."""
    found = [p for p in problems(roots) if not p.bypassed]
    if found:
        more = f" (and {len(found) - 1} more)" if len(found) > 1 else ""
        raise StorageError(f"refusing to use the memory root: {found[0].message}{more}",
                           hint=found[0].hint, code=CODE)
    # Checked now; a folder swapped for a link later fails the write (fileio walks from here).
    contain(roots.workspace.path, roots.project)
    if roots.global_root is not None and roots.global_root.path != roots.workspace.path:
        contain(roots.global_root.path)
    return roots
