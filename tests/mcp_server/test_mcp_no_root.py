"""Over MCP, a workspace without `.agents/.engram` is named first: `engram_load` and
`engram_search` used to answer "no memories routed for: smoke (try other words, or engram
search)" and only then the missing root, sending the model to rephrase a task that can never
route."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.mcp_server.mcp_harness import InProcessServer


@pytest.mark.parametrize(("tool", "arguments"), [("engram_load", {"query": "smoke suite"}),
                                                 ("engram_search", {"query": "smoke suite"}),
                                                 ("engram_route", {"query": "smoke suite"})])
def test_a_missing_root_is_the_first_thing_said(project: Path, tool: str,
                                                arguments: dict[str, str]) -> None:
    server = InProcessServer(["--workspace", str(project)], None)
    try:
        server.call("initialize", {"protocolVersion": "2025-11-25", "capabilities": {}})
        reply = server.call("tools/call", {"name": tool, "arguments": arguments})
        text = reply["result"]["content"][0]["text"]
        first = next(line for line in text.splitlines() if not line.startswith("task type"))
        assert "no memory root" in first and "engram init" in first, text
        assert "try other words" not in text
    finally:
        assert server.close() == 0
