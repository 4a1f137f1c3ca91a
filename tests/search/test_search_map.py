"""The map after the pack (docs/reading.md "The map"): further memories by id and title, inside
the budget, apart in `data.map_ids`, never on a task that routed nothing; a listed id fetches.

Through the real CLI (in process and as a subprocess) and the real MCP server with the official
SDK client."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters

from engram.outcome import estimate_tokens
from engram.search.api import load, route
from engram.search.pack import MAP_FETCH, MAP_HEAD, add_map, render_tiered
from engram.workspace import resolve
from tests.conftest import engram_cmd, subprocess_env
from tests.helpers import run_json
from tests.mcp_server.mcp_harness import FAKE_SERVER, MODERN, checked_call, server_env
from tests.search.conftest import mem
from tests.search.test_search_load import put

# Twelve memories on one subject: the pack holds 8 (load.limit), the map lists the rest.
RELEASE = [f"release-step-{n:02d}" for n in range(12)]


def _release_store(ws: Path, body_words: int = 8) -> None:
    filler = " ".join(["release"] * body_words)
    for n, mid in enumerate(RELEASE):
        put(ws, mid, "skill", f"- Step {n} of the release: tag, changelog, smoke. {filler}",
            title=f"Release step {n}", tags=["release"])


@pytest.fixture
def ws(project: Path) -> Path:
    root = project / ".agents" / ".engram"
    root.mkdir(parents=True)
    return root


def _ids(keys: list[str]) -> list[str]:
    return [k.split(":", 1)[1] for k in keys]


def test_the_map_lists_what_the_pack_does_not_hold_apart_from_its_keys(ws: Path,
                                                                       capsys: Any) -> None:
    _release_store(ws)
    code, env = run_json("load", "cut the release", capsys=capsys)
    assert code == 0
    data, text = env["data"], env["text"]
    pack, listed = _ids(data["selected_keys"]), _ids(data["map_ids"])
    assert len(pack) == 8 and len(listed) == 4
    assert sorted(pack + listed) == sorted(RELEASE)  # every one shown, each once
    assert all(k.startswith("workspace:") for k in data["map_ids"])  # keys, as selected_keys
    assert not set(data["map_ids"]) & set(data["selected_keys"] + data["body_keys"])
    # The text ends with the map: heading, one `- id: title` line each, in map order, the fetch
    assert text.rstrip("\n").endswith(MAP_FETCH)
    tail = text[text.index(MAP_HEAD):].splitlines()
    assert tail[1:-1] == [f"- {mid}: Release step {int(mid[-2:])}" for mid in listed]
    assert data["tokens"] == estimate_tokens(text) <= 1600


def test_a_task_that_routes_nothing_gets_no_map(ws: Path, capsys: Any) -> None:
    _release_store(ws)
    code, env = run_json("load", "recommend a sci-fi novel", capsys=capsys)
    assert code == 0 and env["data"]["selected_keys"] == [] and env["data"]["map_ids"] == []
    assert MAP_HEAD not in env["text"] and env["text"].startswith("engram: no memories routed")


def test_a_small_budget_lists_fewer_lines_and_never_cuts_a_body(
        ws: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _release_store(ws, body_words=60)
    roots = resolve()
    wide = load(roots, query="cut the release", budget_tokens=4000)
    assert len(wide.data["map_ids"]) == 4
    packs = {b: load(roots, query="cut the release", budget_tokens=b).data
             for b in (500, 700, 900, 1100)}
    monkeypatch.setattr("engram.search.api.map_memories", lambda *a: iter(()))
    squeezed = 0
    for budget, data in packs.items():
        assert data["tokens"] <= budget
        squeezed += len(data["map_ids"]) < 4
        # the pack is what it is without a map: same bodies, cards and omitted ids
        plain = load(roots, query="cut the release", budget_tokens=budget).data
        assert plain["map_ids"] == []
        assert [data[k] for k in ("body_keys", "card_ids", "omitted_ids")] == [
            plain[k] for k in ("body_keys", "card_ids", "omitted_ids")]
    assert squeezed >= 2, packs


def test_add_map_keeps_the_pack_and_fits_the_room() -> None:
    ms = [mem(f"m{i}", title=f"Memory {i}") for i in range(6)]
    extra = [mem("x-long", title="L" * 90), mem("y", title="Short")]
    pack = render_tiered(ms, budget=200)
    before = (pack.text, list(pack.body_keys), list(pack.card_ids), list(pack.omitted_ids))
    room = len(pack.text) + len(MAP_HEAD) + len(MAP_FETCH) + 16
    add_map(pack, extra, room=room)
    assert pack.text.startswith(before[0].rstrip("\n"))
    assert (list(pack.body_keys), list(pack.card_ids), list(pack.omitted_ids)) == before[1:]
    assert pack.map_keys == ["workspace:y"]  # the long line is passed over, the short one fits
    assert len(pack.text) <= room
    none = render_tiered(ms, budget=200)
    add_map(none, extra, room=len(none.text))  # no room: nothing is read or added
    assert none.map_keys == [] and MAP_HEAD not in none.text


def test_hidden_memories_never_reach_the_map(ws: Path) -> None:
    _release_store(ws)
    put(ws, "release-old-way", "skill", "- The old release way.", tags=["release"],
        lifecycle="superseded")
    put(ws, "release-guess", "skill", "- A release guess.", tags=["release"], confidence="low")
    put(ws, "release-mobile", "skill", "- Release the apps.", tags=["release"], role=["mobile"])
    out = load(resolve(), query="cut the release")
    shown = _ids(out.data["selected_keys"] + out.data["map_ids"])
    assert not {"release-old-way", "release-guess", "release-mobile"} & set(shown)


def test_the_reader_s_context_is_left_out_of_the_map(ws: Path) -> None:
    _release_store(ws)
    roots = resolve()
    first = load(roots, query="cut the release")
    known = first.data["map_ids"][:2]
    out = load(roots, query="cut the release", in_context=known)
    assert not set(known) & set(out.data["map_ids"])


def test_full_id_and_route_keep_their_meaning(ws: Path) -> None:
    _release_store(ws)
    roots = resolve()
    assert load(roots, query="cut the release", full=True).data["map_ids"] == []
    dry = load(roots, query="cut the release", dry_run=True)
    assert len(dry.data["map_ids"]) == 4 and "map (listed after the pack" in dry.text
    by_id = load(roots, ids=RELEASE[0])
    assert "map_ids" not in by_id.data and MAP_HEAD not in by_id.text
    routed = route(roots, "cut the release")
    assert MAP_HEAD not in routed.text and "map_ids" not in routed.data


def test_a_map_id_fetches_its_body_through_the_cli(ws: Path, project: Path) -> None:
    _release_store(ws)
    run = [*engram_cmd(), "load", "--json"]
    env = subprocess_env()
    first = json.loads(subprocess.run([*run, "cut the release"], cwd=project, env=env,
                                      capture_output=True, text=True, check=True).stdout)
    pick = _ids(first["data"]["map_ids"])[-1]
    got = subprocess.run([*run, "--id", pick], cwd=project, env=env, capture_output=True,
                         text=True, check=True)
    fetched = json.loads(got.stdout)
    assert fetched["data"]["body_keys"] == [f"workspace:{pick}"]
    assert f"id: {pick}" in fetched["text"] and f"Step {int(pick[-2:])} of the release" in \
        fetched["text"]


@pytest.mark.parametrize("mode", ["legacy", MODERN])
def test_mcp_carries_the_map_and_a_map_id_fetches_through_the_sdk_client(
        ws: Path, project: Path, mode: str) -> None:
    _release_store(ws)

    async def main() -> None:
        params = StdioServerParameters(
            command=sys.executable, env=server_env(), cwd=str(project),
            args=[str(FAKE_SERVER), "--real-core", "--workspace", str(project),
                  "--no-elicitation"])
        async with Client(params, mode=mode) as client:
            loaded = await checked_call(client, "engram_load", {"query": "cut the release"})
            sc = loaded.structured_content
            data = sc["data"]
            assert len(data["map_ids"]) == 4
            assert not set(data["map_ids"]) & set(data["selected_keys"])
            block = loaded.content[0]
            assert isinstance(block, types.TextContent) and MAP_HEAD in block.text
            as_sent = json.dumps(sc, ensure_ascii=False, separators=(",", ":"))
            assert estimate_tokens(as_sent) <= 1600  # the map is inside the envelope's budget
            pick = _ids(data["map_ids"])[0]
            line = next(ln for ln in block.text.splitlines() if ln.startswith(f"- {pick}: "))
            assert line == f"- {pick}: Release step {int(pick[-2:])}"
            fetched = await checked_call(client, "engram_load", {"id": pick})
            body = fetched.content[0]
            assert isinstance(body, types.TextContent)
            assert f"Step {int(pick[-2:])} of the release" in body.text
            assert fetched.structured_content["data"]["body_keys"] == [f"workspace:{pick}"]

    anyio.run(main)


@pytest.mark.parametrize("event", ["UserPromptSubmit", "SessionStart"])
def test_the_claude_hook_output_ends_with_the_map(ws: Path, project: Path, event: str) -> None:
    _release_store(ws)
    payload: dict[str, Any] = {"hook_event_name": event, "session_id": f"map-{event}",
                               "cwd": str(project)}
    payload.update({"prompt": "cut the release"} if event == "UserPromptSubmit"
                   else {"source": "startup"})
    got = subprocess.run([*engram_cmd(), "agent-hook", "--host", "claude"], cwd=project,
                         env=subprocess_env(ENGRAM_SESSION_OBJECTIVE="cut the release"),
                         input=json.dumps(payload), capture_output=True, text=True, check=True)
    context = json.loads(got.stdout)["hookSpecificOutput"]["additionalContext"]
    tail = context[context.index(MAP_HEAD):].splitlines()
    assert len(tail) == 6 and tail[-1] == MAP_FETCH
    assert all(ln.startswith("- release-step-") for ln in tail[1:-1])
