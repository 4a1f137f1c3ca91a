"""The portable layer (store/locks.py) against its contract, and Windows path and name rules.

The POSIX backend is tested against real processes; the Windows backend against a simulated
`msvcrt` with the same semantics as the real one (one byte-range lock table, EACCES on a
conflict), since Windows cannot run here (CI's matrix runs the whole suite there).
"""

from __future__ import annotations

import contextlib
import errno
import os
import subprocess
import sys
import textwrap
import time
from collections.abc import Iterator
from pathlib import Path, PureWindowsPath

import pytest

from engram.safety.paths import PathEscape, contained_path
from engram.store import locks
from engram.store.ids import is_reserved, slugify

Cap = pytest.CaptureFixture[str]
MP = pytest.MonkeyPatch

posix_only = pytest.mark.skipif(sys.platform == "win32", reason="fcntl backend")

HOLDER = textwrap.dedent("""
    import os, sys, time
    from engram.store import locks
    fd = os.open(sys.argv[1], os.O_RDWR | os.O_CREAT, 0o644)
    assert locks.acquire(fd, shared=sys.argv[2] == "shared", deadline=time.monotonic() + 5)
    print("held", flush=True)
    sys.stdin.readline()  # hold until told, or until killed
    locks.release(fd)
""")


@contextlib.contextmanager
def _holder(lock: Path, mode: str) -> Iterator[subprocess.Popen[str]]:
    """Another process holding a lock on `lock` until its stdin gets a line or it is killed."""
    env = dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parents[2] / "src"))
    with subprocess.Popen([sys.executable, "-c", HOLDER, str(lock), mode], env=env,
                          stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True) as proc:
        assert proc.stdout is not None and proc.stdout.readline().strip() == "held"
        try:
            yield proc
        finally:
            if proc.poll() is None:
                proc.kill()
            proc.wait(5)


def _let_go(proc: subprocess.Popen[str]) -> None:
    assert proc.stdin is not None
    proc.stdin.write("\n")
    proc.stdin.flush()


def _fd(path: Path, flags: int = locks.READ_FLAGS) -> int:
    return os.open(path, flags | os.O_CREAT, 0o644)


_open: list[int] = []


def _keep(path: Path) -> int:
    """A descriptor closed at the end of the test (see the `lock` fixture)."""
    _open.append(os.open(path, locks.READ_FLAGS))
    return _open[-1]


@pytest.fixture
def lock(tmp_path: Path) -> Iterator[Path]:
    path = tmp_path / ".lock"
    path.touch()
    yield path
    while _open:
        os.close(_open.pop())


@posix_only
def test_an_exclusive_lock_excludes_exclusive_and_shared_until_released(lock: Path) -> None:
    fd = _fd(lock, os.O_RDWR)
    try:
        with _holder(lock, "exclusive") as holder:
            assert not locks.acquire(fd)  # one try, no deadline
            assert not locks.acquire(fd, shared=True, deadline=time.monotonic() + 0.1)
            _let_go(holder)
            assert locks.acquire(fd, deadline=time.monotonic() + 5)
            locks.release(fd)
    finally:
        os.close(fd)


@posix_only
def test_shared_locks_coexist_and_need_no_write_access(lock: Path) -> None:
    with _holder(lock, "shared"):
        lock.chmod(0o444)
        fd = os.open(lock, locks.READ_FLAGS)  # a read-only checkout
        try:
            assert locks.acquire(fd, shared=True)
            assert not locks.acquire(_keep(lock), shared=False)  # but a writer waits
            locks.release(fd)
        finally:
            os.close(fd)


@posix_only
def test_a_killed_holder_releases_its_lock(lock: Path) -> None:
    with _holder(lock, "exclusive") as holder:
        holder.kill()
    fd = _fd(lock, os.O_RDWR)
    try:
        assert locks.acquire(fd, deadline=time.monotonic() + 5)
    finally:
        os.close(fd)


def test_acquire_waits_until_the_deadline_then_gives_up() -> None:
    class Busy:
        calls = 0

        def try_lock(self, fd: int, shared: bool) -> bool:
            self.calls += 1
            return False

        def unlock(self, fd: int) -> None:
            raise AssertionError("never held")

    busy = Busy()
    start = time.monotonic()
    assert not locks.acquire(3, deadline=start + 0.05, backend=busy)  # type: ignore[arg-type]
    assert time.monotonic() - start >= 0.05 and busy.calls > 2


class FakeMsvcrt:
    """`msvcrt.locking` semantics: byte ranges per file, EACCES when another handle holds one."""

    LK_UNLCK, LK_LOCK, LK_NBLCK, LK_RLCK, LK_NBRLCK = 0, 1, 2, 3, 4

    def __init__(self) -> None:
        self.held: dict[tuple[int, int], int] = {}  # (inode, offset) -> fd

    def locking(self, fd: int, mode: int, nbytes: int) -> None:
        assert nbytes == 1
        key = (os.fstat(fd).st_ino, os.lseek(fd, 0, os.SEEK_CUR))
        if mode == self.LK_UNLCK:
            if self.held.get(key) != fd:
                raise OSError(errno.EACCES, "not locked")
            del self.held[key]
            return
        assert mode == self.LK_NBLCK
        if key in self.held:
            raise OSError(errno.EACCES, "Permission denied")
        self.held[key] = fd


def test_windows_backend_locks_the_first_byte_whatever_the_file_position(lock: Path) -> None:
    fake = FakeMsvcrt()
    win = locks._Windows(fake)
    a, b = _fd(lock, os.O_RDWR), _fd(lock, os.O_RDWR)
    try:
        os.lseek(a, 7, os.SEEK_SET)  # a writer that moved: the lock is still byte 0
        assert locks.acquire(a, backend=win)
        assert not locks.acquire(b, backend=win)
        assert not locks.acquire(b, shared=True, deadline=time.monotonic() + 0.05, backend=win)
        os.lseek(a, 3, os.SEEK_SET)
        locks.release(a, backend=win)
        assert locks.acquire(b, shared=True, backend=win)
        locks.release(b, backend=win)
        assert fake.held == {}
    finally:
        os.close(a)
        os.close(b)


def test_windows_backend_raises_what_is_not_a_conflict(lock: Path) -> None:
    class Broken(FakeMsvcrt):
        def locking(self, fd: int, mode: int, nbytes: int) -> None:
            raise OSError(errno.EBADF, "bad file descriptor")

    fd = _fd(lock)
    try:
        with pytest.raises(OSError, match="bad file descriptor"):
            locks.acquire(fd, backend=locks._Windows(Broken()))
    finally:
        os.close(fd)


def test_open_nofollow_refuses_a_symlink_with_and_without_the_flag(
        tmp_path: Path, monkeypatch: MP) -> None:
    target = tmp_path / "secret.txt"
    target.write_text("outside", encoding="utf-8")
    link = tmp_path / "memory.md"
    try:
        link.symlink_to(target)
    except OSError:  # Windows without the symlink privilege
        pytest.skip("symlinks cannot be created here")
    for flag in (locks.O_NOFOLLOW, 0):  # 0: a system without O_NOFOLLOW (Windows)
        monkeypatch.setattr(locks, "O_NOFOLLOW", flag)
        with pytest.raises(OSError) as info:
            locks.open_nofollow(link)
        assert info.value.errno == errno.ELOOP
        fd = locks.open_nofollow(target)
        os.close(fd)


def test_writes_are_byte_exact(tmp_path: Path) -> None:
    """No newline translation on any system: hashes computed on Linux hold on Windows."""
    from engram.store.fileio import atomic_write

    path = tmp_path / "m.md"
    atomic_write(path, "a\nb\r\nc\x1a\n")
    assert path.read_bytes() == b"a\nb\r\nc\x1a\n"


@pytest.mark.parametrize("rel", [
    "C:\\Windows\\win.ini", "C:/x.md", "c:x.md", "\\\\server\\share\\x.md", "rules\\..\\..\\x",
    "rules\\x.md", "/etc/passwd", "rules/../../x.md",
])
def test_windows_shaped_paths_never_leave_the_root(tmp_path: Path, rel: str) -> None:
    with pytest.raises(PathEscape):
        contained_path(tmp_path, rel)
    # Each of these means something outside the root to Windows itself.
    win = PureWindowsPath(rel)
    assert win.anchor or ".." in win.parts or "\\" in rel


def test_posix_relative_paths_map_to_the_same_windows_parts(tmp_path: Path) -> None:
    target = contained_path(tmp_path, "rules/run-tests.md")
    assert target.relative_to(tmp_path).parts == PureWindowsPath("rules\\run-tests.md").parts


@pytest.mark.parametrize(("name", "reserved"), [
    ("con", True), ("CON", True), ("nul.md", True), ("aux.tar.gz", True), ("com1", True),
    ("lpt9.md", True), ("console", False), ("con-rules", False), ("com10", False),
    ("nul-memory", False),
    ("run-tests", False),
])
def test_windows_reserved_names(name: str, reserved: bool) -> None:
    assert is_reserved(name) is reserved


def test_a_new_id_is_never_a_windows_device_name() -> None:
    assert slugify("Run tests") == "run-tests"
    for title in ("Con", "NUL.", "com1", "Aux"):
        new = slugify(title)
        assert new.startswith(f"{title.lower().rstrip('.')}-") and not is_reserved(new)
        assert not is_reserved(PureWindowsPath(f"rules/{new}.md").stem)


def test_saving_a_memory_titled_like_a_device_gets_a_portable_file(project: Path,
                                                                    capsys: Cap) -> None:
    from tests.helpers import run_cli

    assert run_cli("init", capsys=capsys)[0] == 0
    code, out, _ = run_cli("save", "knowledge", "--force", "Nul.", capsys=capsys)
    assert code == 0, out
    names = [p.stem for p in (project / ".agents/.engram/knowledge").glob("*.md")]
    assert len(names) == 1 and names[0].startswith("nul-")


POSIX_ONLY_MODULES = ("fcntl", "termios", "resource", "pwd", "grp", "pty", "tty")


def test_every_module_imports_without_posix_only_modules() -> None:
    """What Windows sees: every engram module imports with fcntl, resource and co. missing."""
    code = textwrap.dedent(f"""
        import importlib, pkgutil, sys
        for name in {POSIX_ONLY_MODULES!r}:
            sys.modules[name] = None  # import raises ImportError, as on Windows
        import engram
        failed = []
        for mod in pkgutil.walk_packages(engram.__path__, "engram."):
            if mod.name.endswith("__main__"):
                continue
            try:
                importlib.import_module(mod.name)
            except ImportError as exc:
                failed.append(f"{{mod.name}}: {{exc}}")
        print("\\n".join(failed))
    """)
    env = dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parents[2] / "src"))
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                          check=False, timeout=120)
    assert done.returncode == 0 and done.stdout.strip() == "", done.stdout + done.stderr


def test_the_ci_matrix_covers_three_systems_and_three_pythons() -> None:
    ci = (Path(__file__).resolve().parents[2] / ".github/workflows/ci.yml").read_text("utf-8")
    for needle in ("ubuntu-latest", "macos-latest", "windows-latest",
                   '"3.11", "3.12", "3.13"', "pytest", "mypy", "scripts/newcomer.sh"):
        assert needle in ci
