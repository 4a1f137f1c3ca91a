"""Odd JSON-RPC params for every notification and request never take the server down.

`notifications/cancelled` whose `requestId` is a list or an object used to raise TypeError
(unhashable) on the reader thread and end `engram-mcp`; the next request was never answered.
Every request gets exactly one reply (a result or a JSON-RPC error), every notification none,
and the server answers `ping` afterwards. Storage faults inside a tool come back as coded
`storage.*` tool errors. In-process (coverage sees the server) and once over a real process.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engram.mcp.tools import TOOL_NAMES
from tests.mcp_server.mcp_harness import InProcessServer, LineClient, RawServer, modern_meta

ODD_IDS: list[Any] = [[1], [], {"a": 1}, {}, None, 1.5, True, [[["x"]]], {"id": [1, 2]}]
REQUESTS = sorted({"initialize", "ping", "tools/list", "tools/call", "resources/list",
                   "resources/templates/list", "resources/read", "prompts/list", "prompts/get",
                   "server/discover", "no/such", *TOOL_NAMES})
NOTIFICATIONS = ["notifications/cancelled", "notifications/initialized",
                 "notifications/progress", "notifications/roots/list_changed", "no/such/note"]
JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-2**70, 2**70) | st.floats(allow_nan=False)
    | st.text(max_size=12),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner,
                                                                max_size=3),
    max_leaves=10)
PARAMS = st.one_of(
    JSON,
    st.fixed_dictionaries({}, optional={
        "requestId": JSON, "name": JSON | st.sampled_from(sorted(TOOL_NAMES)),
        "arguments": JSON, "uri": JSON | st.just("engram://memory/alpha"),
        "protocolVersion": JSON, "capabilities": JSON, "requestState": JSON,
        "inputResponses": JSON,
        "_meta": JSON | st.just(modern_meta()) | st.builds(
            lambda v, c: modern_meta(v, c), JSON, JSON)}))


def _alive(server: LineClient) -> None:
    assert server.call("ping", id_=f"alive-{server.next_id()}")["result"] == {}


@pytest.fixture(scope="module")
def fake(tmp_path_factory: pytest.TempPathFactory) -> Iterator[InProcessServer]:
    server = InProcessServer(["--no-elicitation"], tmp_path_factory.mktemp("fake"))
    server.call("initialize", {"protocolVersion": "2025-11-25", "capabilities": {}})
    yield server
    server.close()


@pytest.mark.parametrize("odd", ODD_IDS, ids=repr)
def test_cancelled_with_any_request_id_keeps_the_server_answering(
        fake: InProcessServer, odd: Any) -> None:
    fake.send({"jsonrpc": "2.0", "method": "notifications/cancelled",
               "params": {"requestId": odd, "reason": "x"}})
    _alive(fake)


def test_cancelled_with_a_list_request_id_does_not_kill_the_process(tmp_path: Path) -> None:
    server = RawServer([], tmp_path)
    try:
        for odd in ([1], {"a": 1}):
            server.send({"jsonrpc": "2.0", "method": "notifications/cancelled",
                         "params": {"requestId": odd}})
            assert server.call("ping")["result"] == {}
    finally:
        assert server.close() == 0
    assert b"Traceback" not in server.stderr


@given(method=st.sampled_from(NOTIFICATIONS), params=PARAMS)
@settings(max_examples=150, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
def test_any_notification_params_get_no_reply_and_no_crash(
        fake: InProcessServer, method: str, params: Any) -> None:
    fake.send({"jsonrpc": "2.0", "method": method, "params": params})
    _alive(fake)


@given(method=st.sampled_from(REQUESTS), params=PARAMS)
@settings(max_examples=300, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
def test_any_request_params_get_exactly_one_reply(
        fake: InProcessServer, method: str, params: Any) -> None:
    id_ = f"odd-{fake.next_id()}"
    fake.send({"jsonrpc": "2.0", "id": id_, "method": method, "params": params})
    reply = fake.reply_to(id_)
    assert ("result" in reply) != ("error" in reply), reply
    if "error" in reply:
        assert isinstance(reply["error"]["code"], int) and reply["error"]["message"]
    json.dumps(reply)
    _alive(fake)


@pytest.fixture
def engine(project: Path) -> Iterator[InProcessServer]:
    from engram.cli.main import main as cli

    assert cli(["init"]) == 0
    assert cli(["save", "--force", "Run the smoke suite before tagging a release."]) == 0
    server = InProcessServer(["--workspace", str(project), "--no-elicitation"], None)
    server.call("initialize", {"protocolVersion": "2025-11-25", "capabilities": {}})
    yield server
    server.close()


@given(name=st.sampled_from(sorted(TOOL_NAMES)), arguments=JSON)
@settings(max_examples=80, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
def test_any_arguments_to_the_real_engine_get_a_result_or_a_coded_error(
        engine: InProcessServer, name: str, arguments: Any) -> None:
    reply = engine.call("tools/call", {"name": name, "arguments": arguments})
    if "result" in reply:
        result = reply["result"]
        if result["isError"]:
            [diag] = result["structuredContent"]["diagnostics"]
            assert diag["code"] != "internal", diag
    else:
        assert reply["error"]["code"] == -32602
    _alive(engine)


def test_a_storage_fault_inside_a_tool_is_a_coded_tool_error(
        engine: InProcessServer, project: Path) -> None:
    proposed = engine.call("tools/call", {"name": "engram_save", "arguments": {
        "text": "Pin the Node version in CI."}})["result"]
    token = proposed["structuredContent"]["data"]["approval_token"]
    root = project / ".agents" / ".engram"
    (root / "memory.hashes.json").unlink()
    (root / "memory.hashes.json").mkdir()
    for name, args in (("engram_verify", {}),
                       ("engram_commit", {"approval_token": token, "approve": "all"})):
        result = engine.call("tools/call", {"name": name, "arguments": args})["result"]
        assert result["isError"] is True
        [diag] = result["structuredContent"]["diagnostics"]
        assert diag["code"].startswith("storage."), diag
        assert "memory.hashes.json is" in result["content"][0]["text"]
    _alive(engine)
