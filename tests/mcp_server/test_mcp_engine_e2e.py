"""`engram-mcp` end to end over the real engine on a real workspace made by `engram init`."""

from __future__ import annotations

import json
from pathlib import Path

from engram.cli.main import main as cli
from tests.mcp_server.mcp_harness import InProcessServer, modern_meta


def test_status_and_verify_run_on_the_real_engine_in_both_eras(project: Path) -> None:
    assert cli(["init"]) == 0
    server = InProcessServer(["--workspace", str(project)], None)
    try:
        server.call("initialize", {"protocolVersion": "2025-11-25", "capabilities": {}})
        status = server.call("engram_status")["result"]
        assert str(project / ".agents" / ".engram") in status
        verify = server.call("tools/call", {"name": "engram_verify", "arguments": {},
                                            "_meta": modern_meta()})["result"]
        assert verify["isError"] is False and verify["structuredContent"]["ok"] is True
        assert verify["resultType"] == "complete"
    finally:
        assert server.close() == 0
    for line in server.lines:
        json.loads(line)
