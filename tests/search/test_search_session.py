"""The read session (search/session.py): one object owns what the read path keeps between
requests, with an explicit lifetime; it follows roots that appear and caches that vanish, and it
refuses to be shared across threads or roots."""

from __future__ import annotations

import shutil
import threading
from pathlib import Path

import pytest

from engram.search.api import ReadSession, index_text, load, search
from engram.workspace import resolve
from tests.search.test_search_load import put


def test_a_root_created_after_the_session_began_is_read_by_the_next_request(
        project: Path) -> None:
    rs = ReadSession(resolve())
    try:
        assert load(rs.roots, query="release tags", session=rs).data["selected_keys"] == []
        ws = project / ".agents" / ".engram"
        ws.mkdir(parents=True)
        put(ws, "release-tags", content="- Tags are signed by the release bot.")
        out = load(rs.roots, query="release tags", session=rs)
        assert out.data["selected_keys"] == ["workspace:release-tags"]
    finally:
        rs.close()


def test_a_deleted_cache_is_rebuilt_and_the_session_keeps_serving(project: Path) -> None:
    ws = project / ".agents" / ".engram"
    ws.mkdir(parents=True)
    put(ws, "deploy-window", content="- Deploys happen on weekdays before 4 pm.")
    rs = ReadSession(resolve())
    try:
        assert "weekdays before 4 pm" in load(rs.roots, query="deploy window", session=rs).text
        shutil.rmtree(ws / ".cache")
        put(ws, "deploy-freeze", content="- No deploys during the December freeze.")
        found = search(rs.roots, "deploy", session=rs).data["entries"]
        assert {e["id"] for e in found} == {"deploy-freeze", "deploy-window"}
        assert "deploy-freeze" in index_text(rs.roots, session=rs)
    finally:
        rs.close()


def test_a_session_is_used_only_by_the_thread_that_began_it(project: Path) -> None:
    """A refresh transaction must never interleave with another thread's reads: the MCP server
    keeps its session on its one engine thread."""
    ws = project / ".agents" / ".engram"
    ws.mkdir(parents=True)
    put(ws, "css-lint", "rule", "- Stylelint runs on every CSS change.")
    rs = ReadSession(resolve())
    load(rs.roots, query="css", session=rs)
    failed: list[BaseException] = []

    def other() -> None:
        try:
            load(rs.roots, query="css", session=rs)
        except RuntimeError as exc:
            failed.append(exc)

    thread = threading.Thread(target=other)
    thread.start()
    thread.join()
    rs.close()
    assert len(failed) == 1 and "thread" in str(failed[0])


def test_a_session_serves_only_the_roots_it_was_opened_for(project: Path,
                                                           tmp_path: Path) -> None:
    rs = ReadSession(resolve())
    other = tmp_path / "other"
    (other / ".agents" / ".engram").mkdir(parents=True)
    with pytest.raises(ValueError, match="other roots"):
        load(resolve(workspace=str(other)), query="anything", session=rs)
    rs.close()
