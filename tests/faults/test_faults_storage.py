"""A full disk or a read-only memory root: the CLI fails with a coded error and a fix, exit 1,
and nothing is half-written (every old file byte-identical, no temp file left).

ENOSPC and EROFS are injected in-process at the one write helper's system calls (tests run as
root, so chmod cannot make a directory unwritable); a real read-only bind mount in a private
mount namespace (`unshare -rm`) covers the kernel's own EROFS when the machine allows it.
"""

from __future__ import annotations

import errno
import json
import os
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from engram.store.fileio import TMP_PREFIX
from tests.conftest import engram_cmd, subprocess_env
from tests.helpers import run_cli, unshare_works

CANDIDATE = "TYPE: rule | TEXT: Always run the migration dry-run before deploying"
UPDATE = "TYPE: rule | TEXT: Never deploy on Fridays without an on-call engineer"


def _snapshot(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in root.rglob("*")
            if p.is_file() and ".cache" not in p.parts and p.name != ".lock"}


def _seeded(project: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    assert run_cli("init", capsys=capsys)[0] == 0
    assert run_cli("save-session", "--force", UPDATE, capsys=capsys)[0] == 0
    return project / ".agents" / ".engram"


def _failing_writes(monkeypatch: pytest.MonkeyPatch, err: int) -> None:
    """Temp files of the write helper open fine, then the write fails like a full/RO disk."""
    real_open: Callable[..., int] = os.open
    real_write: Callable[..., int] = os.write
    real_close: Callable[[int], None] = os.close
    temp_fds: set[int] = set()

    def open_(path: Any, flags: int, *args: Any, **kwargs: Any) -> int:
        fd = real_open(path, flags, *args, **kwargs)
        if TMP_PREFIX in str(path):
            temp_fds.add(fd)
        return fd

    def write(fd: int, data: Any) -> int:
        if fd in temp_fds:
            raise OSError(err, os.strerror(err))
        return real_write(fd, data)

    def close(fd: int) -> None:
        temp_fds.discard(fd)  # the number may be reused for another file
        real_close(fd)

    monkeypatch.setattr(os, "open", open_)
    monkeypatch.setattr(os, "close", close)
    monkeypatch.setattr(os, "write", write)


@pytest.mark.parametrize(("err", "code", "words"), [
    (errno.ENOSPC, "storage.full", "disk is full"),
    (errno.EROFS, "storage.readonly", "read-only"),
])
def test_disk_full_or_read_only_is_a_coded_error_and_nothing_is_half_written(
        project: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
        err: int, code: str, words: str) -> None:
    root = _seeded(project, capsys)
    before = _snapshot(root)
    _failing_writes(monkeypatch, err)
    rc, _, errtext = run_cli("save-session", "--force", CANDIDATE, capsys=capsys)
    assert rc == 1
    assert words in errtext and "fix:" in errtext
    rc, out, _ = run_cli("save-session", "--force", "--json", CANDIDATE, capsys=capsys)
    assert rc == 1
    assert [d["code"] for d in json.loads(out)["diagnostics"]] == [code]
    monkeypatch.undo()
    assert _snapshot(root) == before
    assert not list(root.rglob(f"{TMP_PREFIX}*"))


@pytest.mark.skipif(not unshare_works(), reason="no private mount namespace (unshare -rm)")
def test_a_real_read_only_mount_fails_with_storage_readonly_and_leaves_files_intact(
        project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = _seeded(project, capsys)
    before = _snapshot(root)
    argv = " ".join(f"'{a}'" for a in [*engram_cmd(), "save-session", "--force", CANDIDATE])
    script = (f"mount --bind '{root}' '{root}' && mount -o remount,bind,ro '{root}' && "
              f"exec {argv}")
    done = subprocess.run(["unshare", "-rm", "sh", "-c", script], env=subprocess_env(),
                          capture_output=True, text=True, check=False, timeout=60)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "read-only" in done.stderr and "fix:" in done.stderr
    assert _snapshot(root) == before
    assert not list(root.rglob(f"{TMP_PREFIX}*"))
    # Reading a read-only root still works: load prints the memory, exit 0.
    script = (f"mount --bind '{root}' '{root}' && mount -o remount,bind,ro '{root}' && "
              f"exec {' '.join(engram_cmd())} load deploy on Fridays")
    done = subprocess.run(["unshare", "-rm", "sh", "-c", script], env=subprocess_env(),
                          capture_output=True, text=True, check=False, timeout=60)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "on-call engineer" in done.stdout
