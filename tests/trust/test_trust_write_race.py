"""Attack: race a write. Between Engram's containment check (or taking the lock) and the rename
of its temp file, swap a folder of the root (`rules/`, `archive/<date>/rules/`, `working/`,
`.agents/.engram` itself) for a symlink to a directory outside the repository, hoping the
memory, hashes or changelog land there. A real race is hard to hit on purpose, so the tests swap
the folder from a hook at the two moments that matter; the write must fail with
`storage.symlink` and the outside directory must stay byte-identical."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

import engram.containment
from engram.cli.main import main
from engram.clock import today
from engram.errors import StorageError
from engram.store import repo
from engram.store.repo import Change, Store
from engram.workspace import Root, Roots
from tests.trust.conftest import SECRET
from tests.trust.trust_doors import cli

RULE = "Run the smoke suite before tagging a release."


def _snapshot(path: Path) -> dict[str, bytes | None]:
    return {str(p.relative_to(path)): p.read_bytes() if p.is_file() else None
            for p in sorted(path.rglob("*"))}


def _swap(project: Path, rel: str, outside: Path, aside: Path) -> None:
    """Replace `rel` (under the project) with a symlink to `outside`."""
    path = project / rel
    if path.is_symlink():
        return
    if path.exists():
        shutil.move(str(path), str(aside / path.name))
    path.parent.mkdir(parents=True, exist_ok=True)
    path.symlink_to(outside, target_is_directory=True)


def _arm_after_check(monkeypatch: pytest.MonkeyPatch, swap: Callable[[], None]) -> None:
    real = engram.containment.ensure

    def ensure_then_swap(roots: Roots) -> Roots:
        out = real(roots)
        swap()
        return out

    monkeypatch.setattr(engram.containment, "ensure", ensure_then_swap)


def _arm_after_resolve(monkeypatch: pytest.MonkeyPatch, swap: Callable[[], None]) -> None:
    """Swap right after the store checked the file's path and took its old bytes (under the
    lock), just before the write itself: the window a path-based write cannot close."""
    real = repo._previous

    def previous_then_swap(path: Path) -> bytes | None:
        old = real(path)
        swap()
        return old

    monkeypatch.setattr(repo, "_previous", previous_then_swap)


ARMS = {"after-containment-check": _arm_after_check, "after-path-check": _arm_after_resolve}
SAVED = ["rules", ".agents", ".agents/.engram", ".agents/.engram/.cache"]
def _arm_swap(monkeypatch: pytest.MonkeyPatch, arm: str, project: Path, rel: str,
              outside: Path, tmp_path: Path) -> dict[str, bytes | None]:
    """Arm the swap of `rel` for `outside` at the moment `arm` names; the outside directory
    as it was, to compare with after the write."""
    aside = tmp_path / "aside"
    aside.mkdir()
    ARMS[arm](monkeypatch, lambda: _swap(project, rel, outside, aside))
    return _snapshot(outside)


def _refused(code: int, out: str, arm: str) -> None:
    assert code != 0, out
    if arm == "after-path-check":  # only the write itself can notice: the coded refusal
        assert "symlink" in out and "rolled back" in out, out


def _ready(capsys: pytest.CaptureFixture[str]) -> Path:
    assert main(["init"]) == 0
    assert main(["save", "-f", "rule", RULE]) == 0
    capsys.readouterr()
    return Path.cwd()


@pytest.mark.parametrize("arm", sorted(ARMS))
@pytest.mark.parametrize("rel", SAVED)
def test_a_folder_swapped_for_a_symlink_during_save_gets_nothing_written_outside(
        project: Path, outside: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch, arm: str, rel: str) -> None:
    _ready(capsys)
    full = rel if rel.startswith(".agents") else f".agents/.engram/{rel}"
    before = _arm_swap(monkeypatch, arm, project, full, outside, tmp_path)
    code, out = cli(capsys, "save", "-f", "rule", "Pin every tool version in CI config.")
    if not rel.endswith(".cache"):
        _refused(code, out, arm)
    # A swapped `.cache` is bypassed (issue 27 class 2: a cache never blocks): the save goes on
    # with an in-memory index, and nothing lands outside either way.
    assert _snapshot(outside) == before, "a write landed outside the repository"


@pytest.mark.parametrize("arm", sorted(ARMS))
@pytest.mark.parametrize("rel", ["archive", "archive/{date}/rules", "archive/{date}"])
def test_an_archive_folder_swapped_during_archive_gets_nothing_written_outside(
        project: Path, outside: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch, arm: str, rel: str) -> None:
    _ready(capsys)
    full = ".agents/.engram/" + rel.format(date=today().isoformat())
    before = _arm_swap(monkeypatch, arm, project, full, outside, tmp_path)
    code, out = cli(capsys, "archive", "run-smoke-suite-before-tagging",
                    "--reason", "replaced")
    _refused(code, out, arm)
    assert _snapshot(outside) == before, "a write landed outside the repository"


@pytest.mark.parametrize("rel", ["working/n.md", "rules/x.md", "archive/2026-01-01/rules/x.md"])
def test_the_write_itself_refuses_a_swapped_folder_with_a_coded_error(
        project: Path, outside: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch, rel: str) -> None:
    _ready(capsys)
    aside = tmp_path / "aside"
    aside.mkdir()
    before = _snapshot(outside)
    root = project / ".agents" / ".engram"
    folder = str(Path(".agents/.engram") / Path(rel).parent)
    _arm_after_resolve(monkeypatch, lambda: _swap(project, folder, outside, aside))
    with pytest.raises(StorageError) as err:
        Store(Root(root, "workspace")).write_files([Change(rel, "---\nid: x\n---\n")], "t")
    assert err.value.code == "storage.symlink", err.value
    assert _snapshot(outside) == before, "a write landed outside the repository"


@pytest.mark.parametrize("folder", [".cache", "working", "rules"])
def test_the_write_helper_refuses_a_folder_swapped_after_the_check(
        project: Path, outside: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str],
        folder: str) -> None:
    """State files (`.cache/hooks.json`, `usage.json`, notes) go through the same helper: the
    root was checked (and registered) by the CLI, then the folder is swapped."""
    from engram.store.fileio import atomic_write, remove

    _ready(capsys)
    aside = tmp_path / "aside"
    aside.mkdir()
    root = project / ".agents" / ".engram"
    (root / folder).mkdir(exist_ok=True)
    (outside / "keep.txt").write_text(SECRET)
    before = _snapshot(outside)
    _swap(project, f".agents/.engram/{folder}", outside, aside)
    with pytest.raises(StorageError) as err:
        atomic_write(root / folder / "hooks.json", "{}")
    assert err.value.code == "storage.symlink"
    with pytest.raises(StorageError) as err:
        remove(root / folder / "keep.txt")
    assert err.value.code == "storage.symlink"
    assert _snapshot(outside) == before


@pytest.mark.parametrize("name", ["index.sqlite", "index.sqlite-wal", "index.sqlite-shm",
                                  "derived.sqlite", "derived.sqlite-wal"])
def test_a_cache_database_planted_as_a_symlink_after_the_check_is_refused(
        project: Path, outside: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch, name: str) -> None:
    """The next variant: leave the folders alone and swap the database file (or its WAL,
    shared-memory or journal file) for a link to a file outside, after the check."""
    _ready(capsys)
    cache = project / ".agents" / ".engram" / ".cache"
    target = outside / "victim"
    target.write_text("unchanged")
    before = _snapshot(outside)

    def plant() -> None:
        for stale in cache.glob(name.split(".")[0] + ".sqlite*"):
            stale.unlink()
        (cache / name).symlink_to(target)

    _arm_after_check(monkeypatch, plant)
    code, out = cli(capsys, "save", "-f", "rule", "Pin every tool version in CI config.")
    # Not used (issue 27 class 2: a cache Engram cannot use is bypassed, never followed).
    assert code == 0, out
    assert _snapshot(outside) == before, "a write landed outside the repository"


def test_a_cache_database_hard_linked_to_a_file_outside_is_refused(
        project: Path, outside: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The variant after symlinks: an empty file outside, hard-linked as the index. SQLite
    would turn it into a database, writing outside the repository."""
    _ready(capsys)
    cache = project / ".agents" / ".engram" / ".cache"
    for stale in cache.glob("index.sqlite*"):
        stale.unlink()
    victim = outside / "empty"
    victim.write_bytes(b"")
    (cache / "index.sqlite").hardlink_to(victim)
    code, out = cli(capsys, "load", "release")
    # Bypassed, never written (issue 27 class 2): the load still answers, with a warning.
    assert code == 0 and "search cache could not be used" in out, out
    assert victim.read_bytes() == b""


def test_a_pinned_cache_database_stays_in_the_checked_folder(
        project: Path, outside: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Swap the root after the database was opened: its pages, WAL and shared memory keep
    going to the folder that was checked (now moved aside), never to the link's target."""
    from engram.store.sqlitefile import connect_sqlite

    _ready(capsys)
    root = project / ".agents" / ".engram"
    db = connect_sqlite(root / ".cache" / "probe.sqlite")
    try:
        aside = tmp_path / "aside"
        aside.mkdir()
        (outside / ".cache").mkdir()  # where a WAL opened by name after the swap would go
        before = _snapshot(outside)
        _swap(project, ".agents/.engram", outside, aside)
        db.execute("CREATE TABLE t(x)")
        db.execute("INSERT INTO t VALUES (1)")
        assert (aside / ".engram" / ".cache" / "probe.sqlite").is_file()
        assert _snapshot(outside) == before, "a write landed outside the repository"
    finally:
        db.close()


def test_closing_a_pinned_connection_releases_its_folder() -> None:
    """One held directory descriptor per connection, released with it (a long-lived server
    opens and closes sessions all day)."""
    from engram.store.sqlitefile import connect_sqlite

    fds = Path("/proc/self/fd")
    if not fds.is_dir():
        pytest.skip("needs /proc")
    project = Path.cwd()
    root = project / ".agents" / ".engram"
    assert main(["init"]) == 0
    before = len(list(fds.iterdir()))
    for _ in range(20):
        connect_sqlite(root / ".cache" / "probe.sqlite").close()
        connect_sqlite(root / ".cache" / "probe.sqlite")  # dropped without close
    import gc

    gc.collect()
    assert len(list(fds.iterdir())) <= before + 1


def test_a_folder_swapped_while_sqlite_resolves_the_held_folder_is_caught(
        project: Path, outside: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The next variant: SQLite turns `/proc/self/fd/N/x.sqlite` into a path string and opens
    that, so a root swapped between the two sends it outside while the held folder still has a
    database of that name. The files SQLite then holds open give it away."""
    import sqlite3

    from engram.store.sqlitefile import connect_sqlite

    _ready(capsys)
    root = project / ".agents" / ".engram"
    # Another connection (a running server's) keeps the held folder's database, WAL and
    # shared memory in place, so the folder alone looks right.
    held = connect_sqlite(root / ".cache" / "probe.sqlite")
    aside = tmp_path / "aside"
    aside.mkdir()
    (outside / ".cache").mkdir()
    real = sqlite3.connect

    def resolve_swap_open(database: str, *args: object, **kwargs: object) -> object:
        folder, name = database.rsplit("/", 1)
        resolved = str(Path(folder).resolve())  # what SQLite does with the magic link
        _swap(project, ".agents/.engram", outside, aside)
        return real(f"{resolved}/{name}", *args, **kwargs)  # type: ignore[call-overload]

    monkeypatch.setattr(sqlite3, "connect", resolve_swap_open)
    try:
        with pytest.raises(StorageError) as err:
            connect_sqlite(root / ".cache" / "probe.sqlite")
    finally:
        held.close()
    assert err.value.code == "storage.symlink" and "SQLite opened" in err.value.message
