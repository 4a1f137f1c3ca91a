"""Read the files a pack will print, through the guard, and find memories by id
(docs/reading.md "Guarded read").

Routing works on the index; printing works on the file as it is now. Each selected file is read,
checked against `memory.hashes.json` (working notes are not hashed, so only scanned) and scanned
for secrets and injection lines, then parsed fresh. Archived memories are found only here (the
index holds active files and notes), so `load --id` can still show them with a warning.
"""

from __future__ import annotations

import errno
import hashlib
import os
import stat
from collections.abc import Mapping, Sequence
from functools import lru_cache
from pathlib import Path
from typing import NamedTuple

from engram.errors import EngramError, InvalidMemoryError
from engram.search.guard import NOTE_FIX, Scanner, Skip, check, sha256_hex
from engram.search.index import FileFacts, RootIndex
from engram.search.session import ReadSession, approved_hashes
from engram.storage import fault_text
from engram.store import locks
from engram.store.fileio import wait_for_writers
from engram.store.model import Memory
from engram.store.repo import NOTE_DIR, Store
from engram.workspace import Root

_HASH_SKIPS = ("no approved hash", "changed since it was approved")
OUTSIDE_FIX = "review it, then run engram rehash <id> at your terminal"


def _scan_with_safety(text: str) -> Sequence[object]:
    """The shared secret/PII/injection scanner, allowing the file's own author e-mail: e-mails
    are PII everywhere except the author fields (docs/safety.md "Personal data"). Imported on
    first use: compiling its rules costs more than a whole cached load."""
    from engram.store.integrity import scan_memory_text

    return scan_memory_text(text)


def default_scanner() -> Scanner:
    return _scan_with_safety


@lru_cache(maxsize=1)
def scanner_version() -> str:
    """Identifies the scan rules without importing them: clean verdicts cached in the index
    are reused only while the engram version and the rules file are unchanged."""
    import engram

    base = Path(engram.__file__).parent
    stamps = [engram.__version__]
    # every module of the scanner (rules, how lines are read, look-alike folding), and what
    # scan_memory_text scans with them (the frontmatter values it parses)
    names = sorted(p.name for p in (base / "safety").glob("*.py"))
    for name in (*(f"safety/{n}" for n in names), "store/integrity.py", "store/frontmatter.py"):
        try:
            st = (base / name).stat()
        except OSError:
            continue
        stamps.append(f"{st.st_mtime_ns}:{st.st_size}")
    return ":".join(stamps)


# What the guarded read trusts is read by this process, never taken from the derived index
# (a git-ignored file that anything could rewrite without a diff): the index only chooses which
# files to read, and the clean-scan verdicts it caches carry a MAC under the user's key. The
# hashes file as last read and the memories parsed from checked bytes are the read session's
# (session.py), so a long-lived server pays for them once per change.


class Read(NamedTuple):
    """One guarded read: the memory and its text, or why it was skipped."""

    memory: Memory | None
    raw: str = ""
    skip: Skip | None = None
    sha: str = ""  # of the bytes read
    stale: bool = False  # the index holds other bytes for this file: refresh its row
    others: tuple[Skip, ...] = ()  # other files declaring the same id, not shown (claims.py)


class Reader:
    """Guarded reads for one request of a read session. The session's index only says which
    bytes it indexed (to notice a stale row) and which hashes already passed the content scan;
    approval always comes from memory.hashes.json (`ReadSession.approved`)."""

    def __init__(self, session: ReadSession, scan: Scanner | None = None) -> None:
        self.session = session
        self.roots = session.roots
        self.scan = scan
        self.index = session.index
        self._dirs: dict[tuple[str, str], bool] = {}
        self._facts: dict[tuple[str, str], FileFacts] = {}
        self._roots: dict[str, Root] | None = None
        self._parts: dict[str, RootIndex] | None = None
        self._seals: dict[str, Mapping[str, str]] = {}
        self._mac_key: bytes | None = None

    def root(self, scope: str) -> Root | None:
        """The root of a scope, if it exists (looked up once per command)."""
        if self._roots is None:
            self._roots = {r.scope: r for r in self.roots.existing()}
        return self._roots.get(scope)

    def hashes(self, root: Root) -> Mapping[str, str]:
        return self.session.approved(root)

    def prefetch(self, scope: str, rels: Sequence[str]) -> None:
        """Load the index's facts about files about to be read, in one query."""
        root = self.root(scope)
        part = self._part(root) if root is not None else None
        if part is not None:
            self._facts.update({(scope, r): f for r, f in part.file_facts(rels).items()})

    def read(self, scope: str, rel: str) -> Read:
        """The guarded read: the memory parsed from the bytes the guard passed, or the skip."""
        got, data = self.checked(scope, rel)
        root = self.root(scope)
        if got.skip is not None or root is None:
            return got
        try:
            memory = self.parse(root, rel, got.sha, data)
        except InvalidMemoryError as exc:
            shown = f"{scope}:{rel}" if scope == "global" else rel
            return Read(None, skip=Skip(shown, f"invalid at line {exc.line}: {exc.reason}"),
                        sha=got.sha, stale=got.stale)
        return got._replace(memory=memory, raw=data.decode("utf-8"))

    def parse(self, root: Root, rel: str, sha: str, data: bytes) -> Memory:
        """The memory in bytes the guard passed (`checked`), parsed once per session."""
        return self.session.parsed(root, rel, sha, data)

    def checked(self, scope: str, rel: str) -> tuple[Read, bytes]:
        """The guard alone: the file's bytes and a Read that holds their hash and, when the
        file must not be printed, the skip; its memory is always None."""
        root = self.root(scope)
        shown = f"{scope}:{rel}" if scope == "global" else rel
        if root is None:
            return Read(None, skip=Skip(shown, "its root is gone")), b""
        try:
            data = self._bytes(root, rel)
        except (EngramError, OSError) as exc:
            return Read(None, skip=Skip(shown, f"cannot be read: {fault_text(exc)[0]}")), b""
        sha = sha256_hex(data)
        part = self._part(root)
        facts = self._facts.get((scope, rel))
        if facts is None and part is not None:
            facts = part.file_facts([rel]).get(rel)
        # Archived files are not indexed (no facts): they are checked, never re-indexed.
        stale = facts is not None and facts.sha != sha
        if rel.startswith(f"{NOTE_DIR}/"):
            # Notes are git-ignored and never hashed: shown only when Engram's seal verifies
            # (anything else in working/ nobody approved), and still scanned (docs/saving.md
            # "Working notes").
            unsealed = self._unsealed(root, rel, data)
            if unsealed:
                return Read(None, skip=Skip(shown, unsealed, NOTE_FIX), sha=sha), data
            hashes: Mapping[str, str] = {rel: sha}
        else:
            hashes = self.session.approved(root)
        mark = self._clean_mark(root, sha)
        clean = bool(mark) and facts is not None and not stale and facts.scanned == mark
        skip = check(rel, data, hashes, None if clean else self.scan, display=shown, sha=sha)
        if skip is not None and skip.reason.startswith(_HASH_SKIPS):
            # A commit may be half-way: its file renamed, its hash not yet recorded. Wait for
            # the writer (bounded), then judge the file against the hashes file as it is now.
            wait_for_writers(root.path)
            data, sha, skip = self._reread(root, rel, shown)
            stale = facts is not None and facts.sha != sha
        if skip is not None and rel in self.session.flagged(root) \
                and skip.reason.startswith(_HASH_SKIPS[0]):
            from engram.store.record import OUTSIDE

            skip = Skip(shown, OUTSIDE, OUTSIDE_FIX)
        if skip is not None:
            return Read(None, skip=skip, sha=sha, stale=stale), data
        if part is not None and not clean and self.scan is not None and mark:
            part.record_clean(sha, self._clean_mark(root, sha))
        return Read(None, sha=sha, stale=stale), data

    def _clean_mark(self, root: Root, sha: str) -> str:
        """What the index keeps for bytes that passed the content scan: a MAC under the user's
        key over the root, the bytes' hash and the scanner version. The index lives in the
        git-ignored `.cache/`, which anything that writes the workspace can rewrite; a row it
        wrote must never let a file skip the scan. "" (always scan) when there is no key."""
        if self._mac_key is None:
            from engram.store.seal import user_key

            try:
                self._mac_key = user_key(self.roots.state_dir, self.roots.project)
            except (EngramError, OSError):
                self._mac_key = b""
        if not self._mac_key:
            return ""
        # surrogatepass: a folder name that is not UTF-8 reaches us as lone surrogates
        msg = f"scan-clean\0{root.path}\0{sha}\0{scanner_version()}".encode("utf-8",
                                                                           "surrogatepass")
        return hashlib.blake2b(msg, key=self._mac_key, digest_size=16).hexdigest()

    def _unsealed(self, root: Root, rel: str, data: bytes) -> str:
        """Why a working/ file is not a note Engram wrote, or "" when its seal verifies."""
        from engram.store.seal import note_seal, read_note_seals, user_key

        seals = self._seals.get(root.scope)
        if seals is None:
            seals = self._seals[root.scope] = read_note_seals(root.path)
        expected = seals.get(rel)
        if expected is None:
            return "not written by Engram (no seal)"
        try:
            key = user_key(self.roots.state_dir, self.roots.project, create=False)
        except (EngramError, OSError) as exc:
            return f"its seal cannot be checked ({fault_text(exc)[0]})"
        import hmac

        if not hmac.compare_digest(expected, note_seal(key, root.path, rel, data)):
            return "changed since Engram wrote it (seal mismatch)"
        return ""

    def _reread(self, root: Root, rel: str, shown: str) -> tuple[bytes, str, Skip | None]:
        try:
            data = self._bytes(root, rel)
        except (EngramError, OSError) as exc:
            return b"", "", Skip(shown, f"cannot be read: {fault_text(exc)[0]}")
        hashes = approved_hashes(root, self.roots.state_dir)
        sha = sha256_hex(data)
        return data, sha, check(rel, data, hashes, self.scan, display=shown, sha=sha)

    def _bytes(self, root: Root, rel: str) -> bytes:
        """The file's bytes, refusing paths that leave the root and symlinked files.

        The directories between the root and the file are checked once per command to be real
        directories, not symlinks; the file itself is opened with O_NOFOLLOW. Anything else (a
        symlink planted in place of a memory or of a type directory) takes the store's own
        checks, the slow path, instead of being followed.
        """
        parts = rel.split("/")
        if ".." in parts or rel.startswith("/") or "\x00" in rel or len(parts) < 2 \
                or not self._plain_dirs(root, parts[:-1]):
            return Store(root).read_bytes(rel)
        try:
            fd = locks.open_nofollow(f"{root.path}/{rel}", locks.O_NONBLOCK)
        except OSError as exc:
            if exc.errno == errno.ELOOP:
                return Store(root).read_bytes(rel)
            raise
        try:
            st = os.fstat(fd)
            if not stat.S_ISREG(st.st_mode):
                return Store(root).read_bytes(rel)
            # One read usually covers the file as fstat saw it (asking one byte more notices
            # growth); a short read or a grown file reads on to the end.
            chunks = [os.read(fd, st.st_size + 1)]
            got = len(chunks[0])
            while chunks[-1] and got != st.st_size:
                chunks.append(os.read(fd, 1 << 16))
                got += len(chunks[-1])
            return b"".join(chunks)
        finally:
            os.close(fd)

    def _plain_dirs(self, root: Root, dirs: Sequence[str]) -> bool:
        """True when each directory on the way from the root is a directory, not a symlink."""
        path = ""
        for name in dirs:
            path = f"{path}/{name}" if path else name
            key = (root.scope, path)
            ok = self._dirs.get(key)
            if ok is None:
                try:
                    ok = stat.S_ISDIR(os.lstat(f"{root.path}/{path}").st_mode)
                except OSError:
                    ok = False
                self._dirs[key] = ok
            if not ok:
                return False
        return True

    def _part(self, root: Root) -> RootIndex | None:
        if self.index is None:
            return None
        if self._parts is None:
            self._parts = {p.root.scope: p for p in self.index.parts}
        return self._parts.get(root.scope)

    def archived(self, memory_id: str) -> list[tuple[str, str]]:
        """(scope, rel) of archived copies of an id, newest archive first."""
        out: list[tuple[str, str]] = []
        for root in self.roots.existing():
            for rel in reversed(Store(root).archived_files()):
                if rel.rsplit("/", 1)[-1] == f"{memory_id}.md":
                    out.append((root.scope, rel))
        return out
