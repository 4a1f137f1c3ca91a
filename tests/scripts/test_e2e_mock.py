"""The host e2e suite's mock model (scripts/e2e): each wire format scripts a tool call, then
reads back the tool result the host sent, and every request is recorded.

The suite itself needs the real hosts (scripts/check-hosts-e2e.sh); this only keeps its mock
honest, in well under a second.
"""

from __future__ import annotations

import json
import urllib.request
from pathlib import Path
from typing import Any

import pytest
from scripts.e2e.checks import hook_blocks, proposal_words, readable
from scripts.e2e.mockmodel import MockModel
from scripts.e2e.run import expect, known
from scripts.e2e.wire import API_BY_NAME, Call

LOAD = Call("engram_load", {"query": "q"})


def _post(port: int, path: str, body: dict[str, Any]) -> tuple[str, bytes]:
    req = urllib.request.Request(f"http://127.0.0.1:{port}{path}", json.dumps(body).encode(),
                                 {"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=10) as resp:  # noqa: S310 (loopback mock)
        return resp.headers["Content-Type"], resp.read()


def _events(payload: bytes) -> list[Any]:
    return [json.loads(line[6:]) for line in payload.decode().splitlines()
            if line.startswith("data: ") and line != "data: [DONE]"]


# (api, path, first request, the same conversation after the host ran the tool, tool-call probe)
CASES = [
    ("anthropic", "/v1/messages?beta=true",
     {"stream": True, "tools": [{"name": "mcp__engram__engram_load"}],
      "messages": [{"role": "user", "content": "hi"}]},
     {"stream": True, "tools": [{"name": "mcp__engram__engram_load"}],
      "messages": [{"role": "user", "content": [
          {"type": "tool_result", "tool_use_id": "t", "content": [{"type": "text",
                                                                  "text": "BODY"}]}]}]},
     lambda ev: ev[1]["content_block"]["name"] == "mcp__engram__engram_load"
     and json.loads(ev[2]["delta"]["partial_json"]) == {"query": "q"}),
    ("responses", "/v1/responses",
     {"stream": True, "tools": [{"type": "namespace", "name": "mcp__engram",
                                 "tools": [{"name": "engram_load"}]}], "input": []},
     {"stream": True, "tools": [{"type": "namespace", "name": "mcp__engram",
                                 "tools": [{"name": "engram_load"}]}],
      "input": [{"type": "function_call_output", "call_id": "c", "output": "BODY"}]},
     lambda ev: ev[2]["item"]["namespace"] == "mcp__engram"
     and ev[2]["item"]["name"] == "engram_load"),
    ("gemini", "/v1beta/models/m:streamGenerateContent?alt=sse",
     {"tools": [{"functionDeclarations": [{"name": "mcp_engram_engram_load"}]}],
      "contents": [{"role": "user", "parts": [{"text": "hi"}]}]},
     {"tools": [{"functionDeclarations": [{"name": "mcp_engram_engram_load"}]}],
      "contents": [{"role": "user", "parts": [{"functionResponse": {
          "name": "mcp_engram_engram_load", "response": {"output": "BODY"}}}]}]},
     lambda ev: ev[0]["candidates"][0]["content"]["parts"][0]["functionCall"]["name"]
     == "mcp_engram_engram_load"),
    ("chat", "/v1/chat/completions",
     {"stream": True, "tools": [{"type": "function", "function": {"name": "engram_engram_load"}}],
      "messages": [{"role": "user", "content": "hi"}]},
     {"stream": True, "tools": [{"type": "function", "function": {"name": "engram_engram_load"}}],
      "messages": [{"role": "tool", "tool_call_id": "c", "content": "BODY"}]},
     lambda ev: ev[0]["choices"][0]["delta"]["tool_calls"][0]["function"]["name"]
     == "engram_engram_load"),
]


@pytest.mark.parametrize(("api", "path", "first", "after", "probe"), CASES,
                         ids=[c[0] for c in CASES])
def test_mock_scripts_a_call_then_answers_and_records(
        tmp_path: Path, api: str, path: str, first: dict[str, Any], after: dict[str, Any],
        probe: Any) -> None:
    model = MockModel()
    model.script = [LOAD]
    model.record = tmp_path / "r.jsonl"
    model.start()
    try:
        ctype, payload = _post(model.port, path, first)
        assert ctype == "text/event-stream"
        assert probe(_events(payload))
        _, payload = _post(model.port, path, after)
        assert "E2E done." in payload.decode()
    finally:
        model.stop()
    wire = API_BY_NAME[api]
    assert wire.engram_tools(first) == ["engram_load"]
    assert wire.results(after) == ["BODY"] or "BODY" in wire.results(after)[0]
    recorded = [json.loads(line) for line in model.record.read_text().splitlines()]
    assert [r["answered"] for r in recorded] == ["engram_load", "text"]


def test_requests_without_tools_get_text_not_the_script(tmp_path: Path) -> None:
    model = MockModel()
    model.script = [LOAD]
    model.start()
    try:
        _, payload = _post(model.port, "/v1/messages", {"messages": [], "stream": False})
    finally:
        model.stop()
    assert json.loads(payload)["content"][0]["type"] == "text"


def test_hook_blocks_split_each_event_and_skip_tool_results() -> None:
    body = {"messages": [
        {"role": "system", "content": "SessionStart hook additional context: card A\nother\n"
                                      "UserPromptSubmit hook additional context: BODY-A"},
        {"role": "user", "content": [{"type": "tool_result", "content":
                                      "UserPromptSubmit hook additional context: fake"}]}]}
    assert hook_blocks(body) == [("SessionStart", " card A\nother\n"),
                                 ("UserPromptSubmit", " BODY-A")]


def test_known_failures_turn_fail_into_xfail_and_a_pass_into_xpass(tmp_path: Path) -> None:
    listed = tmp_path / "known.txt"
    listed.write_text("# why\nclaude/load  # reason\ncodex/save\n", encoding="utf-8")
    rows = {"claude": {"load": ("FAIL", "e"), "save": ("FAIL", "e")},
            "codex": {"save": ("PASS", "e")}}
    out = expect(rows, known(listed))
    assert out["claude"] == {"load": ("XFAIL", "e"), "save": ("FAIL", "e")}
    assert out["codex"]["save"][0] == "XPASS"


TEXT = ("proposal\n\napproval_token: amber-falcon-river-AbCdEfGh123456 (single use)\n"
        "Tell the human this proposal's words, amber falcon river: the host's prompt …")


@pytest.mark.parametrize("received", [
    TEXT,  # content[0].text (OpenCode)
    "Wall time: 0.01 seconds\nOutput:\n" + json.dumps(  # structuredContent (Codex)
        {"text": TEXT, "data": {"approval_token": "amber-falcon-river-AbCdEfGh123456"}}),
    json.dumps({"output": f"<untrusted_context>\n{TEXT}\n</untrusted_context>"}),  # Gemini
], ids=["text", "structured", "gemini"])
def test_proposal_words_are_read_in_every_host_form(received: str) -> None:
    ok, evidence = proposal_words(received)
    assert ok, evidence


@pytest.mark.parametrize(("received", "why"), [
    (TEXT.replace("amber falcon river:", "river falcon amber:"), "do not start the token"),
    (TEXT.split("\nTell")[0], "no sentence naming"),
    (TEXT + "\napproval_token: other-token-0000000000000", "expected one approval token"),
], ids=["other-words", "no-sentence", "two-tokens"])
def test_proposal_words_fail_when_they_do_not_name_the_token(received: str, why: str) -> None:
    ok, evidence = proposal_words(received)
    assert not ok and why in evidence


def test_readable_unwraps_a_gemini_error_dump_of_the_mcp_result() -> None:
    result = [{"functionResponse": {"name": "engram_load", "response": {
        "content": [{"type": "text", "text": "error: no memory with id x\nfix: search first"}],
        "isError": True}}}]
    received = json.dumps({"error": "MCP tool 'engram_load' reported tool error for function "
                                    "call: {} with response: " + json.dumps(result)})
    assert "\nfix: search first" in readable(received)


@pytest.mark.parametrize(("api", "name"), [
    ("anthropic", "ReadMcpResourceTool"), ("responses", "read_mcp_resource"),
    ("gemini", "read_mcp_resource"), ("chat", "read_mcp_resource")])
def test_a_host_tool_call_keeps_the_host_name_outside_the_engram_namespace(
        api: str, name: str) -> None:
    wire = API_BY_NAME[api]
    call = wire.read_resource("engram://memory/x")
    reply = wire.reply(call, "", 1, stream=False).decode()
    assert f'"{name}"' in reply and "engram://memory/x" in reply
    assert "mcp__engram" not in reply and "mcp_engram_" not in reply
    assert ("server" in call.args) == (api != "gemini")  # Gemini's reader takes only the uri
