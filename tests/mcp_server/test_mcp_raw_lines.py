"""Raw-line tests of the transport, legacy and modern eras (docs/MCP.md) over the in-process
server (fake core); process-level rules run a real `engram-mcp` subprocess."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest

from tests.mcp_server.mcp_harness import MODERN, InProcessServer, LineClient, RawServer, modern_meta

LEGACY_VERSIONS = ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"]


def initialize(raw: LineClient, version: str = "2025-06-18",
               caps: dict[str, Any] | None = None) -> dict[str, Any]:
    reply = raw.call("initialize", {"protocolVersion": version,
                                    "capabilities": {} if caps is None else caps,
                                    "clientInfo": {"name": "raw", "version": "0"}})
    raw.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
    return reply


# §10.1 transport ---------------------------------------------------------------------------

def test_malformed_line_gets_parse_error_with_null_id_and_server_keeps_running(
        raw_server: InProcessServer) -> None:
    raw_server.write(b'{"jsonrpc": "2.0", "id": 1, "method": \n')
    err = raw_server.recv(lambda m: "error" in m and m["id"] is None)
    assert err["error"]["code"] == -32700
    assert raw_server.call("ping")["result"] == {}


def test_invalid_utf8_line_is_a_parse_error(raw_server: InProcessServer) -> None:
    raw_server.write(b'{"jsonrpc":"2.0","id":7,"method":"ping","x":"\xff\xfe"}\n')
    err = raw_server.recv(lambda m: "error" in m and m["id"] is None)
    assert err["error"]["code"] == -32700


@pytest.mark.parametrize("line", [b'[{"jsonrpc":"2.0","id":1,"method":"ping"}]', b"42",
                                  b'"ping"', b"null"])
def test_batches_and_non_objects_are_invalid_requests(raw_server: InProcessServer,
                                                      line: bytes) -> None:
    raw_server.write(line + b"\n")
    err = raw_server.recv(lambda m: "error" in m and m["id"] is None)
    assert err["error"]["code"] == -32600


def test_wrong_jsonrpc_version_is_an_invalid_request_with_its_id(
        raw_server: InProcessServer) -> None:
    raw_server.send({"jsonrpc": "1.0", "id": "v1", "method": "ping"})
    assert raw_server.reply_to("v1")["error"]["code"] == -32600


def test_notifications_get_no_reply(raw_server: InProcessServer) -> None:
    raw_server.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
    raw_server.send({"jsonrpc": "2.0", "method": "no/such/notification", "params": {}})
    raw_server.send({"jsonrpc": "2.0", "method": "engram_status"})
    assert raw_server.silent_for(0.4)


def test_a_line_over_10_mb_is_drained_and_answered_with_parse_error(
        raw_server: InProcessServer) -> None:
    raw_server.write(b'{"jsonrpc":"2.0","id":9,"method":"ping","pad":"' + b"x" * (10 * 2**20)
                     + b'"}\n')
    err = raw_server.recv(lambda m: "error" in m and m["id"] is None, timeout=20)
    assert err["error"]["code"] == -32700
    assert raw_server.call("ping")["result"] == {}


def test_every_stdout_line_is_json_even_when_a_tool_prints(tmp_path: Path) -> None:
    raw_server = RawServer([], tmp_path)  # the fd-1 guard is a property of the process
    try:
        reply = raw_server.call("tools/call", {"name": "engram_status", "arguments": {}})
        assert reply["result"]["content"][0]["text"] == "workspace: 2 memories"
        assert raw_server.call("engram_status")["result"] == "workspace: 2 memories"
    finally:
        raw_server.close()
    for line in raw_server.lines:
        json.loads(line)


# §10.2 legacy era --------------------------------------------------------------------------

@pytest.mark.parametrize("version", LEGACY_VERSIONS)
def test_initialize_echoes_each_known_legacy_version(raw_server: InProcessServer,
                                                     version: str) -> None:
    result = initialize(raw_server, version)["result"]
    assert result["protocolVersion"] == version
    assert set(result["capabilities"]) == {"tools", "resources", "prompts"}
    assert result["serverInfo"]["name"] == "engram"
    assert "engram_commit" in result["instructions"]


@pytest.mark.parametrize("asked", ["2099-01-01", "2026-07-28", None, 5])
def test_initialize_answers_2025_11_25_for_any_other_version(raw_server: InProcessServer,
                                                             asked: Any) -> None:
    reply = raw_server.call("initialize", {"protocolVersion": asked, "capabilities": {}})
    assert reply["result"]["protocolVersion"] == "2025-11-25"


def test_legacy_lists_and_reads(raw_server: InProcessServer) -> None:
    initialize(raw_server)
    tools = raw_server.call("tools/list")["result"]["tools"]
    assert len(tools) == 11
    resources = raw_server.call("resources/list")["result"]["resources"]
    assert [r["uri"] for r in resources] == ["engram://index", "engram://memory/alpha",
                                             "engram://memory/beta"]
    templates = raw_server.call("resources/templates/list")["result"]["resourceTemplates"]
    assert templates[0]["uriTemplate"] == "engram://memory/{id}"
    index = raw_server.call("resources/read", {"uri": "engram://index"})["result"]
    assert "alpha" in index["contents"][0]["text"]
    body = raw_server.call("resources/read", {"uri": "engram://memory/beta"})["result"]
    assert body["contents"][0]["text"].startswith("# beta")
    prompts = raw_server.call("prompts/list")["result"]["prompts"]
    assert prompts[0]["name"] == "propose"
    prompt = raw_server.call("prompts/get", {"name": "propose"})["result"]
    assert "engram_commit" in prompt["messages"][0]["content"]["text"]


def test_legacy_unknown_resource_is_32002(raw_server: InProcessServer) -> None:
    for uri in ("engram://memory/nope", "file:///etc/passwd"):
        reply = raw_server.call("resources/read", {"uri": uri})
        assert reply["error"]["code"] == -32002


def test_unknown_method_is_32601_and_unknown_prompt_is_32602(raw_server: InProcessServer) -> None:
    assert raw_server.call("no/such")["error"]["code"] == -32601
    assert raw_server.call("engram_nope")["error"]["code"] == -32601
    assert raw_server.call("prompts/get", {"name": "x"})["error"]["code"] == -32602


def test_plain_tool_method_returns_plain_text(raw_server: InProcessServer) -> None:
    reply = raw_server.call("engram_search", {"query": "smoke"})
    assert reply["result"] == "alpha (rule): smoke suite [smoke, 10]"
    assert raw_server.call("engram_search", {"nope": 1})["error"]["code"] == -32602


def test_unknown_tool_is_32602_but_bad_arguments_are_an_error_result(
        raw_server: InProcessServer) -> None:
    reply = raw_server.call("tools/call", {"name": "engram_nope", "arguments": {}})
    assert reply["error"]["code"] == -32602
    bad = raw_server.call("tools/call", {"name": "engram_load",
                                         "arguments": {"budget_tokens": 5}})["result"]
    assert bad["isError"] is True
    assert bad["structuredContent"]["ok"] is False
    assert "budget_tokens" in bad["content"][0]["text"]
    extra = raw_server.call("tools/call", {"name": "engram_verify",
                                           "arguments": {"deep": True}})["result"]
    assert extra["isError"] is True and "deep" in extra["content"][0]["text"]


def test_tool_result_carries_text_and_envelope(raw_server: InProcessServer) -> None:
    result = raw_server.call("tools/call", {"name": "engram_load",
                                            "arguments": {"query": "release"}})["result"]
    assert result["isError"] is False
    assert result["structuredContent"]["contract_version"] == "1"
    assert result["structuredContent"]["data"]["selected_keys"] == ["workspace:alpha"]


# §10.3 modern era --------------------------------------------------------------------------

def test_modern_request_is_served_statelessly_with_result_type_and_cache_hints(
        raw_server: InProcessServer) -> None:
    for method in ("server/discover", "tools/list", "resources/list",
                   "resources/templates/list", "prompts/list"):
        result = raw_server.call(method, {"_meta": modern_meta()})["result"]
        assert result["resultType"] == "complete"
        assert result["_meta"]["io.modelcontextprotocol/serverInfo"]["name"] == "engram"
        assert result["cacheScope"] == "private" and result["ttlMs"] >= 0
    read = raw_server.call("resources/read", {"uri": "engram://index", "_meta": modern_meta()})
    assert read["result"]["cacheScope"] == "private"
    call = raw_server.call("tools/call", {"name": "engram_route", "arguments": {"task": "x"},
                                          "_meta": modern_meta()})["result"]
    assert call["resultType"] == "complete" and "ttlMs" not in call
    prompt = raw_server.call("prompts/get", {"name": "propose", "_meta": modern_meta()})
    assert prompt["result"]["resultType"] == "complete"


def test_discover_carries_the_same_instructions_as_initialize(raw_server: InProcessServer) -> None:
    discover = raw_server.call("server/discover", {"_meta": modern_meta()})["result"]
    init = initialize(raw_server)["result"]
    assert discover["instructions"] == init["instructions"]
    assert discover["supportedVersions"] == [MODERN]


def test_modern_request_without_client_capabilities_is_32602(raw_server: InProcessServer) -> None:
    meta = {"io.modelcontextprotocol/protocolVersion": MODERN}
    assert raw_server.call("tools/list", {"_meta": meta})["error"]["code"] == -32602


def test_unsupported_modern_version_is_32022_with_supported_and_requested(
        raw_server: InProcessServer) -> None:
    err = raw_server.call("tools/list", {"_meta": modern_meta("2027-01-01")})["error"]
    assert err["code"] == -32022
    assert err["data"] == {"supported": [MODERN], "requested": "2027-01-01"}


@pytest.mark.parametrize("method", ["ping", "initialize", "engram_status", "no/such"])
def test_handshake_methods_and_plain_tool_methods_are_32601_in_the_modern_era(
        raw_server: InProcessServer, method: str) -> None:
    assert raw_server.call(method, {"_meta": modern_meta()})["error"]["code"] == -32601


def test_discover_without_the_envelope_is_32602(raw_server: InProcessServer) -> None:
    assert raw_server.call("server/discover")["error"]["code"] == -32602
    assert raw_server.call("server/discover", {"_meta": {}})["error"]["code"] == -32602


def test_modern_unknown_resource_and_unknown_tool_are_32602(raw_server: InProcessServer) -> None:
    read = raw_server.call("resources/read", {"uri": "engram://memory/nope",
                                              "_meta": modern_meta()})
    assert read["error"]["code"] == -32602
    call = raw_server.call("tools/call", {"name": "nope", "arguments": {},
                                          "_meta": modern_meta()})
    assert call["error"]["code"] == -32602


def test_legacy_and_modern_requests_interleave_in_one_process(raw_server: InProcessServer) -> None:
    initialize(raw_server, "2025-03-26")
    for i in range(3):
        legacy = raw_server.call("tools/list")["result"]
        modern = raw_server.call("tools/list", {"_meta": modern_meta()})["result"]
        assert "resultType" not in legacy and modern["resultType"] == "complete"
        assert legacy["tools"] == modern["tools"]
        assert raw_server.call("ping")["result"] == {}, i
        assert raw_server.call("ping", {"_meta": modern_meta()})["error"]["code"] == -32601


def test_modern_capabilities_come_only_from_the_request(raw_server: InProcessServer) -> None:
    initialize(raw_server, "2025-06-18", {"elicitation": {}})  # legacy session could elicit
    args = {"name": "engram_save", "arguments": {"text": "Prefer ruff over flake8."}}
    plain = raw_server.call("tools/call", {**args, "_meta": modern_meta(caps={})})["result"]
    assert plain["resultType"] == "complete"
    assert "approval_token" in plain["structuredContent"]["data"]
    asked = raw_server.call("tools/call",
                            {**args, "_meta": modern_meta(caps={"elicitation": {"form": {}}})})
    assert asked["result"]["resultType"] == "input_required"


# process-level rules (own processes) -------------------------------------------------------

def test_unknown_option_is_ignored_with_one_stderr_note(tmp_path: Path) -> None:
    raw = RawServer(["--frobnicate", "--always-load", "-x"], tmp_path)
    tools = raw.call("tools/list")["result"]["tools"]
    assert tools[0]["_meta"] == {"anthropic/alwaysLoad": True}
    assert raw.close() == 0
    assert raw.stderr.decode().count("ignoring unknown option(s): --frobnicate -x") == 1


def test_server_exits_promptly_on_eof_while_a_dialog_is_pending(tmp_path: Path) -> None:
    raw = RawServer([], tmp_path)
    initialize(raw, "2025-11-25", {"elicitation": {"form": {}}})
    raw.send({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
              "params": {"name": "engram_save", "arguments": {"text": "Use uv for envs."}}})
    asked = raw.recv(lambda m: m.get("method") == "elicitation/create")
    assert asked["params"]["mode"] == "form"
    assert raw.call("ping")["result"] == {}  # a pending dialog blocks nothing
    start = time.monotonic()
    assert raw.close() == 0
    assert time.monotonic() - start < 3.0
    assert raw.written() == []
