"""Error replies quote what the client sent only in a bounded, JSON-quoted form.

A 100 KB method, tool name, resource URI, prompt name or protocol version used to come back
whole inside the error message (one 100 KB line per bad request); `tools/call` without a name
said `Unknown tool: None` (Python's spelling of a missing value)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.mcp_server.mcp_harness import InProcessServer, modern_meta

HUGE = "x" * 100_000


def _line_of(server: InProcessServer, rid: int) -> bytes:
    server.reply_to(rid)
    return next(line for line in server.lines if json.loads(line).get("id") == rid)


BAD: list[tuple[str, dict[str, Any], int]] = [
    (HUGE, {}, -32601),
    ("tools/call", {"name": HUGE, "arguments": {}}, -32602),
    ("resources/read", {"uri": "engram://memory/" + HUGE}, -32002),
    ("resources/read", {"uri": "file:///" + HUGE}, -32002),
    ("prompts/get", {"name": HUGE}, -32602),
]


@pytest.mark.parametrize(("method", "params", "code"), BAD)
def test_legacy_errors_quote_client_text_bounded(raw_server: InProcessServer, method: str,
                                                 params: dict[str, Any], code: int) -> None:
    rid = raw_server.next_id()
    raw_server.send({"jsonrpc": "2.0", "id": rid, "method": method, "params": params})
    line = _line_of(raw_server, rid)
    assert json.loads(line)["error"]["code"] == code
    assert len(line) < 1000, line[:200]
    assert "xxxxx" in line.decode()  # still says which value was wrong


@pytest.mark.parametrize(("method", "params", "code"), BAD[:2] + BAD[4:])
def test_modern_errors_quote_client_text_bounded(raw_server: InProcessServer, method: str,
                                                 params: dict[str, Any], code: int) -> None:
    rid = raw_server.next_id()
    raw_server.send({"jsonrpc": "2.0", "id": rid, "method": method,
                     "params": {**params, "_meta": modern_meta()}})
    line = _line_of(raw_server, rid)
    assert json.loads(line)["error"]["code"] == code
    assert len(line) < 1000, line[:200]


def test_modern_unsupported_version_is_bounded(raw_server: InProcessServer) -> None:
    rid = raw_server.next_id()
    raw_server.send({"jsonrpc": "2.0", "id": rid, "method": "server/discover",
                     "params": {"_meta": modern_meta(version=HUGE)}})
    line = _line_of(raw_server, rid)
    assert json.loads(line)["error"]["code"] == -32022
    assert len(line) < 1000


@pytest.mark.parametrize("params", [{}, {"name": None}, {"name": 5}])
def test_tools_call_without_a_name_says_name_is_required(raw_server: InProcessServer,
                                                         params: dict[str, Any]) -> None:
    rid = raw_server.next_id()
    raw_server.send({"jsonrpc": "2.0", "id": rid, "method": "tools/call", "params": params})
    error = raw_server.reply_to(rid)["error"]
    assert error["code"] == -32602
    assert "None" not in error["message"] and "name" in error["message"]
