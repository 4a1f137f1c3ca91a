"""The official MCP SDK client (2.3.0) against `engram-mcp` in legacy, auto and 2026-07-28 modes.

One server process per mode: list and call every tool, read every resource kind, get the
prompt, and drive the approval dialog through accept / decline / cancel / client error / raise /
slow. Every result the client parsed is validated again with `validate_server_result` for the
protocol version the session negotiated.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
import pytest
from mcp import Client
from mcp.client.session import ClientRequestContext
from mcp.client.stdio import StdioServerParameters
from mcp.shared.exceptions import MCPError
from mcp_types.methods import validate_server_result

from tests.mcp_server.mcp_harness import FAKE_SERVER, MODERN, FakeTime, server_env

CALLS: dict[str, dict[str, Any]] = {
    "engram_load": {"query": "release checklist", "budget_tokens": 800},
    "engram_route": {"task": "fix the flaky release test"},
    "engram_search": {"query": "smoke", "limit": 3},
    "engram_verify": {},
    "engram_status": {},
    "engram_set_role": {"roles": ["backend"]},
    "engram_set_rule_variant": {"variant": "strict"},
}
DIALOG_ARGS = {"candidates": "TYPE: rule | TEXT: Always pin tool versions.\n"
                             "TYPE: knowledge | TEXT: Staging runs on port 8443."}

Behaviour = Callable[[types.ElicitRequestParams], Awaitable[types.ElicitResult | types.ErrorData]]


class Harness:
    def __init__(self, client: Client, fake_dir: Path) -> None:
        self.client = client
        self.fake_dir = fake_dir
        self.behaviour: Behaviour | None = None
        self.asked: list[dict[str, Any]] = []
        self.time = FakeTime(fake_dir / "clock")  # the server's clock (--clock-file)

    @property
    def version(self) -> str:
        version = self.client.session.protocol_version
        assert version is not None
        return version

    def check(self, method: str, result: Any) -> Any:
        validate_server_result(method, self.version,
                               result.model_dump(by_alias=True, mode="json", exclude_none=True))
        return result

    async def call(self, name: str, arguments: dict[str, Any]) -> types.CallToolResult:
        return self.check("tools/call", await self.client.call_tool(name, arguments))  # type: ignore[no-any-return]

    def written(self) -> list[dict[str, Any]]:
        path = self.fake_dir / "written.json"
        return json.loads(path.read_text())["memories"] if path.exists() else []


def run_session(mode: str, fake_dir: Path, body: Callable[[Harness], Awaitable[None]],
                *flags: str) -> None:
    async def main() -> None:
        harness: Harness

        async def on_elicit(context: ClientRequestContext,
                            params: types.ElicitRequestParams
                            ) -> types.ElicitResult | types.ErrorData:
            harness.asked.append(params.model_dump(by_alias=True, exclude_none=True))
            assert harness.behaviour is not None
            return await harness.behaviour(params)

        params = StdioServerParameters(
            command=sys.executable, env=server_env(),
            args=[str(FAKE_SERVER), "--fake-dir", str(fake_dir), "--dialog-timeout", "1.0",
                  "--state-ttl", "1.5", "--clock-file", str(fake_dir / "clock"), *flags])
        async with Client(params, mode=mode, elicitation_callback=on_elicit) as client:
            harness = Harness(client, fake_dir)
            await body(harness)

    anyio.run(main)


def answer(action: str, content: dict[str, Any] | None = None) -> Behaviour:
    async def respond(_params: types.ElicitRequestParams) -> types.ElicitResult:
        return types.ElicitResult(action=action, content=content)  # type: ignore[arg-type]
    return respond


async def _lists_and_reads(h: Harness) -> None:
    tools = h.check("tools/list", await h.client.list_tools())
    assert len(tools.tools) == 11
    commit = next(t for t in tools.tools if t.name == "engram_commit")
    assert commit.meta == {"anthropic/requiresUserInteraction": True}
    resources = h.check("resources/list", await h.client.list_resources())
    assert str(resources.resources[0].uri) == "engram://index"
    h.check("resources/templates/list", await h.client.list_resource_templates())
    for uri in ("engram://index", "engram://memory/alpha"):
        read = h.check("resources/read", await h.client.read_resource(uri))
        assert read.contents[0].text
    with pytest.raises(MCPError) as missing:
        await h.client.read_resource("engram://memory/missing")
    assert missing.value.error.code == (-32602 if h.version == MODERN else -32002)
    h.check("prompts/list", await h.client.list_prompts())
    prompt = h.check("prompts/get", await h.client.get_prompt("propose"))
    assert "approval_token" in prompt.messages[0].content.text


async def _every_plain_tool(h: Harness) -> None:
    for name, args in CALLS.items():
        result = await h.call(name, args)
        assert result.is_error is False, (name, result)
        assert result.structured_content["ok"] is True
    bad = await h.call("engram_search", {"query": "x", "limit": 0})
    assert bad.is_error is True and "limit" in bad.content[0].text  # type: ignore[union-attr]
    with pytest.raises(MCPError) as unknown:
        await h.client.call_tool("engram_nope", {})
    assert unknown.value.error.code == -32602


async def _dialog_outcomes(h: Harness) -> None:
    before = len(h.written())
    h.behaviour = answer("accept", {"c1": True, "c2": False, "scope": "workspace"})
    accepted = await h.call("engram_save_session", DIALOG_ARGS)
    assert accepted.content[0].text.startswith("approved in the dialog")  # type: ignore[union-attr]
    assert h.written()[before:] == [{"id": "always-pin-tool-versions", "scope": "workspace"}]
    assert "Always pin tool versions." in json.dumps(h.asked[-1])

    h.behaviour = answer("decline")
    declined = await h.call("engram_save", {"text": "Prefer httpx over requests."})
    token = declined.structured_content["data"]["approval_token"]
    refused = await h.call("engram_commit", {"approval_token": token, "approve": "all"})
    assert "approval was declined in the approval dialog" in refused.content[0].text  # type: ignore[union-attr]

    h.behaviour = answer("cancel")
    cancelled = await h.call("engram_note", {"text": "CI cache is stale", "objective": "ci"})
    assert cancelled.content[0].text.startswith("nothing was saved")  # type: ignore[union-attr]
    token = cancelled.structured_content["data"]["approval_token"]
    note = await h.call("engram_commit", {"approval_token": token, "approve": "all"})
    assert {"id", "file", "valid_until"} <= set(note.structured_content["data"])
    assert len(h.written()) == before + 2


async def error(_p: Any) -> types.ErrorData:
    """A client that answers the dialog request with a JSON-RPC error."""
    return types.ErrorData(code=-32603, message="dialog broke")


async def boom(_p: Any) -> types.ElicitResult:
    """A client whose dialog handler crashes."""
    raise RuntimeError("host crashed while showing the dialog")


async def _client_failures_legacy(h: Harness) -> None:
    before = len(h.written())

    async def slow(_p: Any) -> types.ElicitResult:
        h.time.advance(1.4)  # past the 1 s dialog timeout: the server gives up at once and
        await anyio.sleep(30)  # its notifications/cancelled interrupts this handler
        return types.ElicitResult(action="accept", content={})

    for behaviour, reason in ((error, "could not show"), (boom, "could not show"),
                              (slow, "timed out")):
        h.behaviour = behaviour
        result = await h.call("engram_save", {"text": "Use ruff for linting."})
        text = result.content[0].text  # type: ignore[union-attr]
        assert text.startswith("nothing was saved") and reason in text, text
    assert len(h.written()) == before


async def _client_failures_modern(h: Harness) -> None:
    before = len(h.written())

    async def slow(_p: Any) -> types.ElicitResult:
        h.time.advance(1.7)  # longer than the 1.5 s requestState lifetime
        return types.ElicitResult(action="accept", content={})

    for behaviour in (error, boom, slow):
        h.behaviour = behaviour
        with pytest.raises((MCPError, ExceptionGroup, RuntimeError)) as failed:
            await h.client.call_tool("engram_save", {"text": "Use ruff for linting."})
        if behaviour is slow:
            assert isinstance(failed.value, MCPError) and failed.value.error.code == -32602
    assert len(h.written()) == before


async def _tampered_states(h: Harness) -> None:
    before = len(h.written())
    args = {"text": "Tag releases from main."}
    first = await h.client.session.call_tool("engram_save", args, allow_input_required=True)
    assert isinstance(first, types.InputRequiredResult) and first.request_state
    validate_server_result("tools/call", MODERN,
                           first.model_dump(by_alias=True, mode="json", exclude_none=True))
    accept = {"approve": types.ElicitResult(action="accept", content={})}
    state = first.request_state
    for bad_args, bad_state in ((args, state[:-3] + "AAA"), ({"text": "other"}, state)):
        with pytest.raises(MCPError) as rejected:
            await h.client.session.call_tool("engram_save", bad_args, request_state=bad_state,
                                             input_responses=accept)  # type: ignore[arg-type]
        assert rejected.value.error.code == -32602
    assert len(h.written()) == before


@pytest.mark.parametrize("mode", ["legacy", "auto", MODERN])
def test_sdk_client_lists_calls_every_tool_and_answers_dialogs(mode: str, tmp_path: Path) -> None:
    async def body(h: Harness) -> None:
        assert h.version == ("2025-11-25" if mode == "legacy" else MODERN)
        await _lists_and_reads(h)
        await _every_plain_tool(h)
        await _dialog_outcomes(h)
        if h.version == MODERN:
            await _client_failures_modern(h)
            await _tampered_states(h)
        else:
            await _client_failures_legacy(h)

    run_session(mode, tmp_path, body)


def test_sdk_client_with_no_elicitation_flag_gets_the_token_flow(tmp_path: Path) -> None:
    async def body(h: Harness) -> None:
        h.behaviour = answer("accept", {})
        proposed = await h.call("engram_save", {"text": "Keep migrations reversible."})
        data = proposed.structured_content["data"]
        assert h.asked == [] and "approval_token" in data
        done = await h.call("engram_commit", {"approval_token": data["approval_token"],
                                              "approve": [1]})
        assert done.is_error is False and h.written()

    run_session(MODERN, tmp_path, body, "--no-elicitation")
