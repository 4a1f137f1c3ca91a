"""Storage faults in one place: OS and SQLite failures mapped to coded `storage.*` errors, and
reads that only ever open regular files.

`storage_error(exc, path, action)` is the one mapping (ENOSPC, EROFS, EISDIR, ENOTDIR, SQLite
"full" and "readonly", …); the write helper, the CLI and the MCP engine thread all call it, so a
full disk reads the same everywhere. `read_regular` opens with `O_NONBLOCK` and checks the file
type before reading, so a FIFO, socket or device named like an Engram file never blocks a
command. Pure mapping plus small reads; it imports nothing from engram but `errors`.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

from engram.errors import EngramError, StorageError
from engram.store import locks

_UNTOUCHED = "nothing was half-written"

_FULL = ("storage.full", f"the disk is full; free space and retry ({_UNTOUCHED})")
_READONLY = ("storage.readonly", "the directory is read-only; fix its permissions or choose "
             "another --workspace")
# errno -> (code, hint)
_BY_ERRNO: dict[int, tuple[str, str]] = {
    errno.ENOSPC: _FULL, errno.EDQUOT: _FULL, errno.EFBIG: _FULL,
    errno.EROFS: _READONLY, errno.EACCES: _READONLY, errno.EPERM: _READONLY,
    errno.EISDIR: ("storage.is_directory", "a directory stands where Engram expects a file; move "
                   "it away (Engram recreates the file) and retry"),
    errno.ENOTDIR: ("storage.not_directory", "a file stands where Engram expects a directory "
                    "(check --workspace and the memory root); move it away and retry"),
    errno.ELOOP: ("storage.symlink", "a symlink stands where Engram expects a file; replace it "
                  "with the file itself"),
}
_SQLITE: dict[str, tuple[str, str]] = {"SQLITE_FULL": _FULL, "SQLITE_READONLY": _READONLY}
_INDEX_HINT = ("the search index under .agents/.engram/.cache is only a cache: delete that "
               "directory and retry")


def shown_path(path: Path | str | bytes | None) -> str:
    """A path as Engram may print it: the one workspace-derived thing its own messages carry,
    with non-UTF-8 bytes, control and invisible characters written as escapes, and cut short."""
    if path is None:
        return "a file"
    from engram.safety.invisible import printable

    raw = os.fsencode(path) if not isinstance(path, bytes) else path
    return printable(raw.decode("utf-8", "backslashreplace"), 240)


# What a fault is called when Engram prints it: the error's class, never its text (a database
# error can carry a trigger's RAISE message, a JSON error the file's bytes, an OSError a name).
_FAULTS: tuple[tuple[str, str, str], ...] = (
    ("JSONDecodeError", "input.json", "the file is not valid JSON"),
    ("UnicodeDecodeError", "input.encoding", "the file is not valid UTF-8"),
    ("RecursionError", "input.too_deep", "input is nested too deeply to read"),
)


def fault_text(exc: BaseException) -> tuple[str, str]:
    """(message, code) for a failure Engram did not raise itself: fixed words chosen by the
    error's kind (an errno's name, SQLite's result-code name), never `str(exc)`, so no byte of a
    workspace file or database reaches what Engram prints or returns."""
    if isinstance(exc, EngramError):
        return exc.message, exc.code
    if isinstance(exc, OSError):
        name = errno.errorcode.get(exc.errno or 0, "")
        code = _BY_ERRNO.get(exc.errno or 0, ("storage.io", ""))[0]
        text = os.strerror(exc.errno) if exc.errno else "input/output error"
        return (f"{text} ({name})" if name else text), code
    if type(exc).__module__ == "sqlite3":
        name = _sqlite_name(exc)
        code = _SQLITE.get(_primary(name), ("storage.index", ""))[0]
        return (f"the cache database failed ({name})" if name
                else "the cache database failed"), code
    for kind, code, text in _FAULTS:
        if any(k.__name__ == kind for k in type(exc).__mro__):
            return text, code
    return f"unexpected {type(exc).__name__}", "internal"


def _sqlite_name(exc: BaseException) -> str:
    """SQLite's result-code name (`SQLITE_CONSTRAINT_TRIGGER`), only if it is one."""
    name = str(getattr(exc, "sqlite_errorname", "") or "")
    return name if name.startswith("SQLITE_") and name[7:].replace("_", "").isalnum() \
        and name.isupper() and len(name) < 40 else ""


def _primary(name: str) -> str:
    """`SQLITE_READONLY` of `SQLITE_READONLY_DBMOVED`."""
    return "_".join(name.split("_")[:2])


def storage_error(exc: BaseException, path: Path | str | None = None,
                  action: str = "access") -> StorageError | None:
    """The coded error for an OS or SQLite storage failure; None for anything else. Its
    message is `fault_text`'s fixed words and, for an OSError, the path (`shown_path`)."""
    if isinstance(exc, StorageError):
        return exc
    if isinstance(exc, OSError):
        code, hint = _BY_ERRNO.get(exc.errno or 0, ("storage.io", f"check the path and retry; "
                                                    f"{_UNTOUCHED}"))
        where = path if path is not None else exc.filename
        what = f"cannot {action} {shown_path(where)}" if where is not None \
            else f"cannot {action} a file"
        return StorageError(f"{what}: {fault_text(exc)[0]}", hint=hint, code=code)
    if type(exc).__module__ == "sqlite3":  # without importing sqlite3 on the CLI's hot path
        name = _sqlite_name(exc)
        code, hint = _SQLITE.get(_primary(name), ("storage.index", _INDEX_HINT))
        return StorageError(f"the search index failed ({name or 'SQLite error'})", hint=hint,
                            code=code)
    return None


def coded_error(exc: BaseException) -> EngramError | None:
    """What the adapters show for a failure no command coded itself: a storage fault through
    `storage_error`, runaway nesting (RecursionError) as `input.too_deep`; None otherwise."""
    if isinstance(exc, RecursionError):
        return EngramError("input is nested too deeply to read", code="input.too_deep",
                           hint="a file or argument nests hundreds of levels; flatten it")
    return storage_error(exc)


def not_regular(path: Path | str, mode: int) -> StorageError:
    kind = ("a directory" if stat.S_ISDIR(mode) else "a FIFO" if stat.S_ISFIFO(mode)
            else "a socket" if stat.S_ISSOCK(mode) else "a device" if stat.S_ISCHR(mode)
            or stat.S_ISBLK(mode) else "not a regular file")
    return StorageError(f"{path} is {kind}, not a regular file", code="storage.not_a_file",
                        hint="Engram reads only regular files; move it away and retry")


def open_regular(path: Path | str, *, follow: bool = True) -> int:
    """An fd on `path` opened without blocking (a FIFO never waits for a writer), checked to be
    a regular file. Raises OSError as `os.open` does, StorageError for any other file type."""
    try:
        fd = (os.open(path, locks.READ_FLAGS | locks.O_NONBLOCK) if follow
              else locks.open_nofollow(path, locks.O_NONBLOCK))
    except OSError as exc:  # a socket cannot be opened at all (ENXIO): name what it is
        if exc.errno in (errno.ENXIO, errno.EOPNOTSUPP):
            raise not_regular(path, Path(path).stat(follow_symlinks=follow).st_mode) from exc
        raise
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            raise not_regular(path, mode)
    except BaseException:
        os.close(fd)
        raise
    return fd


def read_fd(fd: int, size_hint: int = -1) -> bytes:
    """The rest of an open file: one read usually (asking one byte more notices growth)."""
    if size_hint < 0:
        size_hint = os.fstat(fd).st_size
    chunks = [os.read(fd, size_hint + 1)]
    got = len(chunks[0])
    while chunks[-1] and got != size_hint:
        chunks.append(os.read(fd, 1 << 16))
        got += len(chunks[-1])
    return b"".join(chunks)


def read_regular(path: Path | str, *, follow: bool = True) -> bytes:
    """The bytes of a regular file (see `open_regular`)."""
    fd = open_regular(path, follow=follow)
    try:
        return read_fd(fd)
    finally:
        os.close(fd)


def read_text(path: Path | str) -> str:
    """A regular file as UTF-8 text; FileNotFoundError when absent, StorageError for a
    directory or special file, UnicodeDecodeError for bytes that are not UTF-8."""
    try:
        return read_regular(path).decode("utf-8")
    except IsADirectoryError as exc:  # os.open on a directory with O_RDONLY succeeds on Linux
        raise not_regular(path, stat.S_IFDIR) from exc
