"""The MCP server holds one read session for its life (search/session.py) and makes each
request one request of it: another process's writes and revocations show on the very next
tool call or resource read, with no restart."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from tests.conftest import REPO, subprocess_env
from tests.mcp_server.mcp_harness import InProcessServer
from tests.mcp_server.test_mcp_raw_lines import initialize

PUT = ("import sys; from pathlib import Path; from tests.search.test_search_load import put; "
       "put(Path(sys.argv[1]), sys.argv[2], content=sys.argv[3])")


def _elsewhere(ws: Path, mid: str, content: str) -> None:
    """Write an approved memory from another process."""
    subprocess.run([sys.executable, "-c", PUT, str(ws), mid, content], cwd=REPO,
                   env=subprocess_env(), check=True, capture_output=True)


def _tool(server: InProcessServer, name: str, args: dict[str, Any]) -> dict[str, Any]:
    reply = server.call("tools/call", {"name": name, "arguments": args})
    return dict(reply["result"])


def _serve(project: Path) -> tuple[Path, InProcessServer]:
    """A workspace holding one approved memory and the real server over it, initialized."""
    ws = project / ".agents" / ".engram"
    ws.mkdir(parents=True)
    _elsewhere(ws, "release-tags", "- Tags are signed by the release bot.")
    server = InProcessServer(["--real-core", "--workspace", str(project)], None)
    initialize(server)
    return ws, server


def _text(result: dict[str, Any]) -> str:
    return "".join(c.get("text", "") for c in result["content"])


def test_a_long_lived_server_sees_other_processes_writes_on_the_next_request(
        project: Path) -> None:
    ws, server = _serve(project)
    try:
        assert "signed by the release bot" in _text(
            _tool(server, "engram_load", {"query": "release tags"}))
        _elsewhere(ws, "release-tags", "- Tags are signed by a maintainer's key.")
        _elsewhere(ws, "release-notes", "- Release notes list every tag.")
        text = _text(_tool(server, "engram_load", {"query": "release tags notes"}))
        assert "maintainer's key" in text and "release bot" not in text
        assert "Release notes list every tag" in text
        index = server.call("resources/read", {"uri": "engram://index"})
        assert "release-notes" in index["result"]["contents"][0]["text"]
        # Another process revokes an approval: the next read skips the file.
        hashes_file = ws / "memory.hashes.json"
        hashes = json.loads(hashes_file.read_text())
        del hashes["knowledge/release-tags.md"]
        subprocess.run([sys.executable, "-c",
                        "import sys, pathlib; pathlib.Path(sys.argv[1]).write_text(sys.argv[2])",
                        str(hashes_file), json.dumps(hashes)], check=True)
        text = _text(_tool(server, "engram_load", {"query": "release tags"}))
        assert "maintainer's key" not in text and "SKIPPED knowledge/release-tags.md" in text
    finally:
        server.close()


def test_a_resource_read_that_fails_for_another_reason_than_not_found_says_so(
        project: Path, tmp_path: Path) -> None:
    ws, server = _serve(project)
    try:
        missing = server.call("resources/read", {"uri": "engram://memory/no-such-memory"})
        assert missing["error"]["message"].startswith("Resource not found")
        # A symlink planted in place of a type folder: the root is refused, not "not found".
        outside = tmp_path / "outside"
        outside.mkdir()
        for p in (ws / "knowledge").iterdir():
            p.unlink()
        (ws / "knowledge").rmdir()
        (ws / "knowledge").symlink_to(outside, target_is_directory=True)
        for uri in ("engram://memory/release-tags", "engram://index"):
            error = server.call("resources/read", {"uri": uri})["error"]
            assert "not found" not in error["message"].lower(), error
            assert f"{uri} cannot be read" in error["message"] and "symlink" in error["message"]
            assert error["data"]["code"] == "storage.symlink" and error["data"]["uri"] == uri
    finally:
        server.close()
