"""Issue 16 review variants through `engram-mcp` with the official SDK client: the git-ignored
index rewritten by an agent never puts text in engram_route, engram_search, engram_load or the
resources (both eras)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from mcp import Client

from engram.cli.main import main as cli
from engram.workspace import resolve
from tests.hostile.test_trust_review import POISON, poison_index
from tests.mcp_server.mcp_harness import MODERN
from tests.mcp_server.test_mcp_engine_flows import _accept_all as _accept
from tests.mcp_server.test_mcp_engine_flows import _session, _text

RULES = ("Run the smoke suite before tagging a release.",
         "Smoke dashboards for the release live in Grafana.")


@pytest.mark.parametrize("mode", ["legacy", MODERN])
def test_rewritten_index_rows_never_reach_the_agent(project: Path, mode: str) -> None:
    assert cli(["init"]) == 0
    for text in RULES:
        assert cli(["save", "rule", text, "--force"]) == 0
    roots = resolve(workspace=project)
    (roots.workspace.path / "rules" / "broken.md").write_text("no frontmatter\n")
    assert cli(["load", "smoke suite release"]) == 0
    poison_index(roots)

    async def body(client: Client) -> None:
        for name, args in (("engram_route", {"task": "smoke suite release"}),
                           ("engram_search", {"query": "smoke"}),
                           ("engram_load", {"query": "smoke suite release"}),
                           ("engram_status", {})):
            result = await client.call_tool(name, args)
            seen = _text(result) + json.dumps(result.structured_content)
            assert POISON not in seen, name
        listed = await client.list_resources()
        assert POISON not in json.dumps([r.model_dump() for r in listed.resources])
        index = await client.read_resource("engram://index")
        assert POISON not in index.contents[0].text  # type: ignore[union-attr]

    _session(project, mode, [_accept], body)
