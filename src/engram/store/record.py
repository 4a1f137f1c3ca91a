"""The approval record: which hash lines this user approved through Engram on this machine.

`memory.hashes.json` lives in the workspace, so anything that writes the workspace can write a
memory and its hash line together; review in git catches that (guarantee 3), but only once
someone reviews. The record keeps, in the user's state dir (outside every workspace), each hash
line Engram itself wrote for the workspace root (commit, save, rehash, upgrade). On the read
path a hash line that is neither in the record nor in the hashes file at the tip of a
remote-tracking branch (a teammate's change that arrived through git) was written outside Engram
on this machine: the memory is not trusted until a human approves it (`engram rehash <id>`).

What it closes (docs/safety.md, Class 4): an agent whose writes are confined to the workspace
with `.git/` read-only (Codex's workspace-write sandbox, Claude Code's sandbox) can no longer
plant a trusted memory; it can reach neither this file nor the remote-tracking refs. An agent
with a shell as the user can still write both.

Files, per workspace root, in `<state dir>/approved/`: `<name>.json` ({"root", "lines": {rel:
[sha, …]}, "repo": the repository pinned at first sight}) and
`<name>.seen` (the SHA-256 of the hashes file the last time every line in it was
explained). A load whose hashes file matches `.seen` reads nothing more: one small read. With no
record yet for a root, the first sight seeds it with the lines git already holds (the hashes file
at HEAD or on a remote tip; the whole file in a project that is no git work tree), and pins the
repository found from the project directory: a `.git` an agent makes nearer the root later (a
directory or a `.git` file naming a git dir of its own, with refs it wrote) is never asked.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import NamedTuple

from engram import jsontext
from engram.gitrun import git_argv
from engram.storage import read_regular
from engram.store.fileio import atomic_write, root_lock

DIR = "approved"
MAX_REFS = 4096  # remote-tracking tips read at most
GIT_TIMEOUT_S = 10.0

# Why a read skips a file whose hash line the record does not vouch for (reader, verify).
OUTSIDE = ("its hash line was written outside Engram on this machine (not approved here, "
           "not on any remote branch; or a commit was interrupted)")

TipReader = Callable[["Repo"], Mapping[str, frozenset[str]]]


class Repo(NamedTuple):
    """The git repository of a workspace root, as found from its project directory."""

    git_dir: str  # absolute `--git-dir` (refs/remotes resolve through its common dir)
    path: str  # the hashes file's path in the repository's trees


NO_GIT = Repo("", "")  # pinned: the project was no git work tree at first sight


def digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _name(root_path: Path) -> str:
    raw = str(root_path).encode("utf-8", "surrogatepass")  # a non-UTF-8 folder name
    return hashlib.sha256(raw).hexdigest()[:32]


def record_dir(state_dir: Path) -> Path:
    return state_dir / DIR


def applies(state_dir: Path, project: Path) -> bool:
    """A record inside the project would be writable by what it guards against: none then."""
    try:
        real, home = state_dir.resolve(), project.resolve()
    except OSError:
        return False
    return real != home and home not in real.parents


class Record:
    """The record of one workspace root."""

    def __init__(self, state_dir: Path, root_path: Path) -> None:
        self.root_path = root_path
        self.dir = record_dir(state_dir)
        name = _name(root_path)
        self.file = self.dir / f"{name}.json"
        self.seen_file = self.dir / f"{name}.seen"
        self._git: Repo | None = None  # the pinned repository, once `lines()` read it

    def seen(self) -> str:
        try:
            return read_regular(self.seen_file).decode("ascii").strip()
        except (OSError, UnicodeError, ValueError):
            return ""

    def lines(self) -> dict[str, list[str]] | None:
        """{rel: [the hash last approved]}, None when there is no record yet; a record that
        cannot be read vouches for nothing ({}), it never counts as a first sight."""
        try:
            data = jsontext.loads(read_regular(self.file).decode("utf-8"))
        except FileNotFoundError:
            return None
        except (OSError, UnicodeError, ValueError, RecursionError):
            self._git = NO_GIT
            return {}
        git = data.get("repo") if isinstance(data, dict) else None
        if isinstance(git, list) and len(git) == 2 and all(isinstance(g, str) for g in git):
            self._git = Repo(git[0], git[1])
        else:  # a record from before the pin (or a broken one): pinned on its next write
            self._git = None
        raw = data.get("lines") if isinstance(data, dict) else None
        if not isinstance(raw, dict):
            self._git = NO_GIT
            return {}
        return {str(k): [str(s) for s in v if isinstance(s, str)]
                for k, v in raw.items() if isinstance(v, list)}

    def repo(self) -> Repo:
        """The repository this record asks (pinned at first sight; read `lines()` first)."""
        if self._git is None:
            self._git = find_repo(self.root_path)
        return self._git

    def _save(self, lines: Mapping[str, list[str]], seen: str | None) -> None:
        self.dir.mkdir(mode=0o700, parents=True, exist_ok=True)
        body: dict[str, object] = {"root": str(self.root_path),
                                   "lines": dict(sorted(lines.items()))}
        if self._git is not None:
            body["repo"] = list(self._git)
        atomic_write(self.file, json.dumps(body, indent=0, ensure_ascii=True) + "\n", mode=0o600)
        if seen is not None:
            atomic_write(self.seen_file, seen + "\n", mode=0o600)

    def note(self, before: Mapping[str, str], approved: Mapping[str, str],
             removed: Iterable[str] = ()) -> None:
        """Record hash lines Engram just wrote (`approved`, each replacing what the record held
        for that file: an older version a human replaced, archived or retired is not vouched
        for again) and files it removed; `before` is the hashes file as it was, which seeds a
        record that does not exist yet. Raises OSError/StorageError."""
        gone = [rel for rel in removed if rel not in approved]
        if not approved and not gone:
            return
        with root_lock(self._lock_dir()):
            lines = self.lines()
            if lines is None:
                lines = self._first_lines(before)
            self.repo()  # pin it now, if this record had none
            _add(lines, approved.items())
            for rel in gone:
                lines.pop(rel, None)
            # `.seen` vouched for a hashes file under the old record; it may hold a line just
            # replaced (a rollback to it must be asked about again).
            self.seen_file.unlink(missing_ok=True)
            self._save(lines, None)

    def unexplained(self, hashes: Mapping[str, str], seen: str,
                    tips: TipReader | None = None) -> frozenset[str]:
        """The files whose hash line is neither recorded nor on a remote-tracking tip. `seen` is
        the digest of the hashes file the lines came from. Never raises: a record we cannot
        write leaves the answer as it is (the next read asks again)."""
        if seen and seen == self.seen():
            return frozenset()
        lines = self.lines()
        if lines is None:  # first sight (docs/safety.md, Class 4 and its review)
            first = self._first_lines(hashes, tips)
            self._try_save(hashes, first, seen, first=True)
            return frozenset(rel for rel, sha in hashes.items()
                             if sha.lower() not in first.get(rel, ()))
        odd = {rel: sha for rel, sha in hashes.items() if sha.lower() not in lines.get(rel, ())}
        if not odd:
            if self._git is None:
                self.repo()
            self._try_save(hashes, None, seen)
            return frozenset()
        remote = (tips or remote_lines)(self.repo())
        arrived = {rel: sha for rel, sha in odd.items() if sha.lower() in remote.get(rel, ())}
        if arrived:  # a teammate's change that came through git: silent, and kept
            _add(lines, arrived.items())
            self._try_save(hashes, None, seen if len(arrived) == len(odd) else "",
                           arrived=arrived)
        return frozenset(rel for rel in odd if rel not in arrived)

    def _first_lines(self, hashes: Mapping[str, str],
                     tips: TipReader | None = None) -> dict[str, list[str]]:
        """What a first sight trusts: in a git work tree only the lines git already holds (the
        hashes file at HEAD or on a remote tip; a line only in the working tree is the agent's
        as much as anyone's), elsewhere the file as it is. Pins the repository."""
        self._git = repo = find_repo(self.root_path)
        if repo == NO_GIT:
            return {rel: [sha.lower()] for rel, sha in hashes.items()}
        held = dict((tips or remote_lines)(repo))
        for rel, shas in head_lines(repo).items():
            held[rel] = held.get(rel, frozenset()) | shas
        return {rel: [sha.lower()] for rel, sha in hashes.items()
                if sha.lower() in held.get(rel, ())}

    def _try_save(self, hashes: Mapping[str, str], lines: Mapping[str, list[str]] | None,
                  seen: str | None, *, first: bool = False,
                  arrived: Mapping[str, str] | None = None) -> None:
        """Write what is given (`seen` "" or None: leave `.seen` as it is). Decided again under
        the lock: an approval that ran since `lines` was read (it may have replaced a version
        this read still trusted) wins, and `.seen` is written only for a hashes file whose
        every line the record as written holds."""
        from engram.errors import EngramError

        try:
            with root_lock(self._lock_dir(), timeout=0.5):
                pin = self._git
                now = self.lines()
                if first:
                    if now is not None or lines is None:
                        return  # a writer made the record meanwhile: its lines win
                    now, self._git, save = dict(lines), pin, True
                else:
                    if now is None:
                        return
                    save = bool(arrived)
                    _add(now, (arrived or {}).items())
                    if self._git is None and pin is not None:  # pin a record from before
                        self._git, save = pin, True
                if save:
                    self._save(now, None)
                if seen and all(sha.lower() in now.get(rel, ()) for rel, sha in hashes.items()):
                    self.dir.mkdir(mode=0o700, parents=True, exist_ok=True)
                    atomic_write(self.seen_file, seen + "\n", mode=0o600)
        except (EngramError, OSError):
            pass  # read-only state dir (a sandboxed process): the answer stands, asked again

    def _lock_dir(self) -> Path:
        self.dir.mkdir(mode=0o700, parents=True, exist_ok=True)
        return self.dir


def _add(lines: dict[str, list[str]], entries: Iterable[tuple[str, str]]) -> None:
    for rel, sha in entries:
        lines[rel] = [sha.lower()]


def find_repo(root_path: Path) -> Repo:
    """The repository git finds from the project directory (`<project>/.agents/.engram` is the
    root), never from the root itself: a `.git` planted in `.agents/` or in the root does not
    count. NO_GIT when the project is no git work tree (or git fails)."""
    project = root_path.parent.parent
    out = _git(project, ["rev-parse", "--absolute-git-dir", "--show-prefix"])
    parts = (out or b"").decode("utf-8", "surrogateescape").split("\n")
    if len(parts) < 2 or not parts[0]:
        return NO_GIT
    rel = root_path.relative_to(project).as_posix()
    return Repo(parts[0], f"{parts[1]}{rel}/memory.hashes.json")


def _repo_git(repo: Repo, args: list[str], stdin: str = "") -> bytes | None:
    """git on the pinned repository alone: `--git-dir` (no discovery, no work tree)."""
    return _git(Path(repo.git_dir), [f"--git-dir={repo.git_dir}", *args], stdin)


def head_lines(repo: Repo) -> dict[str, frozenset[str]]:
    """{rel: hashes} of the hashes file in HEAD's tree (a first sight's committed lines)."""
    if repo == NO_GIT:
        return {}
    out = _repo_git(repo, ["--no-replace-objects", "cat-file", "--batch"],
                    f"HEAD:{repo.path}\n")
    return _parse_blobs(out)


def remote_lines(repo: Repo) -> dict[str, frozenset[str]]:
    """{rel: hashes} of `memory.hashes.json` at the tip of every remote-tracking branch of the
    pinned repository (what teammates approved and pushed); {} when there is none or git
    fails. Objects are read as stored (`--no-replace-objects`); git runs no command the
    repository names."""
    if repo == NO_GIT:
        return {}
    refs = _repo_git(repo, ["for-each-ref", "--format=%(objectname)", "refs/remotes/"])
    tips = sorted(set((refs or b"").decode("ascii", "replace").split()))[:MAX_REFS]
    if not tips:
        return {}
    out = _repo_git(repo, ["--no-replace-objects", "cat-file", "--batch"],
                    "".join(f"{oid}:{repo.path}\n" for oid in tips))
    return _parse_blobs(out)


def _parse_blobs(out: bytes | None) -> dict[str, frozenset[str]]:
    found: dict[str, set[str]] = {}
    for blob in _batch_blobs(out or b""):
        try:
            data = jsontext.loads(blob.decode("utf-8"))
        except (UnicodeError, ValueError, RecursionError):
            continue
        if isinstance(data, dict):
            for rel, sha in data.items():
                if isinstance(sha, str):
                    found.setdefault(str(rel), set()).add(sha.lower())
    return {rel: frozenset(s) for rel, s in found.items()}


def _batch_blobs(out: bytes) -> Iterable[bytes]:
    """The contents in `git cat-file --batch` output (`<oid> <type> <size>\\n<data>\\n`, or
    `<name> missing\\n`)."""
    pos = 0
    while pos < len(out):
        end = out.find(b"\n", pos)
        if end < 0:
            return
        head = out[pos:end].split()
        pos = end + 1
        if len(head) == 3 and head[2].isdigit():
            size = int(head[2])
            if head[1] == b"blob":
                yield out[pos:pos + size]
            pos += size + 1


def _git(cwd: Path, args: list[str], stdin: str = "") -> bytes | None:
    import subprocess  # only after a change the record does not explain (cold start)

    try:
        done = subprocess.run(git_argv(cwd, *args), input=stdin.encode("utf-8"),
                              capture_output=True, timeout=GIT_TIMEOUT_S, check=False)
    except (OSError, subprocess.SubprocessError):
        return None
    if done.returncode != 0:
        return None
    return done.stdout
