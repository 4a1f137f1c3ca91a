"""Save, approve and load through `engram-mcp` over the real read and write cores.

Runs the official SDK client against `python -m engram.mcp --workspace <project>` on a
workspace made by `engram init`: the token flow, the legacy dialog and the 2026-07-28
`input_required` retry all write through the real commit path, and what they write is then
routed back by `engram_load`, read as a resource and checked by `engram_verify`.
"""

from __future__ import annotations

import sys
from collections.abc import Awaitable, Callable
from pathlib import Path

import anyio
import mcp_types as types
import pytest
from mcp import Client
from mcp.client.session import ClientRequestContext
from mcp.client.stdio import StdioServerParameters
from mcp.shared.exceptions import MCPError

from engram.cli.main import main as cli
from tests.mcp_server.mcp_harness import FAKE_SERVER, MODERN, checked_call, server_env

pytest.importorskip("engram.proposals.api", reason="the write core is not merged yet")


def _needs_read_core() -> None:
    pytest.importorskip("engram.search.api", reason="the read core is not merged yet")

Answer = Callable[[types.ElicitRequestParams], types.ElicitResult]


def _session(project: Path, mode: str, answer: list[Answer],
             body: Callable[[Client], Awaitable[None]], *flags: str) -> None:
    async def main() -> None:
        async def on_elicit(context: ClientRequestContext,
                            params: types.ElicitRequestParams) -> types.ElicitResult:
            return answer[0](params)

        params = StdioServerParameters(
            command=sys.executable, env=server_env(), cwd=str(project),
            args=[str(FAKE_SERVER), "--real-core", "--workspace", str(project),
                  "--dialog-timeout", "2", "--state-ttl", "60", *flags])
        async with Client(params, mode=mode, elicitation_callback=on_elicit) as client:
            await body(client)

    anyio.run(main)


_call = checked_call


def _text(result: types.CallToolResult) -> str:
    block = result.content[0]
    assert isinstance(block, types.TextContent)
    return block.text


def _accept_all(params: types.ElicitRequestParams) -> types.ElicitResult:
    schema = params.requested_schema  # type: ignore[union-attr]
    content: dict[str, str | int | float | bool | list[str] | None] = {
        k: True for k in schema["properties"] if k != "scope"}
    return types.ElicitResult(action="accept", content=content)


def _decline(_params: types.ElicitRequestParams) -> types.ElicitResult:
    return types.ElicitResult(action="decline")


@pytest.mark.parametrize("mode", ["legacy", MODERN])
def test_dialog_accept_writes_and_load_routes_it_back(project: Path, mode: str) -> None:
    _needs_read_core()
    assert cli(["init"]) == 0
    answer: list[Answer] = [_accept_all]

    async def body(client: Client) -> None:
        saved = await _call(client, "engram_save", {
            "text": "Always run the smoke suite before tagging a release.", "type": "rule"})
        assert saved.is_error is False, _text(saved)
        assert _text(saved).startswith("approved in the dialog")
        loaded = await _call(client, "engram_load", {"query": "smoke suite before release"})
        assert loaded.structured_content["ok"] is True
        assert any("smoke" in key for key in loaded.structured_content["data"]["selected_keys"])
        index = await client.read_resource("engram://index")
        assert "smoke" in index.contents[0].text  # type: ignore[union-attr]
        verify = await _call(client, "engram_verify", {})
        assert verify.structured_content["ok"] is True, _text(verify)
        with pytest.raises(MCPError) as missing:
            await client.read_resource("engram://memory/no-such-memory")
        assert missing.value.error.code == (-32602 if mode == MODERN else -32002)

        answer[0] = _decline
        declined = await _call(client, "engram_save", {"text": "Prefer httpx over requests."})
        token = declined.structured_content["data"]["approval_token"]
        refused = await _call(client, "engram_commit", {"approval_token": token,
                                                        "approve": "all"})
        assert refused.is_error is True
        assert "approval was declined in the approval dialog" in _text(refused)

    _session(project, mode, answer, body)


def test_token_flow_and_note_without_dialog(project: Path) -> None:
    assert cli(["init"]) == 0

    async def body(client: Client) -> None:
        proposed = await _call(client, "engram_save_session", {
            "candidates": "TYPE: knowledge | TEXT: The staging database listens on port 6543.\n"
                          "TYPE: rule | TEXT: Never force-push to main."})
        data = proposed.structured_content["data"]
        assert "approval_token" in data and "approval_token" in _text(proposed)
        done = await _call(client, "engram_commit", {"approval_token": data["approval_token"],
                                                     "approve": [2]})
        assert done.is_error is False, _text(done)
        note = await _call(client, "engram_note", {"text": "The flaky test is test_upload."})
        token = note.structured_content["data"]["approval_token"]
        kept = await _call(client, "engram_commit", {"approval_token": token, "approve": "all"})
        assert {"id", "file", "valid_until"} <= set(kept.structured_content["data"]), _text(kept)
        status = await _call(client, "engram_status", {})
        assert "memories" in _text(status)

    _session(project, "legacy", [_decline], body, "--no-elicitation")
