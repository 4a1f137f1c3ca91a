"""The active roles are low-weight context: they reorder what the task's words found."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from engram.search.api import load
from engram.workspace import resolve
from tests.search.test_search_load import put


@pytest.fixture
def ws(project: Path) -> Path:
    root = project / ".agents" / ".engram"
    root.mkdir(parents=True)
    put(root, "flag-naming", "rule", "- Name every flag team.feature.flag, lower case.",
        title="Flag names", tags=["flags", "naming"])
    put(root, "flags-in-mobile", "rule", "- Apps read a flag once at launch.",
        title="Reading toggles in the apps", tags=["launchdarkly"], role=["mobile"])
    put(root, "flags-in-console", "rule", "- The console reads a flag on every request.",
        title="Reading toggles in the console", tags=["launchdarkly"], role=["web"])
    put(root, "release-train", "knowledge", "- The apps ship every Tuesday.",
        title="Weekly train", tags=["release"], role=["mobile"])
    return root


def _route(ws: Path, roles: list[str], task: str) -> list[str]:
    (ws / "engram.config.json").write_text(json.dumps({"roles": roles}), encoding="utf-8")
    return [k.split(":", 1)[1] for k in load(resolve(), query=task).data["selected_keys"]]


def test_the_active_roles_standing_rule_ranks_first(ws: Path) -> None:
    assert _route(ws, ["mobile"], "add a new flag")[0] == "flags-in-mobile"
    assert _route(ws, ["web"], "add a new flag")[0] == "flags-in-console"


def test_a_role_memory_that_matches_no_task_word_is_not_routed(ws: Path) -> None:
    pack = _route(ws, ["mobile"], "add a new flag")
    assert "release-train" not in pack
    assert _route(ws, ["mobile"], "what is the airspeed of a swallow") == []


@pytest.mark.parametrize("ignore", [[], ["nothing-matches-*"]])
def test_matching_counts_only_the_tasks_words(ws: Path, ignore: list[str]) -> None:
    # With ignore patterns the count takes another SQL path (visibility joined per match).
    (ws / "engram.config.json").write_text(
        json.dumps({"roles": ["mobile"], "ignore": {"patterns": ignore}}), encoding="utf-8")
    out = load(resolve(), query="add a flag")
    assert out.data["matched"] == 2  # flag-naming and flags-in-mobile, not the release train
