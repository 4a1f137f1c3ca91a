"""Ask git what the repository holds and what happened to its paths. Pure parsing apart from
the subprocess calls (`info`, `tracked`, `history`, `is_ancestor`).

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

from engram.gitrun import git_argv

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
    alive: set[str]  # paths whose latest event in the range adds or changes them
    touches: list[Touch]
    commits: int


class Info(NamedTuple):
    top: Path
    shallow: bool
    head: str  # "" in a repository with no commit yet


def git(cwd: Path, *args: str) -> str:
    """Run one git command; OSError or CalledProcessError when git is absent or refuses."""
    done = subprocess.run(git_argv(cwd, *args), capture_output=True, check=True,
                          timeout=GIT_TIMEOUT_S)
    return done.stdout.decode("utf-8", "surrogateescape")


def info(cwd: Path) -> Info:
    top, shallow = git(cwd, "rev-parse", "--show-toplevel", "--is-shallow-repository").split()
    try:
        head = git(Path(top), "rev-parse", "-q", "--verify", "HEAD^{commit}").strip()
    except subprocess.CalledProcessError:
        head = ""
    return Info(Path(top), shallow == "true", head)


def tracked(top: Path) -> list[str]:
    """The paths in the git index."""
    return [p for p in git(top, "ls-files", "-z").split("\0") if p]


def history(top: Path, head: str, since: str = "") -> History:
    """Events of the commits reachable from `head` (and not from `since`), newest first."""
    if not head:
        return History({}, set(), [], 0)
    rev = f"{since}..{head}" if since else head
    log = git(top, "log", "-z", "-M", "--name-status", f"--max-count={MAX_COMMITS}",
              "--format=@%H %cs", rev)
    return parse_log(log)


def is_ancestor(top: Path, old: str, new: str) -> bool:
    try:
        git(top, "merge-base", "--is-ancestor", old, new)
    except subprocess.CalledProcessError:
        return False
    return True


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
    return History(fates, alive, touches, commits)


def _alive(path: str, commit: str, date: str, alive: set[str], touches: list[Touch]) -> None:
    touches.append(Touch(path, date, commit))
    alive.add(path)
