"""Read the files a pack will print, through the guard (§6.1.5), and find memories by id.

Routing works on the index; printing works on the file as it is now. Each selected file is read,
checked against `memory.hashes.json` (working notes are not hashed, so only scanned) and scanned
for secrets and injection lines, then parsed fresh. Archived memories are found only here (the
index holds active files and notes), so `load --id` can still show them with a warning.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field

from engram.errors import EngramError, IntegrityError, InvalidMemoryError
from engram.search.guard import Scanner, Skip, check, sha256_hex
from engram.search.index import MemoryIndex, RootIndex
from engram.store.model import Memory
from engram.store.repo import NOTE_DIR, Store, parse_bytes
from engram.workspace import Root, Roots


def default_scanner() -> Scanner | None:
    """The shared secret/injection scanner, when the safety package provides it."""
    try:
        from engram.safety import scan_text  # type: ignore[attr-defined, unused-ignore]
    except ImportError:
        return None
    return scan_text  # type: ignore[no-any-return, unused-ignore]


@dataclass
class Read:
    memory: Memory | None
    raw: str = ""
    skip: Skip | None = None
    sha: str = ""  # of the bytes read, so the caller can refresh a stale index row


class _Approved(Mapping[str, str]):
    """The index's mirror of memory.hashes.json, looked up one path at a time."""

    def __init__(self, part: RootIndex) -> None:
        self.part = part

    def __getitem__(self, rel: str) -> str:
        sha = self.part.approved(rel)
        if sha is None:
            raise KeyError(rel)
        return sha

    def __iter__(self) -> Iterator[str]:
        return (str(r) for (r,) in self.part.db.execute("SELECT rel FROM approved"))

    def __len__(self) -> int:
        return int(self.part.db.execute("SELECT count(*) FROM approved").fetchone()[0])


@dataclass
class Reader:
    """Guarded reads for one command: hashes come from the index when one is given (a point
    lookup), else from memory.hashes.json, loaded once per root."""

    roots: Roots
    scan: Scanner | None = None
    index: MemoryIndex | None = None
    _hashes: dict[str, Mapping[str, str]] = field(default_factory=dict)

    def root(self, scope: str) -> Root | None:
        return next((r for r in self.roots.existing() if r.scope == scope), None)

    def hashes(self, root: Root) -> Mapping[str, str]:
        part = next((p for p in self.index.parts if p.root.scope == root.scope), None) \
            if self.index is not None else None
        if part is not None:
            return _Approved(part)
        if root.scope not in self._hashes:
            try:
                self._hashes[root.scope] = Store(root).load_hashes()
            except IntegrityError:
                # An unreadable hashes file approves nothing: every file is skipped, none printed.
                self._hashes[root.scope] = {}
        return self._hashes[root.scope]

    def read(self, scope: str, rel: str) -> Read:
        root = self.root(scope)
        shown = f"{scope}:{rel}" if scope == "global" else rel
        if root is None:
            return Read(None, skip=Skip(shown, "its root is gone"))
        try:
            data = Store(root).read_bytes(rel)
        except (EngramError, OSError) as exc:
            return Read(None, skip=Skip(shown, f"cannot be read: {exc}"))
        sha = sha256_hex(data)
        hashes = self.hashes(root)
        if rel.startswith(f"{NOTE_DIR}/"):
            # Notes are git-ignored and never hashed (§3); they are still scanned.
            hashes = {rel: sha}
        skip = check(rel, data, hashes, self.scan, display=shown)
        if skip is not None:
            return Read(None, skip=skip, sha=sha)
        try:
            memory = parse_bytes(data, rel, root)
        except InvalidMemoryError as exc:
            return Read(None, skip=Skip(shown, f"invalid at line {exc.line}: {exc.reason}"),
                        sha=sha)
        return Read(memory, raw=data.decode("utf-8"), sha=sha)

    def archived(self, memory_id: str) -> list[tuple[str, str]]:
        """(scope, rel) of archived copies of an id, newest archive first."""
        out: list[tuple[str, str]] = []
        for root in self.roots.existing():
            for rel in reversed(Store(root).archived_files()):
                if rel.rsplit("/", 1)[-1] == f"{memory_id}.md":
                    out.append((root.scope, rel))
        return out


def skipped_lines(skips: Sequence[Skip]) -> list[str]:
    return [s.line for s in skips]
