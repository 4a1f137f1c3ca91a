"""`engram upgrade` migrating hundreds of legacy files shows progress on a terminal's stderr
only; piped, it prints the same report and no progress."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from engram.store.repo import Change, Store, parse_bytes
from engram.workspace import resolve
from tests.conftest import FIXTURES, engram_cmd, subprocess_env
from tests.search.test_index_progress import _run_with_tty_stderr

LEGACY = (FIXTURES / "memories" / "v1" / "use-uv-for-python-envs.md").read_text()


@pytest.fixture
def legacy_store(project: Path) -> Store:
    roots = resolve()
    roots.workspace.path.mkdir(parents=True)
    store = Store(roots.workspace)
    store.write_files([Change(f"rules/legacy-{i}.md",
                              LEGACY.replace("id: use-uv-for-python-envs", f"id: legacy-{i}"))
                       for i in range(600)], "seed legacy files")
    return store


def test_upgrade_of_600_legacy_files_shows_progress_on_a_terminal(legacy_store: Store,
                                                                 project: Path) -> None:
    code, out, err = _run_with_tty_stderr([*engram_cmd(), "upgrade"], project)
    assert code == 0, out + err
    assert "engram: checking memory files for v1/v2" in err
    assert "engram: writing v3 memory files 600/600" in err
    assert "writing v3" not in out and "checking memory files" not in out
    rel = "rules/legacy-599.md"
    assert parse_bytes(legacy_store.read_bytes(rel), rel, legacy_store.root).schema_version == 3
    done = subprocess.run([*engram_cmd(), "verify"], cwd=project, env=subprocess_env(),
                          capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stdout


def test_upgrade_is_silent_about_progress_when_piped(legacy_store: Store, project: Path) -> None:
    done = subprocess.run([*engram_cmd(), "upgrade"], cwd=project, env=subprocess_env(),
                          capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    assert "checking memory files" not in done.stderr + done.stdout
    assert "writing v3" not in done.stderr + done.stdout
