"""What the model receives from each tool, through the real server and the official SDK client.

Claude Code, Codex and VS Code hand the model only `JSON.stringify(structuredContent)`; Gemini
CLI and OpenCode only `content[0].text`. Both forms must carry the memory bodies, the save
preview with its guidance, the search hits, the route entries and an error's fix, and the
default pack must stay within its 1,600-token budget in either form, as received.
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
from mcp.client.stdio import StdioServerParameters

from engram.cli.main import main as cli
from engram.outcome import estimate_tokens
from tests.helpers import write_memory
from tests.mcp_server.mcp_harness import FAKE_SERVER, MODERN, checked_call, server_env

pytest.importorskip("engram.search.api")

MODES = ["legacy", "auto", MODERN]
DEFAULT_BUDGET = 1600
SMOKE = "Always run the smoke suite before tagging a release."


def received(result: types.CallToolResult) -> tuple[str, str]:
    """(what a structuredContent host sends: JSON.stringify of it, what a text host sends)."""
    block = result.content[0]
    assert isinstance(block, types.TextContent)
    structured = json.dumps(result.structured_content, ensure_ascii=False, separators=(",", ":"))
    return structured, block.text


def _session(project: Path, mode: str, body: Callable[[Client], Awaitable[None]]) -> None:
    async def main() -> None:
        params = StdioServerParameters(
            command=sys.executable, env=server_env(), cwd=str(project),
            args=[str(FAKE_SERVER), "--real-core", "--workspace", str(project),
                  "--no-elicitation"])
        async with Client(params, mode=mode) as client:
            await body(client)

    anyio.run(main)


async def _call(client: Client, name: str, args: dict[str, Any]) -> types.CallToolResult:
    result = await checked_call(client, name, args)
    _structured, text = received(result)
    assert list(result.structured_content)[0] == "text"  # read first by the model
    assert result.structured_content["text"] == text
    return result


def _write(project: Path, memories: list[tuple[str, str, list[str], str]]) -> None:
    for mid, mtype, tags, content in memories:
        write_memory(project / ".agents" / ".engram", mid, mtype, content, tags=tags)


@pytest.mark.parametrize("mode", MODES)
def test_every_forwarding_style_receives_bodies_preview_hits_entries_and_fixes(
        project: Path, mode: str) -> None:
    assert cli(["init"]) == 0
    _write(project, [
        ("always-run-the-smoke-suite", "rule", ["release", "smoke"],
         f"{SMOKE}\nThe suite lives in `scripts/smoke.sh` and takes \"about 4 minutes\"."),
        ("billing-owns-invoice-numbers", "knowledge", ["billing"],
         "Billing owns invoice numbering; the API only forwards requests."),
    ])

    async def body(client: Client) -> None:
        loaded = await _call(client, "engram_load", {"query": "tag the release, smoke suite"})
        for form in received(loaded):
            assert SMOKE in form and "scripts/smoke.sh" in form
        assert '\\"about 4 minutes\\"' in received(loaded)[0]  # the body, JSON-escaped

        saved = await _call(client, "engram_save",
                            {"text": "Prefer httpx over requests for new HTTP clients."})
        for form in received(saved):
            assert "Prefer httpx over requests for new HTTP clients." in form
            assert "Show these exact candidates to the human" in form
            assert "Never call engram_commit before the human approved them" in form
            assert saved.structured_content["data"]["approval_token"] in form
        # Once per form: the preview shows it, `data.items` does not repeat it.
        assert received(saved)[0].count("Prefer httpx over requests for new HTTP clients.") == 1

        hits = await _call(client, "engram_search", {"query": "invoice numbering"})
        for form in received(hits):
            assert "billing-owns-invoice-numbers" in form
            assert "Billing owns invoice numbering" in form  # the hit's text, not its id only

        for key in ("task", "query"):  # `query` as agents of the TypeScript tool call it
            routed = await _call(client, "engram_route", {key: "tag the smoke release"})
            assert routed.is_error is False
            for form in received(routed):
                assert "always-run-the-smoke-suite (rule, workspace)" in form

        refused = await _call(client, "engram_commit",
                              {"approval_token": "forged-token", "approve": "all"})
        assert refused.is_error is True
        for form in received(refused):
            assert "unknown approval token" in form
            assert "fix: " in form and "propose the candidates again" in form

        bad = await _call(client, "engram_route", {})
        assert bad.is_error is True
        for form in received(bad):
            assert "invalid argument `task`" in form and "fix: " in form

    _session(project, mode, body)


def _hostile_store(project: Path, n: int = 14) -> None:
    """Long bodies full of what JSON escapes: quotes, backslashes, newlines, tabs."""
    memories = []
    for i in range(n):
        lines = [f"Release step {i}: quote \"every\" path like C:\\builds\\r{i}\\out exactly."]
        lines += [f"- \"step\" {j}\tuses `make release V=\"{i}.{j}\"` and \\\\share\\drop{j}"
                  for j in range(12)]
        memories.append((f"release-step-{i:02d}", "rule" if i % 2 else "skill",
                         ["release", "checklist"], "\n".join(lines)))
    _write(project, memories)


@pytest.mark.parametrize("mode", MODES)
def test_default_pack_stays_within_budget_as_each_host_receives_it(
        project: Path, mode: str) -> None:
    assert cli(["init"]) == 0
    _hostile_store(project)

    async def body(client: Client) -> None:
        loaded = await _call(client, "engram_load", {"query": "release checklist"})
        data = loaded.structured_content["data"]
        structured, text = received(loaded)
        assert estimate_tokens(structured) <= DEFAULT_BUDGET, estimate_tokens(structured)
        assert estimate_tokens(text) <= DEFAULT_BUDGET
        assert data["tokens"] == estimate_tokens(text)
        assert data["body_keys"], "the budget still holds bodies"
        # The budget is used, not squandered: within one body of the limit.
        assert estimate_tokens(structured) > DEFAULT_BUDGET - 400
        small = await _call(client, "engram_load", {"query": "release checklist",
                                                    "budget_tokens": 600})
        assert estimate_tokens(received(small)[0]) <= 600

    _session(project, mode, body)


def test_verify_shows_the_model_problems_not_every_ok_file(project: Path) -> None:
    assert cli(["init"]) == 0
    _hostile_store(project, n=30)
    root = project / ".agents" / ".engram"
    edited = root / "skills" / "release-step-00.md"
    edited.write_text(edited.read_text() + "\nhand edit\n")

    async def body(client: Client) -> None:
        verify = await _call(client, "engram_verify", {})
        data = verify.structured_content["data"]
        assert data["checked"] == 30 and data["problems"] == 1
        assert [f["file"] for f in data["files"]] == ["skills/release-step-00.md"]
        structured, text = received(verify)
        assert "MISMATCH" in text and "release-step-01" not in structured
        assert estimate_tokens(structured) < 150

    _session(project, "legacy", body)


def test_cli_json_carries_the_text_it_prints_without_json(
        project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli(["init"]) == 0
    _write(project, [("always-run-the-smoke-suite", "rule", ["release", "smoke"], SMOKE)])
    capsys.readouterr()
    assert cli(["load", "tag the smoke release"]) == 0
    plain = capsys.readouterr().out
    assert cli(["load", "tag the smoke release", "--json"]) == 0
    envelope = json.loads(capsys.readouterr().out)
    assert list(envelope)[0] == "text" and SMOKE in envelope["text"]
    assert envelope["text"].rstrip("\n") == plain.rstrip("\n")
