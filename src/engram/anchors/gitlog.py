"""Ask git, once, what the repository holds and what happened to its paths. Pure parsing apart
from the three subprocess calls in `read_repository`.

The history walk is `git log -M --name-status` newest first: the first event seen for a path is
its latest. A path whose latest event is a deletion or the old side of a rename has a *fate*
(`deleted`, or `moved` to the new side); a path whose latest event adds or modifies it is alive.
Every add, modify and rename target is a *touch* (path, date, commit), which is how
changed-since-confirmed is counted.
"""

from __future__ import annotations

import re
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import NamedTuple

MAX_COMMITS = 20000  # a longer history is read up to here; older events are not seen
GIT_TIMEOUT_S = 60
_HEADER = re.compile(r"@([0-9a-f]{7,64}) (\d{4}-\d\d-\d\d)")


class Fate(NamedTuple):
    kind: str  # "moved" | "deleted"
    new_path: str
    commit: str
    date: str


class Touch(NamedTuple):
    path: str
    date: str
    commit: str


class History(NamedTuple):
    fates: dict[str, Fate]
    touches: list[Touch]
    commits: int


class Repository(NamedTuple):
    top: Path
    shallow: bool
    tracked: list[str]
    history: History


def git(cwd: Path, *args: str) -> str:
    """Run one git command; OSError or CalledProcessError when git is absent or refuses."""
    done = subprocess.run(["git", "-C", str(cwd), *args], capture_output=True, check=True,
                          timeout=GIT_TIMEOUT_S)
    return done.stdout.decode("utf-8", "surrogateescape")


def read_repository(cwd: Path) -> Repository:
    """Top level, shallowness, tracked files (the git index) and the parsed history."""
    top, shallow = git(cwd, "rev-parse", "--show-toplevel", "--is-shallow-repository").split()
    tracked = [p for p in git(Path(top), "ls-files", "-z").split("\0") if p]
    try:
        log = git(Path(top), "log", "-z", "-M", "--name-status", f"--max-count={MAX_COMMITS}",
                  "--format=@%H %cs")
    except subprocess.CalledProcessError:
        log = ""  # a repository with no commit yet
    return Repository(Path(top), shallow == "true", tracked, parse_log(log))


def _tokens(log: str) -> Iterator[str]:
    for tok in log.split("\0"):
        yield tok.lstrip("\n")


def parse_log(log: str) -> History:
    """Fates and touches from `git log -z -M --name-status --format=@%H %cs` (newest first)."""
    fates: dict[str, Fate] = {}
    alive: set[str] = set()
    touches: list[Touch] = []
    commits = 0
    commit = date = ""
    toks = _tokens(log)
    for tok in toks:
        if not tok:
            continue
        head = _HEADER.fullmatch(tok)
        if head:
            commit, date = head.group(1), head.group(2)
            commits += 1
            continue
        status = tok[:1]
        if status in "RC":
            old, new = next(toks, ""), next(toks, "")
            _alive(new, commit, date, alive, touches)
            if status == "R" and old not in alive and old not in fates:
                fates[old] = Fate("moved", new, commit, date)
        else:
            path = next(toks, "")
            if status == "D":
                if path not in alive and path not in fates:
                    fates[path] = Fate("deleted", "", commit, date)
            else:
                _alive(path, commit, date, alive, touches)
    return History(fates, touches, commits)


def _alive(path: str, commit: str, date: str, alive: set[str], touches: list[Touch]) -> None:
    touches.append(Touch(path, date, commit))
    alive.add(path)
