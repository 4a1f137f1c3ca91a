"""The approval dialog (§10.6) on the wire: legacy elicitation/create and modern input_required."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest

from tests.mcp_server.mcp_harness import InProcessServer, LineClient, RawServer, modern_meta

FORM_CAPS: dict[str, Any] = {"elicitation": {"form": {}}}
SESSION = "TYPE: rule | TEXT: Always pin tool versions.\nTYPE: knowledge | TEXT: We deploy on " \
          "Fridays never.\nTYPE: rule | TEXT: duplicate of alpha"


def _init(raw: LineClient, version: str = "2025-06-18", caps: dict[str, Any] | None = None) -> None:
    raw.call("initialize", {"protocolVersion": version,
                            "capabilities": FORM_CAPS if caps is None else caps})


def _start_save(raw: LineClient, arguments: dict[str, Any]) -> tuple[int, dict[str, Any]]:
    id_ = raw.next_id()
    raw.send({"jsonrpc": "2.0", "id": id_, "method": "tools/call",
              "params": {"name": "engram_save_session", "arguments": arguments}})
    asked = raw.recv(lambda m: m.get("method") == "elicitation/create")
    return id_, asked


def _answer(raw: LineClient, asked: dict[str, Any], **reply: Any) -> None:
    raw.send({"jsonrpc": "2.0", "id": asked["id"], **reply})


@pytest.fixture
def raw(raw_server: InProcessServer) -> InProcessServer:
    _init(raw_server)
    return raw_server


def _count(raw: InProcessServer) -> int:
    return len(raw.written())


# legacy ------------------------------------------------------------------------------------

def test_form_lists_writable_candidates_by_number_verdict_id_and_text(
        raw: InProcessServer) -> None:
    id_, asked = _start_save(raw, {"candidates": SESSION})
    schema = asked["params"]["requestedSchema"]
    assert "mode" not in asked["params"]  # 2025-06-18 has no mode field
    titles = [v.get("title") for k, v in schema["properties"].items() if k.startswith("c")]
    # each says where it goes when that is not only this repository (docs/safety.md)
    assert titles == ["1 ADD always-pin-tool-versions (workspace + global)",
                      "2 ADD we-deploy-on-fridays (workspace + global)"]
    assert schema["properties"]["scope"]["enum"] == ["both", "workspace", "global"]
    assert schema["properties"]["c1"]["description"] == "Always pin tool versions."
    assert "1 ADD always-pin-tool-versions (workspace + global): Always pin tool versions." \
        in asked["params"]["message"]
    assert "3 NOOP duplicate of alpha" in asked["params"]["message"]
    _answer(raw, asked, result={"action": "cancel"})
    raw.reply_to(id_)


def test_accept_writes_exactly_the_selected_candidates_and_may_narrow_scope(
        raw: InProcessServer) -> None:
    before = _count(raw)
    id_, asked = _start_save(raw, {"candidates": SESSION})
    _answer(raw, asked, result={"action": "accept",
                                "content": {"c1": False, "c2": True, "scope": "workspace"}})
    result = raw.reply_to(id_)["result"]
    assert result["isError"] is False
    assert "approval_token" not in result["content"][0]["text"]
    assert raw.written()[before:] == [{"id": "we-deploy-on-fridays", "scope": "workspace"}]


def test_decline_revokes_the_proposal_and_commit_then_fails(raw: InProcessServer) -> None:
    before = _count(raw)
    id_, asked = _start_save(raw, {"candidates": SESSION})
    _answer(raw, asked, result={"action": "decline"})
    result = raw.reply_to(id_)["result"]
    token = result["structuredContent"]["data"]["approval_token"]
    commit = raw.call("tools/call", {"name": "engram_commit",
                                     "arguments": {"approval_token": token, "approve": "all"}})
    assert commit["result"]["isError"] is True
    assert "approval was declined in the approval dialog" in commit["result"]["content"][0]["text"]
    assert _count(raw) == before


@pytest.mark.parametrize("content", [{"c1": "yes"}, {"c9": True}, {"scope": "everywhere"}])
def test_invalid_answer_revokes_like_decline(raw: InProcessServer, content: dict[str, Any]) -> None:
    before = _count(raw)
    id_, asked = _start_save(raw, {"candidates": SESSION})
    _answer(raw, asked, result={"action": "accept", "content": content})
    result = raw.reply_to(id_)["result"]
    assert result["structuredContent"]["data"]["revoked"] is True
    assert _count(raw) == before


@pytest.mark.parametrize("reply", [{"result": {"action": "cancel"}},
                                   {"error": {"code": -32603, "message": "boom"}}])
def test_cancel_or_client_error_falls_back_to_the_token_text(raw: InProcessServer,
                                                             reply: dict[str, Any]) -> None:
    id_, asked = _start_save(raw, {"candidates": SESSION})
    _answer(raw, asked, **reply)
    result = raw.reply_to(id_)["result"]
    assert result["content"][0]["text"].startswith("nothing was saved")
    token = result["structuredContent"]["data"]["approval_token"]
    commit = raw.call("tools/call", {"name": "engram_commit",
                                     "arguments": {"approval_token": token, "approve": [1]}})
    assert commit["result"]["isError"] is False  # the token flow still works


def test_timeout_falls_back_and_cancels_the_dialog(raw: InProcessServer) -> None:
    id_, asked = _start_save(raw, {"candidates": SESSION})
    raw.time.advance(1.1)  # past the module server's 1 s dialog timeout, without waiting
    cancelled = raw.recv(lambda m: m.get("method") == "notifications/cancelled", timeout=0.5)
    assert cancelled["params"]["requestId"] == asked["id"]
    result = raw.reply_to(id_)["result"]
    assert result["content"][0]["text"].startswith("nothing was saved (the approval dialog "
                                                   "timed out)")


def test_cancelled_request_gets_no_reply_and_writes_nothing(raw: InProcessServer) -> None:
    before = _count(raw)
    id_, _asked = _start_save(raw, {"candidates": SESSION})
    raw.send({"jsonrpc": "2.0", "method": "notifications/cancelled",
              "params": {"requestId": id_, "reason": "user stopped"}})
    assert raw.silent_for(0.5)
    assert _count(raw) == before


def test_note_asks_yes_cancel_and_returns_id_file_valid_until(raw: InProcessServer) -> None:
    id_ = raw.next_id()
    raw.send({"jsonrpc": "2.0", "id": id_, "method": "tools/call",
              "params": {"name": "engram_note", "arguments": {"text": "Flaky test in CI"}}})
    asked = raw.recv(lambda m: m.get("method") == "elicitation/create")
    assert list(asked["params"]["requestedSchema"]["properties"]) == ["save"]
    _answer(raw, asked, result={"action": "accept", "content": {"save": True}})
    data = raw.reply_to(id_)["result"]["structuredContent"]["data"]
    assert {"id", "file", "valid_until"} <= set(data)


def test_no_dialog_before_2025_06_18_or_without_form_capability(raw: InProcessServer) -> None:
    for version, caps in (("2025-03-26", FORM_CAPS), ("2025-11-25", {}),
                          ("2025-11-25", {"elicitation": {"url": {}}})):
        _init(raw, version, caps)
        result = raw.call("tools/call", {"name": "engram_save",
                                         "arguments": {"text": "Use uv."}})["result"]
        assert "approval_token" in result["structuredContent"]["data"]


def test_no_elicitation_flag_keeps_the_token_flow(tmp_path: Path) -> None:
    server = InProcessServer(["--no-elicitation"], tmp_path)
    try:
        _init(server, "2025-11-25")
        result = server.call("tools/call", {"name": "engram_save",
                                            "arguments": {"text": "Use uv."}})["result"]
        assert "approval_token" in result["structuredContent"]["data"]
        modern = server.call("tools/call", {"name": "engram_save", "arguments": {"text": "x y"},
                                            "_meta": modern_meta(caps=FORM_CAPS)})["result"]
        assert modern["resultType"] == "complete"
    finally:
        server.close()


def test_claude_print_mode_gets_the_token_flow_at_once(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`claude -p` starts its MCP servers with CLAUDE_CODE_ENTRYPOINT=sdk-cli, declares the
    dialog capability and never answers a dialog: a save must not wait for the timeout."""
    monkeypatch.setenv("CLAUDE_CODE_ENTRYPOINT", "sdk-cli")
    server = RawServer([], tmp_path)
    try:
        _init(server, "2025-11-25")
        started = time.monotonic()
        result = server.call("tools/call", {"name": "engram_save",
                                            "arguments": {"text": "Use uv."}})["result"]
        assert "approval_token" in result["structuredContent"]["data"]
        assert time.monotonic() - started < 30  # the dialog timeout is 60 s
        assert not [line for line in server.lines if b"elicitation/create" in line]
    finally:
        server.close()
    assert b"answers no approval dialog" in server.stderr


def test_interactive_claude_still_gets_the_dialog(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CLAUDE_CODE_ENTRYPOINT", "cli")
    server = RawServer([], tmp_path)
    try:
        _init(server, "2025-11-25")
        id_, asked = _start_save(server, {"candidates": SESSION})
        _answer(server, asked, result={"action": "cancel"})
        server.reply_to(id_)
    finally:
        server.close()


# modern ------------------------------------------------------------------------------------

def _modern_call(raw: InProcessServer, arguments: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return raw.call("tools/call", {"name": "engram_save_session", "arguments": arguments,
                                   "_meta": modern_meta(caps=FORM_CAPS), **extra})


def test_modern_input_required_then_retry_accepts(raw: InProcessServer) -> None:
    before = _count(raw)
    args = {"candidates": SESSION, "scope": "global"}
    first = _modern_call(raw, args)["result"]
    assert first["resultType"] == "input_required"
    request = first["inputRequests"]["approve"]
    assert request["method"] == "elicitation/create"
    assert request["params"]["mode"] == "form"
    assert "scope" not in request["params"]["requestedSchema"]["properties"]  # nothing to narrow
    done = _modern_call(raw, args, requestState=first["requestState"],
                        inputResponses={"approve": {"action": "accept",
                                                    "content": {"c1": True, "c2": True}}})
    assert done["result"]["resultType"] == "complete"
    assert [m["scope"] for m in raw.written()[before:]] == ["global", "global"]


def test_modern_decline_and_cancel(raw: InProcessServer) -> None:
    args = {"candidates": SESSION}
    for action, marker in (("decline", "revoked"), ("cancel", "approval_token")):
        first = _modern_call(raw, args)["result"]
        done = _modern_call(raw, args, requestState=first["requestState"],
                            inputResponses={"approve": {"action": action}})["result"]
        assert marker in done["structuredContent"]["data"]


def test_forged_mismatched_replayed_and_expired_states_are_32602_and_write_nothing(
        raw: InProcessServer) -> None:
    before = _count(raw)
    args = {"candidates": SESSION}
    accept = {"approve": {"action": "accept", "content": {}}}
    first = _modern_call(raw, args)["result"]
    state = first["requestState"]
    body, mac = state.split(".")
    forged = body[:-2] + ("AA" if body[-2:] != "AA" else "BB") + "." + mac
    assert _modern_call(raw, args, requestState=forged,
                        inputResponses=accept)["error"]["code"] == -32602
    assert _modern_call(raw, {"candidates": "TYPE: rule | TEXT: other"}, requestState=state,
                        inputResponses=accept)["error"]["code"] == -32602
    wrong_tool = raw.call("tools/call", {"name": "engram_save", "arguments": args,
                                         "requestState": state, "inputResponses": accept,
                                         "_meta": modern_meta(caps=FORM_CAPS)})
    assert wrong_tool["error"]["code"] == -32602
    assert _count(raw) == before
    assert _modern_call(raw, args, requestState=state, inputResponses=accept)["result"]
    assert _modern_call(raw, args, requestState=state,
                        inputResponses=accept)["error"]["code"] == -32602  # single use
    late = _modern_call(raw, args)["result"]["requestState"]
    raw.time.advance(1.6)  # the module server seals states for 1.5 s
    after = _count(raw)
    assert _modern_call(raw, args, requestState=late,
                        inputResponses=accept)["error"]["code"] == -32602
    assert _count(raw) == after


def test_requests_beyond_the_in_flight_cap_are_refused_without_blocking_the_reader(
        tmp_path: Path) -> None:
    server = InProcessServer(["--dialog-timeout", "30"], tmp_path)
    try:
        _init(server, "2025-11-25")
        for i in range(32):
            server.send({"jsonrpc": "2.0", "id": f"s{i}", "method": "tools/call",
                         "params": {"name": "engram_save", "arguments": {"text": f"Rule {i}."}}})
        asks = [server.recv(lambda m: m.get("method") == "elicitation/create")
                for _ in range(32)]
        assert server.call("ping")["error"]["code"] == -32603
        _answer(server, asks[0], result={"action": "cancel"})  # the reader still delivers
        # Generous timeout: 32 pending proposals on a loaded 2-core CI machine are slow.
        # Whichever request that dialog belonged to is answered (threads ask in any order).
        done = server.recv(lambda m: str(m.get("id", "")).startswith("s") and "method" not in m,
                           60)
        assert "result" in done
        assert server.call("ping")["result"] == {}
    finally:
        server.close()
