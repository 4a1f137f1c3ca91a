"""One root's files on disk: listing, reading, hashes, changelog, and the memory write path.

`Store.write_files` is the only way memory files change: under the root lock it writes each file
atomically, then the hashes file, then the changelog, so a concurrent writer never loses an
update and a crash leaves each file old or new (`engram verify` names any file to re-approve).
A write that fails part-way (a full disk, a read-only hashes file) is rolled back: every file it
touched gets its previous bytes again (or is removed when it did not exist), so no memory is left
without its hash and a retry starts from the state before.
"""

from __future__ import annotations

import errno
import json
import os
import stat
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from engram import clock, jsontext
from engram.errors import IntegrityError, InvalidMemoryError, StorageError
from engram.storage import fault_text, open_regular, read_fd, read_text, shown_path
from engram.store import jsonorder, locks, ts_index
from engram.store.fileio import atomic_write, clean_temp_files, remove, root_lock
from engram.store.format import parse_memory
from engram.store.layout import ensure_lines
from engram.store.model import Memory
from engram.workspace import IGNORED_LINES, TYPE_DIRS, Root, Roots

if TYPE_CHECKING:
    from engram.store.record import Record

ACTIVE_DIRS = TYPE_DIRS
NOTE_DIR = "working"


class Change(NamedTuple):
    """Write `text` to `rel` (posix, relative to the root), or delete it when text is None."""

    rel: str
    text: str | None


class Scan:
    """Every memory of a root that parsed, and every file that did not."""

    __slots__ = ("memories", "invalid")

    def __init__(self, memories: list[Memory] | None = None,
                 invalid: list[InvalidMemoryError] | None = None) -> None:
        self.memories: list[Memory] = [] if memories is None else memories
        self.invalid: list[InvalidMemoryError] = [] if invalid is None else invalid


def sha256_bytes(data: bytes) -> str:
    import hashlib  # lazy: loading OpenSSL is a large share of a cold read-only command

    return hashlib.sha256(data).hexdigest()


def now_iso() -> str:
    return clock.stamp()


def _utf8(name: str) -> bool:
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate: os's surrogateescape of a non-UTF-8 byte
        return False
    return True


def _escaped(name: str) -> str:
    """A file name with its non-UTF-8 bytes written as `\\xe9`, for reports."""
    return os.fsencode(name).decode("utf-8", "backslashreplace")


AFTER_WRITE = "storage.after_write"


def after_write_note(name: str, exc: BaseException) -> str:
    """What a failure after the memory was written and hashed says (fixed words, `fault_text`)."""
    return (f"the memory was saved and approved; updating {name} afterwards failed "
            f"({fault_text(exc)[1]}: {fault_text(exc)[0]}): fix or delete {name}, then run "
            "`engram verify`")


class Store:
    def __init__(self, root: Root, state_dir: Path | None = None) -> None:
        self.root = root
        self.path = root.path
        # The user's state dir, for the approval record (store/record.py); None: the
        # environment's (config.read_env), which is where every command keeps it.
        self._state_dir = state_dir
        # Failures after a write succeeded (`storage.after_write`), for the caller to report.
        self.after_write: list[str] = []
        self._bad_names: dict[tuple[str, ...], list[str]] = {}  # by the dirs listed

    @property
    def unreadable_names(self) -> list[str]:
        """`.md` files found by the last listings whose names are not UTF-8 (escaped)."""
        return sorted({n for names in self._bad_names.values() for n in names})

    def _list(self, dirs: Iterable[str], recursive: bool = False) -> list[str]:
        return sorted(self.stat_listing(dirs, recursive))

    def stat_listing(self, dirs: Iterable[str] = (*ACTIVE_DIRS, NOTE_DIR),
                     recursive: bool = False) -> dict[str, tuple[int, int, int]]:
        """{rel: (mtime_ns, size, inode)} of the `.md` files in `dirs`, one lstat per file.

        This runs before every read (index freshness), so it works on strings, not Paths.
        A type directory that is itself a symlink is skipped: memory never lives outside the root.
        """
        out: dict[str, tuple[int, int, int]] = {}
        dirs = tuple(dirs)
        bad = self._bad_names[dirs] = []
        base = str(self.path)
        for d in dirs:
            top = f"{base}/{d}"
            try:
                if not stat.S_ISDIR(os.lstat(top).st_mode):
                    continue
            except FileNotFoundError:
                continue
            stack = [(top, d)]
            while stack:
                path, rel_dir = stack.pop()
                with os.scandir(path) as it:
                    for e in it:
                        if not _utf8(e.name):  # bytes of another encoding: no key can hold it
                            if e.name.endswith(".md"):
                                bad.append(_escaped(f"{rel_dir}/{e.name}"))
                            continue
                        if e.name.endswith(".md") and not e.is_dir(follow_symlinks=False):
                            st = e.stat(follow_symlinks=False)
                            out[f"{rel_dir}/{e.name}"] = (st.st_mtime_ns, st.st_size, st.st_ino)
                        elif recursive and e.is_dir(follow_symlinks=False):
                            stack.append((e.path, f"{rel_dir}/{e.name}"))
        return out

    def memory_files(self, include_notes: bool = True) -> list[str]:
        """Active durable files (and working notes) as posix paths relative to the root."""
        return self._list([*ACTIVE_DIRS, NOTE_DIR] if include_notes else ACTIVE_DIRS)

    def archived_files(self) -> list[str]:
        return self._list(["archive"], recursive=True)

    def hashed_files(self) -> list[str]:
        """Files covered by memory.hashes.json: active durable + archived (notes are ignored)."""
        return self.memory_files(include_notes=False) + self.archived_files()

    def resolve(self, rel: str) -> Path:
        """Absolute path of `rel`, refusing anything that escapes the root (symlinks included)."""
        target = (self.path / rel)
        if ".." in Path(rel).parts or Path(rel).is_absolute():
            raise StorageError(f"path {rel!r} escapes the memory root", code="storage.escape",
                               hint="memory paths are relative to .agents/.engram")
        real_root = self.path.resolve()
        real = target.resolve()
        if real != real_root and real_root not in real.parents:
            raise StorageError(f"{rel} points outside the memory root", code="storage.escape",
                               hint="replace the symlink with a real file inside the root")
        return target

    def read_bytes(self, rel: str) -> bytes:
        """A memory file's bytes; symlinks are refused (O_NOFOLLOW), so nothing outside is read,
        and only regular files are read (a FIFO or socket never blocks, `open_regular`)."""
        path = self.resolve_rel(rel)
        try:
            fd = open_regular(path, follow=False)
        except StorageError as exc:
            raise InvalidMemoryError(rel, 1, exc.message.removeprefix(f"{path} ")
                                     + "; move it out of the memory root") from exc
        except OSError as exc:
            if exc.errno == errno.ELOOP:
                raise InvalidMemoryError(rel, 1, "memory files may not be symlinks; "
                                         "a symlink could point outside the memory root") from exc
            raise InvalidMemoryError(rel, 1, f"cannot read: {exc.strerror}") from exc
        try:
            return read_fd(fd)
        finally:
            os.close(fd)

    def resolve_rel(self, rel: str) -> str:
        """Cheap containment for paths from listings and ids: no '..', not absolute."""
        if not rel or rel.startswith("/") or "\x00" in rel or ".." in rel.split("/"):
            raise StorageError(f"path {rel!r} escapes the memory root", code="storage.escape",
                               hint="memory paths are relative to .agents/.engram")
        return f"{self.path}/{rel}"

    def read(self, rel: str) -> Memory:
        try:
            data = self.read_bytes(rel)
        except StorageError as exc:
            raise InvalidMemoryError(rel, 1, exc.message) from exc
        return parse_bytes(data, rel, self.root)

    def scan(self, include_notes: bool = True) -> Scan:
        result = Scan()
        for rel in self.memory_files(include_notes):
            try:
                result.memories.append(self.read(rel))
            except InvalidMemoryError as exc:
                result.invalid.append(exc)
        return result

    def load_hashes(self) -> dict[str, str]:
        return self.read_hashes()[0]

    def read_hashes(self) -> tuple[dict[str, str], str]:
        """memory.hashes.json and the SHA-256 of its bytes ("" when there is none), read once."""
        try:
            text = read_text(self.root.hashes_file)
        except FileNotFoundError:
            return {}, ""
        try:
            data = jsontext.loads(text)
        except json.JSONDecodeError as exc:
            conflict = "<<<<<<<" in text
            raise IntegrityError(
                f"{self.root.hashes_file} is not valid JSON (line {exc.lineno})",
                hint="run `engram rehash --merged` to resolve a merge conflict" if conflict
                else "run `engram rehash` to rebuild it from the files you reviewed",
                code="integrity.hashes_invalid",
            ) from exc
        except RecursionError as exc:  # e.g. 100,000 `[`: the decoder recurses once per level
            raise IntegrityError(f"{self.root.hashes_file} is not valid JSON (nested too deeply)",
                                 hint="run `engram rehash` to rebuild it from the files you "
                                 "reviewed", code="integrity.hashes_invalid") from exc
        if not isinstance(data, dict):
            raise IntegrityError(f"{self.root.hashes_file} must hold a JSON object",
                                 hint="run `engram rehash`", code="integrity.hashes_invalid")
        return ({str(k): str(v) for k, v in data.items()},
                sha256_bytes(text.encode("utf-8", "surrogatepass")))

    def save_hashes(self, hashes: dict[str, str], approved: Mapping[str, str] | None = None,
                    before: Mapping[str, str] | None = None,
                    removed: Iterable[str] = ()) -> None:
        """Write the hashes file; `approved` are the lines a human just approved through
        Engram (kept in the approval record, store/record.py), `before` the file as it was."""
        path = self.root.hashes_file
        atomic_write(path, jsonorder.dumps_like(hashes, jsonorder.read_or_none(path)))
        self.note_approved(before or {}, approved or {}, removed)

    def approval_record(self) -> Record | None:
        """The approval record of this root: workspace roots only (the global root lives in
        the user's home, out of a workspace writer's reach), never one inside the project."""
        from engram.store import record

        if self.root.scope != "workspace":
            return None
        if self._state_dir is None:
            from engram.config import read_env

            self._state_dir = read_env().config_dir
        if not record.applies(self._state_dir, self.path.parent.parent):
            return None
        return record.Record(self._state_dir, self.path)

    def _record_off(self) -> bool:
        """A workspace root whose record does not apply (the state dir is in the project)."""
        from engram.store import record

        return self.root.scope == "workspace" and self._state_dir is not None \
            and not record.applies(self._state_dir, self.path.parent.parent)

    def trusted_hashes(self) -> tuple[dict[str, str], frozenset[str]]:
        """The hashes file less the lines the approval record flags, and those files (hash
        lines written outside Engram on this machine, store/record.py). Raises IntegrityError
        for a hashes file that does not parse."""
        hashes, seen = self.read_hashes()
        rec = self.approval_record() if hashes else None
        if rec is None and hashes and self._record_off():
            # A state dir inside the project (an ENGRAM_CONFIG_DIR an agent set through a host
            # entry) would turn the record off: it vouches for nothing instead.
            return {}, frozenset(hashes)
        flagged = rec.unexplained(hashes, seen) if rec is not None else frozenset()
        if flagged:
            hashes = {rel: sha for rel, sha in hashes.items() if rel not in flagged}
        return hashes, flagged

    def approved_hashes(self) -> dict[str, str]:
        """`trusted_hashes` without the flagged files: what every rewrite of an approved file
        checks first (a rewrite records its new hash, so a flagged file must never pass)."""
        return self.trusted_hashes()[0]

    def note_approved(self, before: Mapping[str, str], approved: Mapping[str, str],
                      removed: Iterable[str] = ()) -> None:
        """Keep `approved` in the approval record; a record that cannot be written leaves the
        approval standing (it is flagged on the next read) and says so (`after_write`)."""
        removed = list(removed)
        rec = self.approval_record() if approved or removed else None
        if rec is None:
            return
        try:
            rec.note(before, approved, removed)
        except Exception as exc:  # noqa: BLE001 - the approval is already written
            self.after_write.append(
                f"the memory was saved and its hash written, but the approval record in the "
                f"Engram state directory could not be updated ({fault_text(exc)[1]}); it will "
                f"not load as trusted until you run `engram rehash <id>` at your terminal")

    def append_changelog(self, lines: Sequence[str]) -> None:
        path = self.root.changelog_file
        try:
            old = read_text(path)
        except FileNotFoundError:
            old = "# Engram changelog\n\n"
        if old and not old.endswith("\n"):
            old += "\n"
        atomic_write(path, old + "".join(f"{line}\n" for line in lines))

    def clean_stale_temp(self) -> int:
        """Remove temp files a killed writer left behind (only while no writer is active)."""
        try:
            with root_lock(self.path, timeout=0):
                return self._clean_temp()
        except StorageError:
            return 0  # a writer is active; its own temp files are not stale

    def _clean_temp(self) -> int:
        removed = 0
        for d in (self.path, *(self.path / t for t in (*ACTIVE_DIRS, NOTE_DIR))):
            removed += clean_temp_files(d)
        return removed

    def write_files(self, changes: Sequence[Change], message: str) -> None:
        """Apply changes atomically per file, then hashes and changelog, all under the lock;
        all or nothing: a failure puts every touched file back as it was."""
        if not changes:
            return
        with root_lock(self.path):
            self._clean_temp()
            # A broken hashes file raises here: we never overwrite one we could not parse.
            hashes = self.load_hashes()
            before_hashes = dict(hashes)
            approved: dict[str, str] = {}
            stamp = now_iso()
            log: list[str] = []
            undo: list[tuple[Path, bytes | None]] = []
            try:
                # Each step is atomic (a failed one changed nothing), so a step joins `undo`
                # only once it succeeded.
                for ch in changes:
                    path = self.resolve(ch.rel)
                    hashed = not ch.rel.startswith(f"{NOTE_DIR}/")
                    before = _previous(path)
                    if ch.text is None:
                        remove(path)
                        hashes.pop(ch.rel, None)
                    else:
                        data = ch.text.encode("utf-8")
                        atomic_write(path, data)
                        if hashed:
                            hashes[ch.rel] = approved[ch.rel] = sha256_bytes(data)
                    undo.append((path, before))
                    if hashed:
                        log.append(f"- {stamp} {ch.rel}: {message}")
                before = _previous(self.root.hashes_file)
                self.save_hashes(hashes)
                undo.append((self.root.hashes_file, before))
                if log:
                    self.append_changelog(log)
            except (StorageError, OSError) as exc:
                raise _rolled_back(exc, undo) from exc
            # The human approved these lines through Engram (store/record.py).
            self.note_approved(before_hashes, approved,
                               [ch.rel for ch in changes if ch.text is None])
            # Derived files of other tools and git: the memory write above stands either way,
            # so a failure here (any: a deeply nested memory.index.json raises RecursionError)
            # is noted as `storage.after_write`, never raised as a failed write.
            try:
                self.refresh_ts_index({ch.rel: ch.text for ch in changes})
            except Exception as exc:  # noqa: BLE001 - the write already happened
                self.after_write.append(after_write_note(ts_index.INDEX_NAME, exc))
            try:
                self._keep_ignored()
            except Exception as exc:  # noqa: BLE001 - the write already happened
                self.after_write.append(after_write_note(".gitignore", exc))

    def _keep_ignored(self) -> None:
        """A root's existing `.gitignore` (maybe written by the TypeScript tool, which lacks
        `.cache/` and `.lock`) gets the lines it misses once Engram has written here."""
        try:
            text = self.root.gitignore_file.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            return  # no .gitignore here (or an unreadable one): not ours to create
        new = ensure_lines(text, IGNORED_LINES)
        if new is not None:
            atomic_write(self.root.gitignore_file, new)

    def refresh_ts_index(self, texts: Mapping[str, str | None]) -> None:
        """Keep a TypeScript teammate's `memory.index.json` current for these files, from the
        text Engram wrote or approved for each (None: removed), never from the disk after the
        fact: a file rewritten in that instant would put unapproved text into the index, whose
        summaries the TypeScript tool shows its agent (store/ts_index.py). Nothing happens in a
        root without that file."""
        path = self.path / ts_index.INDEX_NAME
        wanted = [rel for rel in texts if ts_index.indexed(rel)]
        if not wanted:
            return
        # Never through a symlink (containment.py refuses one; this holds if one is planted
        # after that check): a link would copy the file it points to into the repository.
        old = _previous(path)
        if old is None:
            return
        written, removed = [], []
        for rel in wanted:
            text = texts[rel]
            try:
                if text is None:
                    raise InvalidMemoryError(rel, 1, "removed")
                written.append(parse_memory(text, rel, self.root.scope))
            except InvalidMemoryError:
                removed.append(rel)  # gone, or unparseable: the TypeScript tool skips it too
        try:
            text = old.decode("utf-8")
        except UnicodeDecodeError:
            return  # not an index this tool wrote: left alone
        new = ts_index.updated_index(text, written, removed)
        if new is not None:
            atomic_write(path, new)


def _previous(path: Path) -> bytes | None:
    """A file's bytes before a write touches it (None: it does not exist)."""
    try:
        fd = locks.open_nofollow(path)
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise StorageError(f"cannot read {path} before changing it: {exc.strerror}",
                           code="storage.io", hint="check the file, then retry; nothing "
                           "was changed") from exc
    with os.fdopen(fd, "rb") as f:
        return f.read()


def _rolled_back(exc: StorageError | OSError, undo: list[tuple[Path, bytes | None]]
                 ) -> StorageError:
    """Put back what a failed write changed, newest first; say what happened either way."""
    failed: list[str] = []
    for path, old in reversed(undo):
        try:
            if old is None:
                remove(path)
            else:
                atomic_write(path, old)
        except (StorageError, OSError):
            failed.append(shown_path(path))
    what = exc.message if isinstance(exc, StorageError) else fault_text(exc)[0]
    hint = exc.hint if isinstance(exc, StorageError) else "check the path and retry"
    code = exc.code if isinstance(exc, StorageError) else "storage.io"
    if failed:
        return StorageError(f"{what}; the rollback failed too for {', '.join(failed)}",
                            code=code, hint="run `engram verify` to see which files to review "
                            "and `engram rehash` only after checking them")
    return StorageError(f"{what}; the whole write was rolled back, nothing changed",
                        code=code, hint=hint)


def parse_bytes(data: bytes, rel: str, root: Root) -> Memory:
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise InvalidMemoryError(rel, line, "file is not valid UTF-8") from exc
    return parse_memory(text, rel, root.scope)


def stores_in(roots: Roots, scope: str | None = None) -> list[Store]:
    """The store of each existing root, only `scope`'s when given (`engram archive`,
    `engram confirm`; each takes the root's lock itself)."""
    return [Store(r, roots.state_dir) for r in roots.existing() if not scope or r.scope == scope]
