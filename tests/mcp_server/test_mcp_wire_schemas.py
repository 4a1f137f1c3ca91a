"""Every result captured on the wire validates against the official schema of its version."""

from __future__ import annotations

from typing import Any

import mcp_types as types
import pytest
from mcp_types.methods import parse_server_request, validate_server_result

from tests.mcp_server.mcp_harness import MODERN, RawServer, modern_meta

LEGACY = ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"]
TOOL_ARGS: dict[str, dict[str, Any]] = {
    "engram_load": {"query": "release"}, "engram_route": {"task": "release"},
    "engram_search": {"query": "smoke"}, "engram_verify": {}, "engram_status": {},
    "engram_save": {"text": "Always tag releases."},
    "engram_save_session": {"candidates": "TYPE: rule | TEXT: Never force-push main."},
    "engram_note": {"text": "Port 8443 is busy"},
    "engram_set_role": {"roles": []}, "engram_set_rule_variant": {"variant": "status"},
    "engram_load_bad": {"budget_tokens": "many"},
}


def _exchange(raw: RawServer, extra: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    """Run every served method once; return (method, result) pairs."""
    captured: list[tuple[str, dict[str, Any]]] = []

    def call(method: str, params: dict[str, Any]) -> dict[str, Any]:
        reply = raw.call(method, {**params, **extra})
        assert "result" in reply, (method, reply)
        captured.append((method, reply["result"]))
        return reply["result"]  # type: ignore[no-any-return]

    for method in ("tools/list", "resources/list", "resources/templates/list", "prompts/list"):
        call(method, {})
    call("resources/read", {"uri": "engram://index"})
    call("resources/read", {"uri": "engram://memory/alpha"})
    call("prompts/get", {"name": "propose"})
    for name, args in TOOL_ARGS.items():
        result = call("tools/call", {"name": name.removesuffix("_bad"), "arguments": args})
        token = result.get("structuredContent", {}).get("data", {}).get("approval_token")
        if token:
            call("tools/call", {"name": "engram_commit",
                                "arguments": {"approval_token": token, "approve": "all"}})
    return captured


@pytest.mark.parametrize("version", LEGACY)
def test_legacy_results_validate_for_each_handshake_version(raw_server: RawServer,
                                                            version: str) -> None:
    init = raw_server.call("initialize", {"protocolVersion": version, "capabilities": {}})
    validate_server_result("initialize", version, init["result"])
    validate_server_result("ping", version, raw_server.call("ping")["result"])
    for method, result in _exchange(raw_server, {}):
        validate_server_result(method, version, result)


def test_modern_results_validate_including_input_required(raw_server: RawServer) -> None:
    discover = raw_server.call("server/discover", {"_meta": modern_meta()})["result"]
    validate_server_result("server/discover", MODERN, discover)
    for method, result in _exchange(raw_server, {"_meta": modern_meta()}):
        validate_server_result(method, MODERN, result)
    asking = raw_server.call("tools/call", {
        "name": "engram_note", "arguments": {"text": "x y"},
        "_meta": modern_meta(caps={"elicitation": {}})})["result"]
    assert asking["resultType"] == "input_required"
    validate_server_result("tools/call", MODERN, asking)


def test_unsupported_version_error_data_matches_the_schema(raw_server: RawServer) -> None:
    err = raw_server.call("tools/list", {"_meta": modern_meta("2030-01-01")})["error"]
    data = types.UnsupportedProtocolVersionErrorData.model_validate(err["data"])
    assert data.supported == [MODERN] and data.requested == "2030-01-01"


@pytest.mark.parametrize("version", ["2025-06-18", "2025-11-25"])
def test_elicitation_request_validates_for_its_version(raw_server: RawServer,
                                                       version: str) -> None:
    raw_server.call("initialize", {"protocolVersion": version,
                                   "capabilities": {"elicitation": {}}})
    id_ = raw_server.next_id()
    raw_server.send({"jsonrpc": "2.0", "id": id_, "method": "tools/call",
                     "params": {"name": "engram_save", "arguments": {"text": "Use uv."}}})
    asked = raw_server.recv(lambda m: m.get("method") == "elicitation/create")
    parse_server_request("elicitation/create", version, asked["params"])
    raw_server.send({"jsonrpc": "2.0", "id": asked["id"], "result": {"action": "cancel"}})
    validate_server_result("tools/call", version, raw_server.reply_to(id_)["result"])
