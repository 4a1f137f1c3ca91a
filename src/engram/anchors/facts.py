"""What the repository knows about paths, cached in `.cache/anchors.sqlite`.

Git is asked only when the cache key changes: HEAD (the ref it names and that ref's commit) or
the git index file. Working out the key reads two or three small files under `.git/` and runs
no process, so a load with a warm cache pays well under a millisecond. Outside git, `FsFacts`
answers from the file system: paths exist or not, and nothing is known about history.
"""

from __future__ import annotations

import contextlib
import re
import sqlite3
import subprocess
from pathlib import Path
from typing import NamedTuple, Protocol

from engram.anchors import gitlog
from engram.anchors.gitlog import Fate
from engram.store.sqlitefile import open_cache

SCHEMA = 1
_DDL = """
CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT);
CREATE TABLE IF NOT EXISTS tracked(path TEXT PRIMARY KEY) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS fate(path TEXT PRIMARY KEY, kind TEXT, new_path TEXT, sha TEXT,
  date TEXT) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS touch(path TEXT, date TEXT, sha TEXT);
CREATE INDEX IF NOT EXISTS touch_path ON touch(path, date);
"""


class Changes(NamedTuple):
    commits: int
    commit: str
    date: str


class Facts(Protocol):
    """Questions the anchor check asks; answered from git history or from the file system."""

    top: Path
    in_git: bool
    note: str  # why answers are partial ("", "shallow clone", "not a git repository", …)

    def preload(self) -> None: ...
    def tracked(self, path: str) -> bool: ...
    def tracked_under(self, prefix: str) -> list[str]: ...
    def known(self, path: str) -> bool: ...
    def fate(self, path: str) -> Fate | None: ...
    def fates_under(self, prefix: str) -> list[tuple[str, Fate]]: ...
    def changes_after(self, paths: list[str], day: str) -> Changes: ...


def _prefix_range(prefix: str) -> tuple[str, str]:
    base = prefix.rstrip("/") + "/"
    return base, base[:-1] + "0"  # '0' sorts right after '/'


# The cache lives in the git-ignored `.cache/`, which anything that writes the workspace can
# rewrite (its key is read from `.git/` files the same writer can read). A load prints what it
# says about a stale memory's code, so what leaves the cache has git's shapes or is dropped:
# a fate is "moved" or "deleted", a commit is hex, a date is ISO, a note is one Engram writes.
# Paths are still names anyone could choose; check.py prints them as file names.
_COMMIT = re.compile(r"[0-9a-f]{7,64}")
_DATE = re.compile(r"\d{4}-\d\d-\d\d")
SHALLOW_NOTE = "shallow clone: moves and deletions before its first commit are not seen"
LONG_NOTE = f"long history: only the newest {gitlog.MAX_COMMITS:,} commits are read"


def _fate(kind: str, new_path: str, commit: str, date: str) -> Fate | None:
    """A cached fate with git's shapes, or None (a row Engram did not write)."""
    if kind not in ("moved", "deleted") or not isinstance(new_path, str) \
            or not _COMMIT.fullmatch(str(commit)) or not _DATE.fullmatch(str(date)) \
            or (kind == "moved") != bool(new_path):
        return None
    return Fate(kind, new_path, commit, date)


def _known_note(note: str) -> str:
    """The cached note, only made of the notes `_update` writes."""
    parts = [n for n in str(note).split("; ") if n in (SHALLOW_NOTE, LONG_NOTE)]
    return "; ".join(parts)


class GitFacts:
    in_git = True

    def __init__(self, db: sqlite3.Connection, top: Path, note: str) -> None:
        self.db, self.top, self.note = db, top, _known_note(note)
        self._tracked: set[str] | None = None

    def preload(self) -> None:
        """Hold the tracked paths in memory: one query instead of one per anchor, worth it when
        thousands of memories are checked (`engram stale`), not for the few a load prints."""
        self._tracked = {p for (p,) in self.db.execute("SELECT path FROM tracked")}

    def tracked(self, path: str) -> bool:
        if self._tracked is not None:
            return path in self._tracked
        return self.db.execute("SELECT 1 FROM tracked WHERE path=?", (path,)).fetchone() is not None

    def tracked_under(self, prefix: str) -> list[str]:
        if not prefix:
            return [p for (p,) in self.db.execute("SELECT path FROM tracked ORDER BY path")]
        lo, hi = _prefix_range(prefix)
        return [p for (p,) in self.db.execute(
            "SELECT path FROM tracked WHERE path >= ? AND path < ? ORDER BY path", (lo, hi))]

    def known(self, path: str) -> bool:
        return self.tracked(path) or self.fate(path) is not None or self.db.execute(
            "SELECT 1 FROM touch WHERE path=? LIMIT 1", (path,)).fetchone() is not None

    def fate(self, path: str) -> Fate | None:
        row = self.db.execute("SELECT kind, new_path, sha, date FROM fate WHERE path=?",
                              (path,)).fetchone()
        return _fate(*row) if row else None

    def fates_under(self, prefix: str) -> list[tuple[str, Fate]]:
        lo, hi = _prefix_range(prefix)
        rows = self.db.execute(
            "SELECT path, kind, new_path, sha, date FROM fate WHERE path >= ? AND path < ? "
            "ORDER BY path", (lo, hi))
        return [(p, f) for p, *row in rows if (f := _fate(*row)) is not None]

    def changes_after(self, paths: list[str], day: str) -> Changes:
        if not paths or not day:
            return Changes(0, "", "")
        count, commit, date = 0, "", ""
        shas: set[str] = set()
        for path in paths[:200]:
            for sha, d in self.db.execute(
                    "SELECT sha, date FROM touch WHERE path=? AND date > ?", (path, day)):
                if not (_COMMIT.fullmatch(str(sha)) and _DATE.fullmatch(str(d))):
                    continue  # not a row Engram wrote
                if sha not in shas:
                    shas.add(sha)
                    count += 1
                    if d > date:
                        commit, date = sha, d
        return Changes(count, commit, date)


class FsFacts:
    """Outside git: a path is there or not; nothing moved, nothing is dated."""

    in_git = False

    def __init__(self, top: Path, note: str = "not a git repository") -> None:
        self.top, self.note = top, note

    def preload(self) -> None:
        pass

    def tracked(self, path: str) -> bool:
        return (self.top / path).is_file()

    def tracked_under(self, prefix: str) -> list[str]:
        base = self.top / prefix
        if not base.is_dir():
            return []
        return sorted(p.relative_to(self.top).as_posix() for p in base.rglob("*") if p.is_file())

    def known(self, path: str) -> bool:
        return self.tracked(path)

    def fate(self, path: str) -> Fate | None:
        return None

    def fates_under(self, prefix: str) -> list[tuple[str, Fate]]:
        return []

    def changes_after(self, paths: list[str], day: str) -> Changes:
        return Changes(0, "", "")


def glob_tracked(facts: Facts, pattern: str) -> list[str]:
    """Tracked files matching a glob: `*` and `?` stay inside one folder, `**` crosses them."""
    literal = re.split(r"[*?\[]", pattern, maxsplit=1)[0]
    base = literal.rsplit("/", 1)[0] if "/" in literal else ""
    compiled = re.compile(glob_regex(pattern))
    return [p for p in facts.tracked_under(base) if compiled.fullmatch(p)]


def glob_regex(pattern: str) -> str:
    out, i = [], 0
    while i < len(pattern):
        if pattern.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
        elif pattern.startswith("**", i):
            out.append(".*")
            i += 2
        elif pattern[i] == "*":
            out.append("[^/]*")
            i += 1
        elif pattern[i] == "?":
            out.append("[^/]")
            i += 1
        elif pattern[i] == "[" and "]" in pattern[i + 2:]:
            j = pattern.index("]", i + 2)
            body = pattern[i + 1:j]
            out.append("[" + ("^" + body[1:] if body.startswith("!") else body) + "]")
            i = j + 1
        else:
            out.append(re.escape(pattern[i]))
            i += 1
    return "".join(out)


# --- the cache ------------------------------------------------------------------------------

def find_git_dir(start: Path) -> tuple[Path, Path] | None:
    """(work tree top, git dir) of the repository holding `start`, read without running git."""
    for d in [start, *start.parents]:
        dotgit = d / ".git"
        if dotgit.is_dir():
            return d, dotgit
        if dotgit.is_file():
            with contextlib.suppress(OSError, UnicodeDecodeError):
                text = dotgit.read_text(encoding="utf-8").strip()
                if text.startswith("gitdir:"):
                    gd = Path(text[7:].strip())
                    return d, gd if gd.is_absolute() else (d / gd).resolve()
            return None
    return None


class Key(NamedTuple):
    head: str  # HEAD's text and the commit it names, as far as files tell
    index_stat: str  # the git index file's stat

    @property
    def text(self) -> str:
        return f"{SCHEMA}|{self.head}|{self.index_stat}"


def cache_key(git_dir: Path) -> Key:
    """Changes when HEAD moves (commit, checkout, reset) or the git index changes."""
    parts = []
    common = git_dir
    with contextlib.suppress(OSError):
        common_file = git_dir / "commondir"
        if common_file.is_file():
            common = (git_dir / common_file.read_text().strip()).resolve()
    try:
        head = (git_dir / "HEAD").read_text(encoding="utf-8", errors="replace").strip()
    except OSError:
        head = ""
    parts.append(head)
    if head.startswith("ref:"):
        ref = head[4:].strip()
        for base in (git_dir, common):
            with contextlib.suppress(OSError):
                parts.append((base / ref).read_text(encoding="utf-8", errors="replace").strip())
                break
        else:
            with contextlib.suppress(OSError):
                st = (common / "packed-refs").stat()
                parts.append(f"packed:{st.st_mtime_ns}:{st.st_size}")
    with contextlib.suppress(OSError):
        st = (git_dir / "shallow").stat()
        parts.append(f"shallow:{st.st_mtime_ns}:{st.st_size}")
    index = ""
    with contextlib.suppress(OSError):
        st = (git_dir / "index").stat()
        index = f"{st.st_mtime_ns}:{st.st_size}:{st.st_ino}"
    return Key("|".join(parts), index)


def open_facts(project: Path, cache_dir: Path | None) -> Facts:
    """Facts for the repository holding `project`, brought up to date if HEAD or the git index
    changed since they were cached: a HEAD that moved forward reads only the new commits."""
    found = find_git_dir(project)
    if found is None:
        return FsFacts(project)
    top, git_dir = found
    key = cache_key(git_dir)
    db = _open_db(cache_dir)
    meta = dict(db.execute("SELECT key, value FROM meta").fetchall())
    if meta.get("key") != key.text:
        try:
            _update(db, top, key, meta)
        except (OSError, subprocess.SubprocessError, ValueError, sqlite3.Error):
            db.close()
            return FsFacts(top, "git is not available; only present paths are checked")
        meta = dict(db.execute("SELECT key, value FROM meta").fetchall())
    return GitFacts(db, top, meta.get("note", ""))


def _open_db(cache_dir: Path | None) -> sqlite3.Connection:
    if cache_dir is not None:
        return open_cache(cache_dir / "anchors.sqlite", _prepare)[0]
    db = sqlite3.connect(":memory:", isolation_level=None)
    _prepare(db)
    return db


def _prepare(db: sqlite3.Connection) -> None:
    if db.execute("PRAGMA user_version").fetchone()[0] != SCHEMA:
        db.executescript("DROP TABLE IF EXISTS meta; DROP TABLE IF EXISTS tracked; "
                         "DROP TABLE IF EXISTS fate; DROP TABLE IF EXISTS touch;")
        db.executescript(_DDL)
        db.execute(f"PRAGMA user_version={SCHEMA}")


def _update(db: sqlite3.Connection, top: Path, key: Key, meta: dict[str, str]) -> None:
    """Bring the cache to the repository's state, in one transaction."""
    repo = gitlog.info(top)
    old_head = meta.get("head", "")
    incremental = bool(old_head and repo.head and meta.get("top") == str(repo.top)
                       and meta.get("shallow") == str(repo.shallow)
                       and gitlog.is_ancestor(repo.top, old_head, repo.head))
    hist = None
    if repo.head != old_head or not incremental:
        hist = gitlog.history(repo.top, repo.head, old_head if incremental else "")
    index_changed = meta.get("index") != key.index_stat or not incremental
    paths = gitlog.tracked(repo.top) if index_changed else None
    notes = []
    if repo.shallow:
        notes.append(SHALLOW_NOTE)
    if hist is not None and hist.commits >= gitlog.MAX_COMMITS:
        notes.append(LONG_NOTE)
    elif incremental:
        notes = notes or [n for n in meta.get("note", "").split("; ") if n]
    db.execute("BEGIN IMMEDIATE")
    try:
        if not incremental:
            for table in ("tracked", "fate", "touch"):
                db.execute(f"DELETE FROM {table}")  # noqa: S608 - fixed table names
        if hist is not None:
            _apply_history(db, hist)
        if paths is not None:
            _apply_tracked(db, paths, replace_all=not incremental)
        db.execute("DELETE FROM meta")
        db.executemany("INSERT INTO meta VALUES (?, ?)", [
            ("key", key.text), ("index", key.index_stat), ("head", repo.head),
            ("top", str(repo.top)), ("shallow", str(repo.shallow)), ("note", "; ".join(notes))])
        db.execute("COMMIT")
    except BaseException:
        db.execute("ROLLBACK")
        raise


def _apply_history(db: sqlite3.Connection, hist: gitlog.History) -> None:
    """Newer events win: a path alive again loses its fate; a new fate replaces an old one."""
    db.executemany("DELETE FROM fate WHERE path = ?", ((p,) for p in hist.alive))
    db.executemany("INSERT OR REPLACE INTO fate VALUES (?, ?, ?, ?, ?)",
                   ((p, *f) for p, f in hist.fates.items()))
    db.executemany("INSERT INTO touch VALUES (?, ?, ?)", hist.touches)


def _apply_tracked(db: sqlite3.Connection, paths: list[str], *, replace_all: bool) -> None:
    if replace_all:
        db.executemany("INSERT OR IGNORE INTO tracked VALUES (?)", ((p,) for p in paths))
        return
    now = set(paths)
    before = {p for (p,) in db.execute("SELECT path FROM tracked")}
    db.executemany("DELETE FROM tracked WHERE path = ?", ((p,) for p in before - now))
    db.executemany("INSERT INTO tracked VALUES (?)", ((p,) for p in now - before))
