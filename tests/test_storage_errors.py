"""The one mapping of storage faults (engram/storage.py) and the adapters that use it."""

from __future__ import annotations

import errno
import os
import sqlite3
from pathlib import Path

import pytest

from engram.errors import EngramError, StorageError
from engram.mcp.server import coded
from engram.storage import coded_error, read_regular, storage_error


@pytest.mark.parametrize(("err", "code"), [
    (errno.ENOSPC, "storage.full"), (errno.EDQUOT, "storage.full"),
    (errno.EROFS, "storage.readonly"), (errno.EACCES, "storage.readonly"),
    (errno.EISDIR, "storage.is_directory"), (errno.ENOTDIR, "storage.not_directory"),
    (errno.EIO, "storage.io"),
])
def test_os_errors_map_to_storage_codes_with_a_fix(err: int, code: str) -> None:
    mapped = storage_error(OSError(err, os.strerror(err), "/x/y"))
    assert mapped is not None and mapped.code == code and mapped.hint
    assert "/x/y" in mapped.message


def _sqlite_error(sql: str, db: sqlite3.Connection) -> sqlite3.Error:
    try:
        db.execute(sql)
    except sqlite3.Error as exc:
        return exc
    raise AssertionError("no error")


def test_sqlite_full_and_readonly_map_like_the_os_errors(tmp_path: Path) -> None:
    db = sqlite3.connect(tmp_path / "x.sqlite", isolation_level=None)
    db.execute("CREATE TABLE t (v TEXT)")
    db.execute(f"PRAGMA max_page_count = {db.execute('PRAGMA page_count').fetchone()[0]}")
    full = _sqlite_error("INSERT INTO t VALUES (zeroblob(1000000))", db)
    assert "full" in str(full)
    assert (storage_error(full) or StorageError("")).code == "storage.full"
    ro = sqlite3.connect(f"file:{tmp_path / 'x.sqlite'}?mode=ro", uri=True)
    readonly = _sqlite_error("INSERT INTO t VALUES ('a')", ro)
    assert (storage_error(readonly) or StorageError("")).code == "storage.readonly"
    broken = sqlite3.OperationalError("no such table: mem")
    assert (storage_error(broken) or StorageError("")).code == "storage.index"


def test_other_errors_are_not_storage_errors_and_recursion_is_coded() -> None:
    assert storage_error(ValueError("x")) is None
    deep = coded_error(RecursionError())
    assert isinstance(deep, EngramError) and deep.code == "input.too_deep"
    assert isinstance(coded(OSError(errno.ENOSPC, "full")), StorageError)
    plain = KeyError("k")
    assert coded(plain) is plain


def test_read_regular_refuses_fifos_and_directories_without_blocking(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "fifo")
    (tmp_path / "dir").mkdir()
    for name in ("fifo", "dir"):
        with pytest.raises(StorageError) as info:
            read_regular(tmp_path / name)
        assert info.value.code == "storage.not_a_file"
    (tmp_path / "f").write_bytes(b"x" * 70_000)
    assert read_regular(tmp_path / "f") == b"x" * 70_000
