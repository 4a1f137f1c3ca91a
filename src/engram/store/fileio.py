"""The one write helper: atomic UTF-8 writes, a cross-process lock per root, first-change backups.

Every byte Engram writes goes through `atomic_write` (temp file in the same directory, fsync,
rename, fsync of the directory), so a reader sees the old file or the new one, never a torn one.
Writers of one root serialise on `root_lock` (a file lock on `<root>/.lock`, store/locks.py),
which is what keeps concurrent CLI and MCP processes from losing each other's hash or
changelog updates.
"""

from __future__ import annotations

import contextlib
import errno
import os
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

from engram.errors import StorageError
from engram.storage import fault_text, storage_error
from engram.store import locks

TMP_PREFIX = ".engram-tmp-"
LOCK_TIMEOUT_S = 30.0


def _fail(path: Path, exc: OSError, action: str) -> StorageError:
    return storage_error(exc, path, action) or StorageError(fault_text(exc)[0], code="storage.io")


# Roots whose writes never resolve a path through a symlink: root -> the directory every walk
# starts from (containment.ensure registers each root it checked; the workspace walks from the
# project, so `.agents` and `.engram` are not followed either).
_CONTAINED: dict[Path, Path] = {}
_DIRECTORY = getattr(os, "O_DIRECTORY", 0)
# POSIX: every step below is relative to an open directory. Elsewhere (Windows has no dir_fd),
# the plain path operations, as before. (os.replace is os.rename with overwrite.)
_DIR_FD = {os.open, os.mkdir, os.rename, os.unlink, os.stat} <= os.supports_dir_fd


def contain(root: Path, anchor: Path | None = None) -> None:
    """From now on, writes under `root` walk from `anchor` (default: `root`) one directory at a
    time without following a symlink, so a folder swapped for a link after the containment
    check fails the write instead of redirecting it."""
    _CONTAINED[root] = anchor or root


def _anchor(path: Path) -> Path | None:
    for root, anchor in _CONTAINED.items():
        if root == path.parent or root in path.parents:
            return anchor
    return None


def _open_parent(path: Path, *, create: bool) -> int:
    """A descriptor of `path`'s directory, reached without resolving any contained component
    through a symlink (and created one level at a time when `create`)."""
    anchor = _anchor(path)
    parts: tuple[str, ...] = ()
    if anchor is None:
        if create:
            path.parent.mkdir(parents=True, exist_ok=True)
        base = path.parent
    else:
        base, parts = anchor, path.parent.relative_to(anchor).parts
    fd = os.open(base, os.O_RDONLY | _DIRECTORY)
    try:
        for name in parts:
            if create:
                with contextlib.suppress(FileExistsError):
                    os.mkdir(name, 0o777, dir_fd=fd)
            try:
                step = os.open(name, os.O_RDONLY | _DIRECTORY | locks.O_NOFOLLOW, dir_fd=fd)
            except OSError as exc:
                if exc.errno in (errno.ELOOP, errno.ENOTDIR):
                    raise _swapped(path, name) from exc
                raise
            os.close(fd)
            fd = step
    except BaseException:
        os.close(fd)
        raise
    return fd


def _swapped(path: Path, name: str) -> StorageError:
    return StorageError(f"refusing to write {path}: {name} on its way is a symlink or not a "
                        "directory (was it swapped while Engram wrote?)", code="storage.symlink",
                        hint="replace it with a real directory (`engram doctor` lists every "
                        "symlink), then retry; nothing was written outside the root")


def contained_parent(path: Path) -> int | None:
    """A descriptor of `path`'s directory reached as writes reach it (one directory at a time
    from the root's anchor, none through a symlink; created when missing), when `path` is under
    a contained root and the system has directory descriptors; else None. The caller closes it."""
    if not _DIR_FD or _anchor(path) is None:
        return None
    return _open_parent(path, create=True)


def atomic_write(path: Path, data: str | bytes, *, mode: int | None = None) -> None:
    """Replace `path` with `data` atomically. Creates parent directories."""
    payload = data.encode("utf-8") if isinstance(data, str) else data
    if not _DIR_FD:
        return _atomic_write_paths(path, payload, mode)
    try:
        dfd = _open_parent(path, create=True)
    except OSError as exc:
        raise _fail(path.parent, exc, "create") from exc
    tmp = f"{TMP_PREFIX}{path.name}.{os.getpid()}.{time.monotonic_ns()}"
    try:
        try:
            fd = os.open(tmp, locks.WRITE_FLAGS | os.O_CREAT | os.O_EXCL | locks.O_NOFOLLOW,
                         0o644 if mode is None else mode, dir_fd=dfd)
            try:
                _write_all(fd, payload)
                if mode is None and sys.platform != "win32":  # no dir_fd walk on Windows
                    with contextlib.suppress(OSError):
                        old = os.stat(path.name, dir_fd=dfd, follow_symlinks=False)
                        os.fchmod(fd, old.st_mode & 0o7777)
                os.fsync(fd)
            finally:
                os.close(fd)
            os.replace(tmp, path.name, src_dir_fd=dfd, dst_dir_fd=dfd)
        except OSError as exc:
            with contextlib.suppress(OSError):
                os.unlink(tmp, dir_fd=dfd)
            raise _fail(path, exc, "write") from exc
        with contextlib.suppress(OSError):
            os.fsync(dfd)
    finally:
        os.close(dfd)
    return None


def _write_all(fd: int, payload: bytes) -> None:
    view = memoryview(payload)
    while view:
        n = os.write(fd, view)
        view = view[n:]


def _atomic_write_paths(path: Path, payload: bytes, mode: int | None) -> None:
    """atomic_write where directory descriptors are not available (Windows)."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise _fail(path.parent, exc, "create") from exc
    tmp = path.parent / f"{TMP_PREFIX}{path.name}.{os.getpid()}.{time.monotonic_ns()}"
    try:
        fd = os.open(tmp, locks.WRITE_FLAGS | os.O_CREAT | os.O_EXCL,
                     0o644 if mode is None else mode)
        try:
            _write_all(fd, payload)
            os.fsync(fd)
        finally:
            os.close(fd)
        if mode is None and path.exists():
            with contextlib.suppress(OSError):
                tmp.chmod(path.stat().st_mode & 0o7777)
        tmp.replace(path)
    except OSError as exc:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise _fail(path, exc, "write") from exc
    _fsync_dir(path.parent)


def _fsync_dir(directory: Path) -> None:
    with contextlib.suppress(OSError):
        fd = os.open(directory, locks.READ_FLAGS)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def remove(path: Path) -> bool:
    """Delete a file if present; True when something was removed."""
    if not _DIR_FD:
        try:
            path.unlink()
        except FileNotFoundError:
            return False
        except OSError as exc:
            raise _fail(path, exc, "remove") from exc
        _fsync_dir(path.parent)
        return True
    try:
        dfd = _open_parent(path, create=False)
    except FileNotFoundError:
        return False
    except OSError as exc:
        raise _fail(path, exc, "remove") from exc
    try:
        os.unlink(path.name, dir_fd=dfd)
        with contextlib.suppress(OSError):
            os.fsync(dfd)
    except FileNotFoundError:
        return False
    except OSError as exc:
        raise _fail(path, exc, "remove") from exc
    finally:
        os.close(dfd)
    return True


def backup_once(path: Path, suffix: str = ".engram.bak") -> Path | None:
    """Copy a user file next to itself before Engram's first change; never overwrite a backup."""
    if not path.is_file():
        return None
    target = path.with_name(path.name + suffix)
    if target.exists():
        return target
    atomic_write(target, path.read_bytes())
    return target


def clean_temp_files(directory: Path) -> int:
    """Remove temp files left in `directory` by a writer killed before its rename.

    Call only while holding the root lock: a live writer's temp file must not be removed.
    """
    removed = 0
    if not directory.is_dir():
        return 0
    for tmp in directory.glob(f"{TMP_PREFIX}*"):
        with contextlib.suppress(OSError):
            tmp.unlink()
            removed += 1
    return removed


_guard = threading.Lock()
_thread_locks: dict[str, threading.RLock] = {}
_held = threading.local()


@contextlib.contextmanager
def root_lock(root: Path, timeout: float = LOCK_TIMEOUT_S) -> Iterator[None]:
    """Hold the root's exclusive write lock, re-entrant within a thread.

    Threads of one process serialise on an RLock; processes on `flock(<root>/.lock)`. Re-entrancy
    lets commit hold the lock while verdicts are recomputed and files written through repo.
    """
    key = str(root)
    with _guard:
        rlock = _thread_locks.setdefault(key, threading.RLock())
    if not rlock.acquire(timeout=timeout):
        raise _locked(root)
    depth: dict[str, tuple[int, int]] = _held.__dict__.setdefault("depth", {})
    try:
        if key in depth:
            fd, n = depth[key]
            depth[key] = (fd, n + 1)
        else:
            depth[key] = (_flock(root, timeout), 1)
        try:
            yield
        finally:
            fd, n = depth[key]
            if n == 1:
                del depth[key]
                locks.release(fd)
                os.close(fd)
            else:
                depth[key] = (fd, n - 1)
    finally:
        rlock.release()


def wait_for_writers(root: Path, timeout: float = 2.0) -> None:
    """Wait, at most `timeout` seconds, until no other process or thread writes to `root`.

    A reader that met a commit half-way (a file renamed, its hash not yet recorded) calls this
    before judging the file again. A shared flock waits out writers' exclusive locks and needs
    no write access; a thread already holding the lock never waits for itself.
    """
    if str(root) in _held.__dict__.get("depth", {}):
        return
    try:
        fd = os.open(root / ".lock", locks.READ_FLAGS)
    except OSError:
        return  # no lock file: nothing was ever written here
    try:
        if locks.acquire(fd, shared=True, deadline=time.monotonic() + timeout):
            locks.release(fd)
    finally:
        os.close(fd)


def _locked(root: Path) -> StorageError:
    return StorageError(f"another Engram process holds the write lock on {root}",
                        hint="wait for it to finish, then retry", code="storage.locked")


def _flock(root: Path, timeout: float) -> int:
    lock_path = root / ".lock"
    try:
        dfd = contained_parent(lock_path)
        if dfd is None:
            root.mkdir(parents=True, exist_ok=True)
            fd = os.open(lock_path, os.O_RDWR | locks.O_BINARY | os.O_CREAT, 0o644)
        else:  # reached like every write: a root swapped for a link after its check fails here
            try:
                fd = os.open(lock_path.name, os.O_RDWR | locks.O_BINARY | os.O_CREAT
                             | locks.O_NOFOLLOW, 0o644, dir_fd=dfd)
            finally:
                os.close(dfd)
    except OSError as exc:
        raise _fail(lock_path, exc, "lock") from exc
    if not locks.acquire(fd, deadline=time.monotonic() + timeout):
        os.close(fd)
        raise _locked(root)
    return fd
