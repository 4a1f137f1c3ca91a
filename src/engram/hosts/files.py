"""Staged file edits for host configs, and the record of what `link` created.

A `Bench` reads files through the edits staged so far (several steps may touch one file), so a
whole link or unlink is computed before anything is written, and `--plan` simply never calls
`apply`. Each step runs through `attempt`: a file the step cannot parse (`host.unparseable`: not
UTF-8, broken or too deeply nested JSON/TOML) undoes what that step staged and is reported in
`skipped`, never rewritten; the other steps go on. `apply` backs up each
user file once before its first change (under `~/.engram/backups/`, never in the working tree),
writes atomically, and deletes files and empty directories only when `link` created them.

The record lives in the user config dir as `hosts.json` — not in a workspace, because global
links touch files under HOME. It holds the links (host, scope, project) and, per file Engram
created or extended, whether the file and which containers (JSON key paths) and directories
were Engram's, so `unlink` can give the user's file back.
"""

from __future__ import annotations

import contextlib
import copy
import json
import stat
from collections.abc import Callable
from contextlib import AbstractContextManager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from engram import jsontext
from engram.errors import HostConfigError
from engram.store.fileio import atomic_write, contain, remove, root_lock

STATE_FILE = "hosts.json"
# A file Engram cannot edit safely: unparseable, or parsed with a shape it cannot extend.
SKIPPED_CODES = ("host.unparseable", "host.shape")
BACKUPS = "backups"


def backup_path(config_dir: Path, path: Path) -> Path:
    """Where the copy of a user file taken before Engram's first change lives: under the user
    config dir, mirroring the file's absolute path (never in the working tree)."""
    absolute = path.absolute()
    drive = absolute.drive.replace(":", "").strip("\\/")
    rel = absolute.relative_to(absolute.anchor)
    return config_dir / BACKUPS / (Path(drive) / rel if drive else rel)


class State:
    """`~/.engram/hosts.json`: links and what link created (files, containers, directories)."""

    def __init__(self, config_dir: Path) -> None:
        self.path = config_dir / STATE_FILE
        self.data: dict[str, Any] = {"version": 1, "links": [], "created": {}}
        try:
            loaded = jsontext.loads(self.path.read_text(encoding="utf-8"))
        except (FileNotFoundError, ValueError):
            return  # a broken record only loses "created" knowledge; unlink then keeps files
        if isinstance(loaded, dict):
            self.data["links"] = [x for x in loaded.get("links", []) if isinstance(x, dict)]
            created = loaded.get("created")
            self.data["created"] = created if isinstance(created, dict) else {}

    @property
    def links(self) -> list[dict[str, Any]]:
        links: list[dict[str, Any]] = self.data["links"]
        return links

    def record(self, path: Path) -> dict[str, Any]:
        created: dict[str, Any] = self.data["created"]
        fresh = {"file": False, "keys": [], "dirs": []}
        entry: dict[str, Any] = created.setdefault(str(path), fresh)
        return entry

    def peek(self, path: Path) -> dict[str, Any]:
        entry = self.data["created"].get(str(path))
        return entry if isinstance(entry, dict) else {"file": False, "keys": [], "dirs": []}

    def forget(self, path: Path) -> None:
        self.data["created"].pop(str(path), None)

    def add_link(self, link: dict[str, Any]) -> None:
        self.remove_link(link)
        self.links.append(link)

    def remove_link(self, link: dict[str, Any]) -> None:
        same = ("host", "scope", "project")
        self.data["links"] = [x for x in self.links
                              if any(x.get(k) != link.get(k) for k in same)]

    def save(self) -> None:
        atomic_write(self.path, json.dumps(self.data, indent=2, sort_keys=True) + "\n")


@dataclass
class Edit:
    path: Path
    before: str | None
    after: str | None

    @property
    def action(self) -> str:
        if self.before is None:
            return "create"
        return "delete" if self.after is None else "update"


class Bench:
    """Stages edits; reads see staged content. Nothing touches disk until `apply`.

    Host files under `project` are the repository's: one of them (or a folder on its way) that
    is a symlink could point anywhere (`AGENTS.md -> ~/.aws/credentials`), and link would copy
    that file's text into the repository or write outside it. So each is refused unless every
    part of its path below the project is a real folder and the file, if present, a regular
    file; writes there walk from the project without following links (store/fileio.contain).
    Files under HOME (global links) are the user's own and may be symlinks (dotfiles)."""

    def __init__(self, state: State, project: Path | None = None) -> None:
        self.state = state
        self.project = project
        self.staged: dict[Path, Edit] = {}
        self.skipped: list[HostConfigError] = []  # files a step could not parse (`attempt`)
        if project is not None:
            contain(project)

    def attempt(self, step: Callable[[], list[str]]) -> list[str]:
        """Run one staging step; a file it cannot parse or edit undoes the step's own edits
        and joins `skipped` (once), so the file is left byte-identical and the other steps go
        on. Any other refusal (a symlink, a file that is not Engram's) still stops the whole run."""
        staged = {p: Edit(e.path, e.before, e.after) for p, e in self.staged.items()}
        created = copy.deepcopy(self.state.data["created"])
        try:
            return step()
        except HostConfigError as exc:
            if exc.code not in SKIPPED_CODES:
                raise
            self.staged, self.state.data["created"] = staged, created
            if all(s.message != exc.message for s in self.skipped):
                self.skipped.append(exc)
            return []

    def read(self, path: Path) -> str | None:
        if path in self.staged:
            return self.staged[path].after
        if self.project is not None:
            _no_links(self.project, path)
        try:
            return path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return None
        except (UnicodeDecodeError, IsADirectoryError) as exc:
            raise HostConfigError(f"{path}: not a UTF-8 text file", code="host.unparseable",
                                  hint="fix or move the file by hand; Engram left it untouched") \
                from exc

    def _stage(self, path: Path, after: str | None) -> None:
        if path not in self.staged:
            self.staged[path] = Edit(path, self.read(path), after)
        else:
            self.staged[path].after = after

    def write(self, path: Path, text: str) -> None:
        if self.read(path) is None:
            entry = self.state.record(path)
            entry["file"] = True
            entry["dirs"] = [str(d) for d in _missing_dirs(path)]
        self._stage(path, text)

    def delete(self, path: Path) -> None:
        if self.read(path) is not None:
            self._stage(path, None)

    def created(self, path: Path) -> bool:
        return bool(self.state.peek(path).get("file"))

    def edits(self) -> list[Edit]:
        return [e for e in self.staged.values() if e.before != e.after]

    def apply(self) -> None:
        dirs: set[str] = set()
        for edit in self.edits():
            if edit.after is None:
                remove(edit.path)
                dirs.update(self.state.peek(edit.path).get("dirs", []))
                self.state.forget(edit.path)
                continue
            if edit.before is not None and not self.created(edit.path):
                self._backup_once(edit.path)
            atomic_write(edit.path, edit.after)
        _remove_empty_dirs(dirs)
        self.state.save()


    def _backup_once(self, path: Path) -> None:
        """The file's bytes as they were before Engram's first change; never overwritten."""
        target = backup_path(self.state.path.parent, path)
        if not target.exists() and path.is_file():
            atomic_write(target, path.read_bytes())


def _no_links(project: Path, path: Path) -> None:
    """Refuse a project host file reached through a symlink or that is not a regular file."""
    try:
        rel = path.relative_to(project)
    except ValueError:
        return  # not the repository's (a file under HOME)
    step = project
    for i, name in enumerate(rel.parts):
        step = step / name
        try:
            mode = step.lstat().st_mode
        except FileNotFoundError:
            return
        last = i == len(rel.parts) - 1
        if stat.S_ISLNK(mode) or (last and not stat.S_ISREG(mode)) \
                or (not last and not stat.S_ISDIR(mode)):
            what = "a symlink" if stat.S_ISLNK(mode) else "not a regular file or folder"
            raise HostConfigError(
                f"{step}: {what} in the project; Engram does not read or write host files "
                "through links or special files (a repository can point one at a file outside "
                "it, whose text would be copied in)", code="storage.symlink",
                hint=f"replace {step} with a regular {'file' if last else 'folder'} (or remove "
                "it), then rerun; nothing was read or written")


def _missing_dirs(path: Path) -> list[Path]:
    missing = []
    for parent in path.parents:
        if parent.exists():
            break
        missing.append(parent)
    return missing  # deepest first


def _remove_empty_dirs(dirs: set[str]) -> None:
    """Remove directories link created, deepest first, when nothing else lives in them."""
    for d in sorted(dirs, key=lambda p: len(Path(p).parts), reverse=True):
        with contextlib.suppress(OSError):  # not empty: the user keeps files there
            Path(d).rmdir()


def hosts_lock(config_dir: Path) -> AbstractContextManager[None]:
    """The lock every change of host files and `hosts.json` holds (re-entrant in a thread):
    `<config dir>/.lock`, like a memory root's write lock."""
    return root_lock(config_dir)
