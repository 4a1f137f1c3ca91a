"""One guidance source as read from disk: its text, size, token estimate and SHA-256.

A source is data from a file a human (or a host) wrote: nothing here interprets it. `read`
refuses what cannot be adopted (too large, not UTF-8, not a regular file) with a reason;
`with_hashes` gives candidates the hashes of the files they name, computed here, never taken
from the proposer.
"""

from __future__ import annotations

import dataclasses
import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from engram.outcome import estimate_tokens

TYPE_CHECKING = False
if TYPE_CHECKING:
    from engram.proposals.candidates import Candidate

HOME_PREFIX = "~/"
# Host memory a proposal may name as a source outside the repository (adopt/hosts.py).
HOME_SOURCES = (".claude/projects/", ".gemini/")


@dataclass(frozen=True)
class Source:
    rel: str  # as shown and recorded: repository-relative, or `~/…` for host memory
    text: str
    size: int
    sha256: str
    personal: bool = False  # CLAUDE.local.md and host memory: listed, proposed only when picked
    origin: str = ""  # "" for the repository, else the host ("Claude Code auto memory")

    @property
    def tokens(self) -> int:
        return estimate_tokens(self.text)


def digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def read(path: Path, rel: str, max_chars: int, *, personal: bool = False,
         origin: str = "") -> Source | str:
    """The source at `path`, or why it is skipped."""
    try:
        if path.is_symlink() or not path.is_file():
            return "not a regular file (symlinks are not followed)"
        data = path.read_bytes()
    except OSError as exc:
        return f"cannot be read ({exc.strerror or exc})"
    if len(data) > max_chars * 4:
        return f"larger than --max-chars {max_chars}"
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return "not UTF-8 text"
    if len(text) > max_chars:
        return f"larger than --max-chars {max_chars} ({len(text)} characters)"
    if b"\x00" in data:
        return "binary file"
    return Source(rel, text.replace("\r\n", "\n"), len(data), digest(data), personal, origin)


def resolve(project: Path, home: Path, rel: str) -> Path | None:
    """Where a recorded source lies: inside the project, or in a host's memory under HOME."""
    if rel.startswith(HOME_PREFIX):
        tail = rel[len(HOME_PREFIX):]
        if not tail.startswith(HOME_SOURCES) or ".." in Path(tail).parts:
            return None
        return home / tail
    path = Path(rel)
    if path.is_absolute() or ".." in path.parts:
        return None
    return project / path


def with_hashes(project: Path, candidates: Sequence[Candidate]) -> list[Candidate]:
    """Each candidate's `source_hashes`, one per source file, from the file as it is now
    (an empty string for a file that is not there): a proposer names files, Engram hashes."""
    from engram.config import read_env

    home = read_env().home
    cache: dict[str, str] = {}

    def one(rel: str) -> str:
        if rel not in cache:
            path = resolve(project, home, rel)
            try:
                ok = path is not None and path.is_file() and not path.is_symlink()
                cache[rel] = digest(path.read_bytes()) if ok and path is not None else ""
            except OSError:
                cache[rel] = ""
        return cache[rel]

    return [dataclasses.replace(c, source_hashes=tuple(one(f) for f in c.source_files))
            if c.source_files else c for c in candidates]
