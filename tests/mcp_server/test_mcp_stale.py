"""Staleness through `engram-mcp`: what the model gets from engram_load and engram_status when a
memory's anchored file was renamed, in both protocol eras."""

from __future__ import annotations

from pathlib import Path

import pytest
from mcp import Client

from tests.anchors.conftest import Repo
from tests.helpers import write_memory
from tests.mcp_server.mcp_harness import MODERN
from tests.mcp_server.test_mcp_engine_flows import _call, _decline, _session, _text


@pytest.mark.parametrize("mode", ["legacy", MODERN])
def test_engram_load_and_status_report_a_moved_anchor(project: Path, mode: str) -> None:
    repo = Repo(project)
    repo.git("init", "-q", "-b", "main")
    (project / ".git" / "info" / "exclude").write_text(".agents/\n")
    repo.write("infra/alerts.yaml", "groups: []\n")
    sha0 = repo.commit("initial", "2026-07-01")
    write_memory(project / ".agents" / ".engram", "alerts-home", "knowledge",
                 "- Worker alerts live in `infra/alerts.yaml`.", tags=["alerts"],
                 last_confirmed="2026-08-01")
    repo.mv("infra/alerts.yaml", "ops/alerts.yaml")
    sha = repo.commit("move alerts", "2026-10-02")
    assert sha != sha0

    async def body(client: Client) -> None:
        loaded = await _call(client, "engram_load", {"query": "where do worker alerts live"})
        line = (f"`infra/alerts.yaml` was renamed to `ops/alerts.yaml` in {sha[:7]}, "
                "2026-10-02")
        assert line in _text(loaded)
        assert line in loaded.structured_content["data"]["stale"]["alerts-home"]
        status = await _call(client, "engram_status", {})
        assert status.structured_content["data"]["stale"]["moved"] == 1
        assert "stale: 1 moved" in _text(status)

    _session(project, mode, [_decline], body, "--no-elicitation")
