"""A task that shares one word with the store, and nothing else it means, routes nothing."""

from __future__ import annotations

from pathlib import Path

import pytest

from engram.search.api import load
from engram.workspace import resolve
from tests.search.test_search_load import put


@pytest.fixture
def ws(project: Path) -> Path:
    root = project / ".agents" / ".engram"
    root.mkdir(parents=True)
    put(root, "position-pipeline", "knowledge",
        "- Each truck sends a GPS ping every 30 s; the writer batches pings into Timescale.",
        title="How truck positions reach the map", tags=["tracking", "gps"])
    put(root, "ping-gaps", "skill", "- When a truck vanishes from the map, check the ping lag "
        "dashboard first.", title="Debug a tracking gap", tags=["tracking"])
    put(root, "fuel-cards", "knowledge", "- Drivers pay diesel with the fleet card.",
        title="Fuel cards", tags=["finance"])
    # IDF means something only in a store of some size (evidence.EXPLAINED_STORE).
    subjects = ["invoice", "deploy", "schema", "alert", "login", "cache", "proto", "quote"]
    for i in range(48):
        word = subjects[i % len(subjects)]
        put(root, f"{word}-note-{i}", "knowledge", f"- The {word} truck fleet note number {i}.",
            title=f"{word.capitalize()} note {i}", tags=[word])
    return root


def _keys(task: str) -> list[str]:
    return list(load(resolve(), query=task).data["selected_keys"])


def test_a_task_sharing_only_a_common_word_routes_nothing(ws: Path) -> None:
    assert _keys("what's a good truck for towing a camper around the lakes") == []
    out = load(resolve(), query="what's a good truck for towing a camper around the lakes",
               explain=True)
    assert "off-topic query" in str(out.data["explain"])


def test_a_task_the_store_explains_still_routes(ws: Path) -> None:
    assert "workspace:ping-gaps" in _keys("a truck vanished from the tracking map")


def test_a_small_store_is_not_judged_by_word_rarity(tmp_path: Path, project: Path) -> None:
    root = project / ".agents" / ".engram"
    root.mkdir(parents=True)
    put(root, "flag-naming", "rule", "- Name every flag team.feature.", tags=["flags"])
    put(root, "flag-cleanup", "rule", "- Remove a flag once fully rolled out.", tags=["flags"])
    assert _keys("add a new flag") != []
