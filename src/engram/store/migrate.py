"""Rewrite legacy v1/v2 memory files (older TypeScript releases) as schema v3
(README.md#how-it-works).

The frontmatter becomes canonical v3 and the body stays byte-identical (`format.upgrade_text`).
Each rewritten file first gets a `<file>.pre-v3.bak` copy of its old bytes, and the rewrite goes
through `Store.write_files`, so hashes and the changelog stay consistent. Only approved files are
migrated: a file whose hash disagrees with its bytes (a hand edit) or that has no hash at all (a
file nobody approved, e.g. one dropped into `rules/` by hand) is reported, never migrated, since
rewriting it here would record a hash for it and so approve it silently (issue 16). Running it
twice changes nothing the second time.
"""

from __future__ import annotations

from dataclasses import dataclass

from engram.errors import InvalidMemoryError
from engram.progress import Progress
from engram.store.fileio import atomic_write
from engram.store.format import upgrade_text
from engram.store.model import SCHEMA_VERSION
from engram.store.repo import Change, Store, parse_bytes, sha256_bytes
from engram.workspace import Roots

BACKUP_SUFFIX = ".pre-v3.bak"
WRITE_BATCH = 100
MESSAGE = "upgrade legacy memory to schema v3 (body unchanged)"


@dataclass(frozen=True)
class Migration:
    scope: str
    rel: str
    status: str  # "migrated" | "planned" | "skipped: <why>"


def migrate(roots: Roots, *, plan: bool = False) -> list[Migration]:
    out: list[Migration] = []
    for root in roots.existing():
        store = Store(root, roots.state_dir)
        hashes, outside = store.trusted_hashes()
        changes: list[Change] = []
        files = store.hashed_files()
        # Thousands of legacy files take a while (a backup each): a counter on a terminal.
        checking = Progress("engram: checking memory files for v1/v2", len(files))
        for rel in files:
            checking.advance()
            try:
                data = store.read_bytes(rel)
                memory = parse_bytes(data, rel, root)
            except InvalidMemoryError:
                continue  # `engram verify` reports invalid files; nothing to migrate
            if memory.schema_version >= SCHEMA_VERSION:
                continue
            expected = hashes.get(rel)
            if expected != sha256_bytes(data):
                why = "its hash line was written outside Engram" if rel in outside else \
                    "never approved (no hash)" if expected is None else \
                    "hand-edited since approval"
                out.append(Migration(root.scope, rel, f"skipped: {why} (review it, run "
                                     f"`engram rehash {memory.id}`, then upgrade)"))
                continue
            out.append(Migration(root.scope, rel, "planned" if plan else "migrated"))
            if not plan:
                backup = store.resolve(rel).with_name(store.resolve(rel).name + BACKUP_SUFFIX)
                if not backup.exists():
                    atomic_write(backup, data)
                changes.append(Change(rel, upgrade_text(memory)))
        checking.close()
        _write(store, changes)
    return out


def _write(store: Store, changes: list[Change]) -> None:
    """Write in batches so a terminal sees progress; each batch records its own hashes."""
    writing = Progress("engram: writing v3 memory files", len(changes))
    try:
        for start in range(0, len(changes), WRITE_BATCH):
            batch = changes[start:start + WRITE_BATCH]
            store.write_files(batch, MESSAGE)
            writing.advance(len(batch))
    finally:
        writing.close()
