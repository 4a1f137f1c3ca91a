"""Portable file locks and open flags for POSIX and Windows.

`acquire(fd, shared=…, deadline=…)` takes an advisory whole-file lock on an open descriptor,
polling until `deadline` (a `time.monotonic()` value); `release(fd)` gives it back. The contract
the store relies on:

- an exclusive lock excludes every other lock on the file, in any process;
- a shared lock waits while another process holds the exclusive one, and needs no write access
  (readers of a read-only checkout open `.lock` read-only);
- a lock is released when its descriptor is closed, so a killed writer never wedges a root.

POSIX uses `fcntl.flock` (shared locks coexist). Windows uses `msvcrt.locking` on the file's
first byte, which only knows exclusive locks: a shared request takes the exclusive lock, so two
readers wait for each other for the instant they hold it. That is enough for the one reader
that locks (`fileio.wait_for_writers`), which releases at once. A library was considered:
`portalocker` needs pywin32 for shared locks on Windows and costs ~50 ms of import on every
command, `filelock` has no shared lock that works without write access.

`READ_FLAGS`/`WRITE_FLAGS` add `O_BINARY` on Windows (no newline translation, so hashes agree
across systems); `open_nofollow` refuses a symlink where POSIX has `O_NOFOLLOW` and checks for
one first where it has not.
"""

from __future__ import annotations

import errno
import os
import sys
import time
from pathlib import Path
from typing import Any

O_BINARY: int = getattr(os, "O_BINARY", 0)
O_NOFOLLOW: int = getattr(os, "O_NOFOLLOW", 0)
O_NONBLOCK: int = getattr(os, "O_NONBLOCK", 0)  # a FIFO in place of a file never blocks an open
READ_FLAGS = os.O_RDONLY | O_BINARY
WRITE_FLAGS = os.O_WRONLY | O_BINARY
POLL_S = 0.005


class _Posix:
    def __init__(self) -> None:
        import fcntl

        # Any: typeshed hides fcntl's names when mypy checks for Windows, where this never runs.
        self._fcntl: Any = fcntl

    def try_lock(self, fd: int, shared: bool) -> bool:
        f = self._fcntl
        try:
            f.flock(fd, (f.LOCK_SH if shared else f.LOCK_EX) | f.LOCK_NB)
        except BlockingIOError:
            return False
        return True

    def unlock(self, fd: int) -> None:
        self._fcntl.flock(fd, self._fcntl.LOCK_UN)


class _Windows:
    """One-byte `msvcrt.locking` at offset 0; `msvcrt` is passed in so tests can simulate it."""

    def __init__(self, msvcrt: object | None = None) -> None:
        if msvcrt is None:
            import msvcrt as real

            msvcrt = real
        self._m = msvcrt

    def try_lock(self, fd: int, shared: bool) -> bool:
        os.lseek(fd, 0, os.SEEK_SET)
        try:
            self._m.locking(fd, self._m.LK_NBLCK, 1)  # type: ignore[attr-defined]
        except OSError as exc:
            if exc.errno in (errno.EACCES, errno.EDEADLK, errno.EAGAIN):
                return False
            raise
        return True

    def unlock(self, fd: int) -> None:
        os.lseek(fd, 0, os.SEEK_SET)
        self._m.locking(fd, self._m.LK_UNLCK, 1)  # type: ignore[attr-defined]


_backend: _Posix | _Windows | None = None


def _os_backend() -> _Posix | _Windows:
    global _backend
    if _backend is None:
        _backend = _Windows() if sys.platform == "win32" else _Posix()
    return _backend


def acquire(fd: int, *, shared: bool = False, deadline: float | None = None,
            backend: _Posix | _Windows | None = None) -> bool:
    """Lock `fd` (exclusive unless `shared`); poll until `deadline`. True when held."""
    impl = backend or _os_backend()
    while True:
        if impl.try_lock(fd, shared):
            return True
        if deadline is None or time.monotonic() > deadline:
            return False
        time.sleep(POLL_S)


def release(fd: int, *, backend: _Posix | _Windows | None = None) -> None:
    (backend or _os_backend()).unlock(fd)


def open_nofollow(path: str | os.PathLike[str], extra: int = 0) -> int:
    """Open a file for reading, refusing a symlink in its last component (errno ELOOP)."""
    if not O_NOFOLLOW and Path(path).is_symlink():
        raise OSError(errno.ELOOP, "is a symbolic link", str(path))
    return os.open(path, READ_FLAGS | O_NOFOLLOW | extra)
