"""The read session: everything the read path keeps between reads, in one object with one lifetime.

A `ReadSession` owns the index connections of its roots, `memory.hashes.json` as last read, the
memories parsed from bytes the guard passed, the card lines made from them, and which roots were
checked for freshness in the current request. The guarded read is correct only while these
agree, so nothing else in `search/` keeps state between calls (tests/test_architecture.py).

Lifetime (docs/ARCHITECTURE.md):

- CLI: one per command. The `search.api` functions make one when none is given and close it
  when they return, so a CLI command never reuses anything.
- MCP: the engine holds one per workspace for the life of the server, used only on its engine
  thread, and every `search.api` call is one request: `begin()` re-checks freshness and reuses
  the connections and caches. The caches are keyed by what makes them true (a file's hash, the
  hashes file's stats, SQLite's data version), so reuse never serves another process's old state;
  what they save is parsing and scanning the same bytes again.
"""

from __future__ import annotations

import contextlib
import os
import threading
from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, NamedTuple

from engram.errors import IntegrityError
from engram.search.roots_index import MemoryIndex
from engram.store.repo import Store, parse_bytes

if TYPE_CHECKING:
    from pathlib import Path

    from engram.outcome import Diagnostic
    from engram.search.semantic_load import Semantic
    from engram.store.model import Memory
    from engram.workspace import Root, Roots

PARSED_MAX = 2048  # memories kept parsed; past that the cache starts over
CARDS_MAX = 65536  # card lines kept

ByFile = tuple[str, str, str, str]  # (root path, scope, rel, sha256 of the bytes)


class ReadSession:
    """The read path's state for one command, or for one long-lived server across requests."""

    def __init__(self, roots: Roots, *, long_lived: bool = False) -> None:
        self.roots = roots
        # The MCP server's session (many requests); a CLI command's session serves one.
        self.long_lived = long_lived
        self._semantic: tuple[tuple[int, ...], Semantic] | None = None
        self._index: MemoryIndex | None = None
        self._opened_for: tuple[str, ...] = ()
        self._thread: int | None = None
        # memory.hashes.json by path, with the stats it had when read: every approval renames a
        # new file into place, so a changed file never keeps the old stats.
        # The approval record's `.seen` file joins the key (store/record.py): a human's rehash
        # of a flagged file may leave the hashes file's bytes as they were.
        self._approved: dict[str, tuple[tuple[int, ...], Trusted]] = {}
        # Memories parsed from the bytes whose hash the guard just checked. A Memory is never
        # mutated, so sharing one is safe.
        self._parsed: dict[ByFile, Memory] = {}
        # Card lines by the same key (a listing still reads, hashes and checks every file).
        self._cards: dict[ByFile, str] = {}

    def begin(self) -> MemoryIndex:
        """Start one request: the index of the roots that exist now, each root's freshness
        checked once more (a stat of its directories and hashes file, a refresh if they moved).
        Connections are reused while their cache file is the one they opened."""
        me = threading.get_ident()
        if self._thread is None:
            self._thread = me
        elif self._thread != me:
            # A refresh transaction must never interleave with another thread's reads.
            raise RuntimeError("a ReadSession is used by the thread that began it")
        wanted = tuple(str(r.path) for r in self.roots.existing())
        index = self._index
        if index is None or wanted != self._opened_for \
                or not all(p.usable() for p in index.parts):
            if index is not None:
                index.close()
            index = self._index = MemoryIndex(self.roots)
            self._opened_for = wanted
        for part in index.parts:
            part.forget_freshness()
            part.quick_refresh()
        return index

    @property
    def index(self) -> MemoryIndex:
        """The index of the current request (`begin` opens it)."""
        return self._index if self._index is not None else self.begin()

    def approved(self, root: Root) -> Mapping[str, str]:
        """memory.hashes.json of a root as it is now, less the lines the approval record
        flags; an unreadable file approves nothing."""
        return self._trusted(root).hashes

    def flagged(self, root: Root) -> frozenset[str]:
        """Files whose hash line was written outside Engram on this machine (store/record.py)."""
        return self._trusted(root).flagged

    def _trusted(self, root: Root) -> Trusted:
        path = str(root.hashes_file)
        key = _stat_key(path)
        if root.scope == "workspace":
            from engram.store.record import Record

            key += _stat_key(str(Record(self.roots.state_dir, root.path).seen_file))
        cached = self._approved.get(path)
        if cached is not None and cached[0] == key:
            return cached[1]
        got = trusted(root, self.roots.state_dir)
        # Stats taken before the read: a file replaced in between is read again next time.
        self._approved[path] = (key, got)
        return got

    def parsed(self, root: Root, rel: str, sha: str, data: bytes) -> Memory:
        """The memory in bytes the guard passed (hash `sha`), parsed once per session."""
        key = (str(root.path), root.scope, rel, sha)
        memory = self._parsed.get(key)
        if memory is None:
            if len(self._parsed) >= PARSED_MAX:
                self._parsed.clear()
            memory = self._parsed[key] = parse_bytes(data, rel, root)
        return memory

    def card(self, key: ByFile) -> str | None:
        return self._cards.get(key)

    def keep_card(self, key: ByFile, line: str) -> None:
        if len(self._cards) >= CARDS_MAX:
            self._cards.clear()
        self._cards[key] = line

    def semantic(self, enabled: bool) -> Semantic:
        """The semantic extra for this request: the loaded table, or why routing stays
        lexical. Loaded once per session while the table file's stats hold (semantic_load.py)."""
        from engram.search import semantic_load

        if not enabled:
            return semantic_load.OFF
        if not self.long_lived and not semantic_load.COLD_CLI:
            return semantic_load.SKIPPED_COLD
        path = self.roots.vectors_file
        key = semantic_load.file_key(path)
        if self._semantic is None or self._semantic[0] != key:
            self._semantic = (key, semantic_load.load(path))
        return self._semantic[1]

    def cache_diagnostics(self) -> list[Diagnostic]:
        """One `cache.unusable` warning per root whose cache file this request could not use
        as it was (rebuilt or bypassed, search/index.py); fixed words, never SQLite's text."""
        from engram.outcome import Diagnostic
        from engram.store.sqlitefile import UNUSABLE, UNUSABLE_HINT

        parts = self._index.parts if self._index is not None else []
        return [Diagnostic(UNUSABLE, "warn", f"engram: the {p.root.scope} search cache could "
                           f"not be used as it was; this command read the memory files "
                           f"directly ({UNUSABLE_HINT})") for p in parts if p.unusable]

    def close(self) -> None:
        if self._index is not None:
            self._index.close()
            self._index = None


class Trusted(NamedTuple):
    hashes: Mapping[str, str]  # the approved hash lines that stand
    flagged: frozenset[str]  # files whose line the approval record does not vouch for


def _stat_key(path: str) -> tuple[int, ...]:
    try:
        st = os.stat(path)  # noqa: PTH116 - a string path on the hot path
    except OSError:
        return (0,)
    return (st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)


def trusted(root: Root, state_dir: Path | None = None) -> Trusted:
    """memory.hashes.json of a root as it is now, read once, less every line the approval
    record flags (store/record.py); an unreadable file approves nothing."""
    try:
        return Trusted(*Store(root, state_dir).trusted_hashes())
    except IntegrityError:
        return Trusted({}, frozenset())


def approved_hashes(root: Root, state_dir: Path | None = None) -> Mapping[str, str]:
    """`trusted(…).hashes`: the hash lines a read may rely on."""
    return trusted(root, state_dir).hashes


@contextlib.contextmanager
def reading(roots: Roots, session: ReadSession | None) -> Iterator[ReadSession]:
    """The session a read-path call uses: the caller's (a long-lived server), or one made for
    this call alone and closed after it (a CLI command)."""
    if session is not None:
        if session.roots != roots:
            raise ValueError("the read session was opened for other roots")
        yield session
        return
    own = ReadSession(roots)
    try:
        yield own
    finally:
        own.close()
