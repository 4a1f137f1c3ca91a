"""Issue 16, write side, through `engram-mcp` over the real engine with the official SDK client:
an agent that can write the workspace tampers while a proposal waits for the human (legacy
elicitation and the 2026-07-28 `input_required` retry), or plants files the server would read.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from pathlib import Path

import mcp_types as types
import pytest
from mcp import Client

import tests.mcp_server.test_mcp_engine_flows as flows
from engram.cli.main import main as cli
from engram.workspace import resolve
from tests.hostile.test_trust_write import HAND, _drop, durable_texts, pending_path, reseal
from tests.mcp_server.mcp_harness import MODERN
from tests.mcp_server.test_mcp_engine_flows import _accept_all as _accept
from tests.mcp_server.test_mcp_engine_flows import _text

Answer = Callable[[types.ElicitRequestParams], types.ElicitResult]


def _session(project: Path, mode: str, answer: Answer,
             body: Callable[[Client], Awaitable[None]], *flags: str) -> None:
    flows._session(project, mode, [answer], body, *flags)


def _tamper_pending(project: Path) -> None:
    """Rewrite every open proposal's first candidate and recompute what the attacker can."""
    path = pending_path(resolve(workspace=project))
    data = json.loads(path.read_text())
    for entry in data["entries"].values():
        if entry.get("state") in {"pending", "claimed"}:
            entry["candidates"][0]["text"] = HAND
            reseal(entry)
    path.write_text(json.dumps(data))


@pytest.mark.parametrize("mode", ["legacy", MODERN])
def test_pending_entry_rewritten_while_the_dialog_is_open_is_refused(project: Path,
                                                                     mode: str) -> None:
    assert cli(["init"]) == 0

    def tamper_then_accept(params: types.ElicitRequestParams) -> types.ElicitResult:
        _tamper_pending(project)
        return _accept(params)

    async def body(client: Client) -> None:
        saved = await client.call_tool("engram_save", {
            "text": "Grafana dashboards live in the ops repository.", "type": "knowledge"})
        assert saved.is_error is True and "integrity.approval" in json.dumps(
            saved.structured_content), _text(saved)

    _session(project, mode, tamper_then_accept, body)
    assert HAND not in durable_texts(resolve(workspace=project))


def test_pending_entry_rewritten_before_engram_commit_is_refused(project: Path) -> None:
    assert cli(["init"]) == 0

    async def body(client: Client) -> None:
        proposed = await client.call_tool("engram_save", {
            "text": "Grafana dashboards live in the ops repository.", "type": "knowledge"})
        token = proposed.structured_content["data"]["approval_token"]
        _tamper_pending(project)
        done = await client.call_tool("engram_commit", {"approval_token": token,
                                                        "approve": "all"})
        assert done.is_error is True and "integrity.approval" in json.dumps(
            done.structured_content), _text(done)

    _session(project, "legacy", _accept, body, "--no-elicitation")
    assert HAND not in durable_texts(resolve(workspace=project))


@pytest.mark.parametrize("mode", ["legacy", MODERN])
def test_update_target_edited_while_the_dialog_is_open_is_not_approved(project: Path,
                                                                       mode: str) -> None:
    assert cli(["init"]) == 0
    assert cli(["save", "rule", "Run the smoke suite before tagging a release.", "--force"]) == 0
    roots = resolve(workspace=project)
    [target] = (roots.workspace.path / "rules").glob("*.md")

    def edit_then_accept(params: types.ElicitRequestParams) -> types.ElicitResult:
        target.write_text(target.read_text() + f"- {HAND}\n")
        return _accept(params)

    async def body(client: Client) -> None:
        saved = await client.call_tool("engram_save", {
            "text": f"UPDATE: {target.stem} | TEXT: Run the full smoke suite before tags.",
            "type": "rule"})
        assert "changed since the proposal" in _text(saved), _text(saved)
        verify = await client.call_tool("engram_verify", {})
        assert verify.structured_content["ok"] is False
        loaded = await client.call_tool("engram_load", {"query": "smoke suite release tag"})
        assert HAND not in _text(loaded)

    _session(project, mode, edit_then_accept, body)


@pytest.mark.parametrize("mode", ["legacy", MODERN])
def test_hand_dropped_working_file_never_reaches_the_agent(project: Path, mode: str) -> None:
    assert cli(["init"]) == 0
    roots = resolve(workspace=project)
    _drop(roots, "deploy-keys.md")
    _drop(roots, "rule-deploy-keys.md")

    async def body(client: Client) -> None:
        loaded = await client.call_tool("engram_load", {"query": "deploy keys chat"})
        assert HAND not in _text(loaded)
        by_id = await client.call_tool("engram_load", {"id": "rule-deploy-keys,deploy-keys"})
        assert HAND not in _text(by_id) and "SKIPPED" in _text(by_id)
        index = await client.read_resource("engram://index")
        assert HAND not in index.contents[0].text  # type: ignore[union-attr]

    _session(project, mode, _accept, body)
