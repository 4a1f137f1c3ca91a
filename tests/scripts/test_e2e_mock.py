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
from scripts.e2e import project as proj
from scripts.e2e.checks import hook_blocks, proposal_words, readable
from scripts.e2e.mockmodel import MockModel
from scripts.e2e.received import NO_MAP_ID, fetch_from_map, map_pick, named, read_map
from scripts.e2e.run import expect, known
from scripts.e2e.wire import API_BY_NAME, Call

from engram.search.pack import MAP_HEAD, add_map, render_tiered
from engram.store.ids import id_from_title, title_from_text
from tests.search.conftest import mem

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


# The map scenario: the mock reads the map off the load result the host forwarded, in each
# host's form, and fetches the first id its pack does not hold. The text comes from the
# product's own renderer, so a change of the map's format shows here, without the hosts.
PACKED = [mem(f"exporter-step-{n}", title=f"Exporter step {n}") for n in range(3)]
LISTED = [mem("exporter-retries", title="Exporter retries"),
          mem("exporter-step-1-more", title="Exporter step 1, more")]


def _map_text() -> str:
    pack = render_tiered(PACKED, budget=1600)
    add_map(pack, LISTED, room=6400)
    assert pack.map_keys == ["workspace:exporter-retries", "workspace:exporter-step-1-more"]
    return pack.text


def _forms(text: str) -> list[str]:
    structured = json.dumps({"text": text, "contract_version": "1", "ok": True,
                             "data": {"map_ids": ["workspace:exporter-retries"]}})
    return [text,  # content[0].text (OpenCode)
            structured,  # Claude Code
            "Wall time: 0.02 seconds\nOutput:\n" + structured,  # Codex
            json.dumps({"output": f"<untrusted_context>\n{text}\n</untrusted_context>"})]


@pytest.mark.parametrize("form", range(4), ids=["text", "claude", "codex", "gemini"])
def test_the_map_is_read_off_a_load_result_in_every_host_form(form: int) -> None:
    received = _forms(_map_text())[form]
    pack, ids = read_map(received)
    assert ids == ["exporter-retries", "exporter-step-1-more"]
    assert "exporter-step-0" in pack and MAP_HEAD not in pack
    assert map_pick(received) == "exporter-retries"
    assert fetch_from_map(["earlier result", received]) == {"id": "exporter-retries"}


def test_the_pick_skips_a_listed_id_the_pack_names_and_a_result_without_a_map() -> None:
    text = _map_text()
    pack, _ = read_map(text)
    assert named(pack, "exporter-step-1") and not named(pack, "exporter-step")
    assert not named(pack, "exporter-retries")
    # A map id the pack already names is passed over (a model would not fetch it again).
    assert map_pick(text.replace("- exporter-retries:", "- exporter-step-2:")) == \
        "exporter-step-1-more"
    plain = render_tiered(PACKED, budget=1600).text
    assert read_map(plain) == (plain.rstrip("\n"), []) and map_pick(plain) is None
    cut = text.rstrip("\n").rsplit("\n", 1)[0]  # the fetch line lost: not a map at the end
    assert map_pick(cut) is None
    assert fetch_from_map([plain]) == {"id": NO_MAP_ID} == fetch_from_map([])


@pytest.mark.parametrize(("api", "path", "first", "after", "probe"), CASES,
                         ids=[c[0] for c in CASES])
def test_the_mock_fetches_the_map_id_it_received_and_records_it(
        tmp_path: Path, api: str, path: str, first: dict[str, Any], after: dict[str, Any],
        probe: Any) -> None:
    model = MockModel()
    model.script = [Call("engram_load", {}, pick=fetch_from_map)]
    model.record = tmp_path / "r.jsonl"
    model.start()
    try:
        _post(model.port, path, first)  # no result yet: the pick finds no map
        with_map = json.loads(json.dumps(after).replace('"BODY"', json.dumps(_map_text())))
        model.script = [LOAD, Call("engram_load", {}, pick=fetch_from_map)]
        _, payload = _post(model.port, path, with_map)
    finally:
        model.stop()
    assert "exporter-retries" in payload.decode()
    recorded = [json.loads(line) for line in model.record.read_text().splitlines()]
    assert [(r["step"], r["args"]) for r in recorded] == [
        (0, {"id": NO_MAP_ID}), (1, {"id": "exporter-retries"})]


def test_each_mapped_memory_has_its_id_and_a_marker_past_its_title() -> None:
    assert len(proj.MAPPED) > 8  # more than a pack holds (load.limit): the rest is the map
    for m in proj.MAPPED:
        assert proj.mapped(id_from_title(title_from_text(m.text))) is m  # the id Engram gives
        assert m.marker not in " ".join(m.text.split()[:12])
    assert proj.mapped("the-exporter-reads") is None
    assert len({m.marker for m in proj.MAPPED}) == len(proj.MAPPED)
