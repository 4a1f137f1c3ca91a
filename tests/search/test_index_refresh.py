"""The derived index follows hand edits, adds and deletes without any rebuild command."""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

import pytest

from engram.search.roots_index import MemoryIndex
from engram.workspace import resolve
from tests.helpers import memory_text, write_memory


def _ids(project: Path) -> dict[str, str]:
    idx = MemoryIndex(resolve())
    try:
        return {m.id: m.content for m in idx.memories()}
    finally:
        idx.close()


def test_index_sees_hand_add_edit_and_delete(project: Path) -> None:
    root = project / ".agents" / ".engram"
    write_memory(root, "first-rule")
    assert _ids(project) == {"first-rule": "- Do the thing."}
    (root / "rules" / "hand-added.md").write_text(memory_text("hand-added", content="- Added."))
    assert set(_ids(project)) == {"first-rule", "hand-added"}
    path = root / "rules" / "first-rule.md"
    path.write_text(path.read_text().replace("- Do the thing.", "- Edited by hand, longer."))
    assert _ids(project)["first-rule"] == "- Edited by hand, longer."
    (root / "rules" / "hand-added.md").unlink()
    assert set(_ids(project)) == {"first-rule"}


def test_deleting_the_cache_loses_nothing(project: Path) -> None:
    root = project / ".agents" / ".engram"
    write_memory(root, "kept")
    assert set(_ids(project)) == {"kept"}
    shutil.rmtree(root / ".cache")
    assert set(_ids(project)) == {"kept"}


def test_search_finds_stemmed_terms_and_workspace_wins(
        project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from engram.search.api import search

    glob = tmp_path / "global"
    monkeypatch.setenv("ENGRAM_GLOBAL_DIR", str(glob))
    root = project / ".agents" / ".engram"
    write_memory(root, "testing-policy", content="- Run the tests before merging.")
    write_memory(glob, "testing-policy", content="- Global testing habit.", scope="global")
    entries = search(resolve(), "tested").data["entries"]
    assert [(e["id"], e["scope"]) for e in entries] == [("testing-policy", "workspace")]


def test_an_index_of_another_schema_version_is_rebuilt_in_place(project: Path) -> None:
    root = project / ".agents" / ".engram"
    write_memory(root, "first-rule")
    assert set(_ids(project)) == {"first-rule"}
    cache = root / ".cache" / "index.sqlite"
    inode = cache.stat().st_ino
    db = sqlite3.connect(cache)
    db.execute("CREATE TABLE leftover(x)")
    db.execute("PRAGMA user_version=1")
    db.commit()
    db.close()
    write_memory(root, "second-rule")
    assert set(_ids(project)) == {"first-rule", "second-rule"}
    db = sqlite3.connect(cache)
    names = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    db.close()
    assert "leftover" not in names and "route_fts" in names
    # Rebuilt in the same file: a concurrent opener's connection is never pulled from under it.
    assert cache.stat().st_ino == inode
