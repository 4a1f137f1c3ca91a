"""The derived search index: one SQLite (FTS5) file per root under `.cache/`, never the truth.

Before every read the index compares a cheap stat listing (path, mtime, size, inode) of the
memory files with what it indexed and re-parses only what changed, so hand edits, adds and deletes
are seen by the next command without anyone running a rebuild. Deleting `.cache/` loses nothing.
Invalid files are remembered with their line and reason so `status` and `verify` report them.
A root whose `.cache/` cannot be written (read-only checkout) gets an in-memory index.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import zlib
from collections.abc import Collection, Iterator, Sequence
from typing import TYPE_CHECKING, Any, NamedTuple

from engram.errors import InvalidMemoryError
from engram.progress import Progress
from engram.search import docs
from engram.search.index_file import memory_from_json, memory_index, memory_to_json, open_index
from engram.search.visibility import Policy
from engram.storage import fault_text
from engram.store.ids import is_valid_id
from engram.store.model import TYPES, Memory
from engram.store.repo import ACTIVE_DIRS, NOTE_DIR, Store, parse_bytes
from engram.store.sqlitefile import remove_broken
from engram.workspace import Root

if TYPE_CHECKING:
    from engram.search.semantic import Embedder

_DF_CACHE = 4096  # anchors whose document frequency one index remembers


def _listing_digest(disk: dict[str, tuple[int, int, int]]) -> str:
    """A stable digest of (path, mtime, size, inode) for every file, independent of order."""
    parts = sorted(f"{rel}\0{m}\0{s}\0{i}" for rel, (m, s, i) in disk.items())
    # zlib, not hashlib: a freshness key needs no cryptography, and importing hashlib loads
    # OpenSSL (~15 ms) in commands that otherwise hash nothing. Two 32-bit sums and the length.
    data = "\n".join(parts).encode()
    return f"{zlib.crc32(data):08x}{zlib.adler32(data):08x}{len(data):x}"


class FileFacts(NamedTuple):
    """One file as last indexed: its hash and the scanner version that found it clean."""

    sha: str
    scanned: str | None


class Listed(NamedTuple):
    """One indexed memory and the hash of its bytes (`RootIndex.listed`)."""

    rel: str
    id: str
    type: str
    lifecycle: str
    tier: str
    sha: str


class RootIndex:
    """The index of one root."""

    def __init__(self, root: Root) -> None:
        self.root = root
        self.store = Store(root)
        # unusable: the cache file could not be used as it was (`cache.unusable`).
        self.db, self.unusable = open_index(root.cache_dir)
        self._ino = self._cache_inode()
        self._fresh = False  # a full refresh ran since the last forget_freshness
        # Document frequencies for evidence pruning, valid while the data is unchanged.
        self._df_version: tuple[int, int] = (-1, -1)
        self._df: dict[str, int] = {}
        self._n = 0
        # How many rows docs.HIDDEN_ROWS lists, and for which data version and policy.
        self._hidden_key: tuple[tuple[int, int], Policy] | None = None
        self._hidden = 0
        self._vec_key: tuple[tuple[int, int], str] | None = None  # data version, table ident

    def _cache_inode(self) -> int:
        try:
            return (self.root.cache_dir / "index.sqlite").stat().st_ino
        except OSError:
            return -1  # in-memory index: never reused across commands

    def _dir_key(self) -> str:
        """Stats that change whenever a memory file is added, removed or renamed (every Engram
        write and git checkout renames or recreates files) and whenever hashes are approved."""
        base = os.fspath(self.root.path)
        parts = []
        for name in (*ACTIVE_DIRS, NOTE_DIR, self.root.hashes_file.name):
            try:
                st = os.stat(f"{base}/{name}")  # noqa: PTH116 - strings, no Path objects, on the hot path
            except OSError:
                parts.append(f"{name}:-")
                continue
            parts.append(f"{name}:{st.st_mtime_ns}:{st.st_size}:{st.st_ino}")
        return "|".join(parts)

    def refresh(self) -> int:
        """Bring the index up to date with the files; returns how many files were re-read.

        A cache that fails while refreshing (a trigger planted after it was opened, a foreign
        schema, a lock held too long) is bypassed for this command: an in-memory index is
        built from the files, and a broken file is removed so the next command rebuilds it."""
        try:
            return self._refresh()
        except sqlite3.Error as exc:
            self.bypass(exc)
            return self._refresh()

    def bypass(self, exc: BaseException) -> None:
        """Serve this command from an in-memory index (see `refresh`)."""
        with contextlib.suppress(sqlite3.Error):
            self.db.close()
        remove_broken(self.root.cache_dir / "index.sqlite", exc)
        self.db, self.unusable, self._ino = memory_index(), True, -1
        self._df_version, self._hidden_key, self._vec_key = (-1, -1), None, None

    def _refresh(self) -> int:
        if not self.root.exists():
            return 0
        # Taken before the listing: a change racing with this refresh shows up next time.
        key = self._dir_key()
        disk = self.store.stat_listing()
        digest = _listing_digest(disk)
        row = self.db.execute("SELECT value FROM meta WHERE key='listing'").fetchone()
        if row and row[0] == digest:
            # The common case: one stat per file and a string compare (after a rehash, say,
            # which changes the dir key and no file).
            if self._stored_key() != key:
                with self._transaction():
                    self.db.execute("INSERT OR REPLACE INTO meta VALUES ('dir_key', ?)", (key,))
            return 0
        with self._transaction():
            # Read what is indexed only under the write lock: another process may have just
            # indexed the same files, and inserting them twice would break mem.rel's UNIQUE.
            known = {r: (m, s, i) for r, m, s, i in
                     self.db.execute("SELECT rel, mtime_ns, size, ino FROM files")}
            changed = [r for r, st in disk.items() if known.get(r) != st]
            gone = [r for r in known if r not in disk]
            self.db.execute("INSERT OR REPLACE INTO meta VALUES ('listing', ?)", (digest,))
            for rel in gone:
                self._drop(rel)
            # A build of thousands of files takes seconds: show a counter on a terminal only.
            progress = Progress("engram: indexing memory files", len(changed))
            try:
                for rel in changed:
                    self._index_file(rel, disk[rel], rel in known)
                    progress.advance()
            finally:
                progress.close()
            self.db.execute("INSERT OR REPLACE INTO meta VALUES ('dir_key', ?)", (key,))
        if len(changed) + len(gone) > 100:
            # Fold a big rebuild into the main file now, so readers map it instead of paging
            # through a large write-ahead log.
            with contextlib.suppress(sqlite3.Error):
                self.db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        return len(changed) + len(gone)

    def _stored_key(self) -> str | None:
        row = self.db.execute("SELECT value FROM meta WHERE key = 'dir_key'").fetchone()
        return str(row[0]) if row else None

    def file_facts(self, rels: Sequence[str]) -> dict[str, FileFacts]:
        """What the index knows about a few files, in one query (the guarded read's inputs)."""
        if not rels:
            return {}
        marks = ", ".join("?" * len(rels))
        rows = self.db.execute(
            "SELECT f.rel, f.sha, s.version FROM files f "  # noqa: S608
            f"LEFT JOIN scanned s ON s.sha = f.sha WHERE f.rel IN ({marks})", tuple(rels))
        return {str(r[0]): FileFacts(str(r[1] or ""), r[2]) for r in rows}

    def record_clean(self, sha: str, version: str) -> None:
        """Remember a clean scan (a cache: losing it only costs a rescan)."""
        with contextlib.suppress(sqlite3.Error):
            self.db.execute("INSERT OR REPLACE INTO scanned VALUES (?, ?)", (sha, version))

    def quick_refresh(self) -> None:
        """The read path's check, once per request (`ReadSession.begin`): a full stat pass only
        when a directory or the hashes changed.

        Stat-ing every file costs ~10 µs each, too much per `load` at 10,000 memories. A file edited
        in place (no rename) is re-read here when it is printed (`refresh_file`) and by the next
        full refresh otherwise; it cannot be printed unapproved either way (docs/reading.md).
        """
        if self._fresh or not self.root.exists():
            return
        try:
            stale = self._stored_key() != self._dir_key()
        except sqlite3.Error as exc:  # a foreign schema: no meta table
            self.bypass(exc)
            stale = True
        if stale:
            self.refresh()

    def refresh_file(self, rel: str, sha: str) -> None:
        """Re-index one file whose bytes (hash `sha`) differ from what the index holds."""
        row = self.db.execute("SELECT sha FROM files WHERE rel = ?", (rel,)).fetchone()
        if row is not None and row[0] == sha:
            return
        try:
            st = os.lstat(self.root.path / rel)
        except OSError:
            return
        with self._transaction():
            self._index_file(rel, (st.st_mtime_ns, st.st_size, st.st_ino), row is not None)

    @contextlib.contextmanager
    def _transaction(self) -> Iterator[None]:
        self.db.execute("BEGIN IMMEDIATE")
        try:
            yield
        except BaseException:
            self.db.execute("ROLLBACK")
            raise
        self.db.execute("COMMIT")

    def _drop(self, rel: str) -> None:
        row = self.db.execute("SELECT rowid FROM mem WHERE rel=?", (rel,)).fetchone()
        if row:
            docs.delete(self.db, row[0])
            self.db.execute("DELETE FROM mem WHERE rowid=?", row)
            self.db.execute("DELETE FROM vec WHERE rowid=?", row)  # a reused rowid starts bare
        self.db.execute("DELETE FROM files WHERE rel=?", (rel,))

    def _index_file(self, rel: str, st: tuple[int, int, int], known: bool) -> None:
        if known:
            self._drop(rel)
        error, line, sha = None, 0, ""
        try:
            data = self.store.read_bytes(rel)
            from engram.store.repo import sha256_bytes

            sha = sha256_bytes(data)
            mem = parse_bytes(data, rel, self.root)
        except InvalidMemoryError as exc:
            error, line = exc.reason, exc.line
        except OSError as exc:
            error, line = f"cannot read: {exc.strerror}", 1
        except Exception as exc:  # noqa: BLE001 - a file must never crash the index
            error, line = f"cannot parse: {fault_text(exc)[0]}", 1
        self.db.execute("INSERT OR REPLACE INTO files VALUES (?,?,?,?,?,?,?)",
                        (rel, st[0], st[1], st[2], sha, error, line))
        if error is not None:
            return
        fts, row = docs.row_values(mem)
        cur = self.db.execute(
            f"INSERT INTO mem({', '.join(docs.ROW_COLS)}, hidable, data) "  # noqa: S608
            f"VALUES ({', '.join('?' * (len(docs.ROW_COLS) + 2))})", (*row, memory_to_json(mem)))
        docs.put(self.db, int(cur.lastrowid or 0), fts)

    def _data_version(self) -> tuple[int, int]:
        """Moves whenever the indexed data may have changed: SQLite's `data_version` on another
        connection's commit, `total_changes` on this one's. What is cached against it (document
        frequencies, hidden rows) lets a long-lived process (the MCP server) reuse answers
        between calls and never keep stale ones."""
        return (int(self.db.execute("PRAGMA data_version").fetchone()[0]),
                self.db.total_changes)

    def doc_freq(self, anchors: Sequence[str]) -> tuple[dict[str, int], int]:
        """`docs.doc_freq`, cached until the data changes."""
        version = self._data_version()
        if version != self._df_version or len(self._df) > _DF_CACHE:
            self._df_version, self._df = version, {}
            self._n = docs.memory_count(self.db)
        missing = [a for a in anchors if a not in self._df]
        if missing:
            self._df.update(docs.doc_freq(self.db, missing, self._n))
        return {a: self._df[a] for a in anchors}, self._n

    def hidden_rows(self, policy: Policy) -> int:
        """Keep `docs.HIDDEN_ROWS` current for this policy (roles, date) and data; returns how
        many rows it lists."""
        before = self._data_version()
        if self._hidden_key != (before, policy):
            self._hidden = docs.fill_hidden(self.db, policy)
            # Filling the table counts as changes on this connection, so key on this
            # connection's count after it, and on other connections' commits before it.
            self._hidden_key = ((before[0], self.db.total_changes), policy)
        return self._hidden

    def fill_vectors(self, embedder: Embedder) -> int:
        """vectors.fill, skipped while the data and the table are what the last fill saw."""
        if self._vec_key == (self._data_version(), embedder.ident):
            return 0
        from engram.search import vectors

        try:
            done = vectors.fill(self.db, embedder)
        except sqlite3.Error:
            return 0  # a locked or read-only cache: rows without a vector are never similar
        self._vec_key = (self._data_version(), embedder.ident)
        return done

    def usable(self) -> bool:
        """False once the cache file this connection uses was deleted or replaced."""
        try:
            return os.stat(self.root.cache_dir / "index.sqlite").st_ino == self._ino  # noqa: PTH116
        except OSError:
            return False

    def forget_freshness(self) -> None:
        """Make the next read check the files again (a new request of a `ReadSession`)."""
        self._fresh = False

    def ensure_fresh(self) -> None:
        if not self._fresh:
            self.refresh()
            self._fresh = True

    def memories(self) -> list[Memory]:
        self.ensure_fresh()
        return [memory_from_json(d) for (d,) in self.db.execute("SELECT data FROM mem")]

    def get(self, mem_id: str) -> Memory | None:
        self.ensure_fresh()
        row = self.db.execute("SELECT data FROM mem WHERE id=? ORDER BY rel LIMIT 1",
                              (mem_id,)).fetchone()
        return memory_from_json(row[0]) if row else None

    def listed(self, *, include_notes: bool = False) -> list[Listed]:
        """Every indexed memory (working notes only when asked), by id, after a full refresh,
        with the hash of its bytes. The index's own parse stands in for reading thousands of
        files (the write path plans against every memory of a root); `memories_at` decodes the
        few a caller needs whole."""
        self.ensure_fresh()
        notes = "" if include_notes else "WHERE m.rel NOT GLOB ?"
        params: tuple[str, ...] = () if include_notes else (f"{NOTE_DIR}/*",)
        rows = self.db.execute(
            "SELECT m.rel, m.id, m.type, m.lifecycle, m.tier, f.sha "  # noqa: S608
            f"FROM mem m JOIN files f ON f.rel = m.rel {notes} ORDER BY m.id, m.rel", params)
        return [Listed(*map(str, r)) for r in rows]

    def memories_at(self, rels: Collection[str]) -> dict[str, Memory]:
        """The indexed memories of these files, as parsed at the last refresh, by path."""
        out: dict[str, Memory] = {}
        wanted = list(rels)
        for start in range(0, len(wanted), 500):  # well under SQLite's variable limit
            part = wanted[start:start + 500]
            marks = ", ".join("?" * len(part))
            out.update((str(rel), memory_from_json(data)) for rel, data in self.db.execute(
                f"SELECT rel, data FROM mem WHERE rel IN ({marks})", part))  # noqa: S608
        return out

    def file_names(self) -> list[str]:
        """Every indexed file, parsed or not (active and working/), as of the last refresh."""
        return [str(r) for (r,) in self.db.execute("SELECT rel FROM files")]

    def invalid(self) -> list[InvalidMemoryError]:
        """Files that do not parse. The index only says which ones: each is parsed again, so
        the reason printed is the file's own, never text a rewritten (git-ignored) row holds."""
        self.ensure_fresh()
        store = Store(self.root)
        listed = store.stat_listing()
        out: list[InvalidMemoryError] = []
        for (rel,) in self.db.execute("SELECT rel FROM files WHERE error IS NOT NULL "
                                      "ORDER BY rel").fetchall():
            if rel not in listed:
                continue
            try:
                store.read(rel)
            except InvalidMemoryError as exc:
                out.append(exc)
        return out

    def duplicate_ids(self) -> dict[str, list[str]]:
        """Ids that more than one indexed file declares, with those files (search/claims.py
        decides which one a read shows)."""
        self.ensure_fresh()
        rows = self.db.execute("SELECT id, rel FROM mem WHERE id IN "
                               "(SELECT id FROM mem GROUP BY id HAVING count(*) > 1) "
                               "ORDER BY id, rel")
        out: dict[str, list[str]] = {}
        for mid, rel in rows:
            if is_valid_id(mid):  # a rewritten (git-ignored) row names no sentence
                out.setdefault(str(mid), []).append(str(rel))
        return out

    def counts(self) -> dict[str, Any]:
        self.ensure_fresh()
        # Counted from the git-ignored index: only values of Engram's own shapes are names.
        by_type = {t: n for t, n in self.db.execute(
            "SELECT type, count(*) FROM mem GROUP BY type") if t in TYPES}
        by_tier = {t: n for t, n in self.db.execute(
            "SELECT tier, count(*) FROM mem GROUP BY tier") if t in ("durable", "working")}
        return {"by_type": by_type, "by_tier": by_tier}

    def close(self) -> None:
        self.db.close()
