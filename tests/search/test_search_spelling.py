"""A misspelt long word meets the stored word one edit away; short and known words stay."""

from __future__ import annotations

from pathlib import Path

import pytest

from engram.search.api import load
from engram.search.terms import one_edit
from engram.workspace import resolve
from tests.search.test_search_load import put


def test_one_edit_is_one_change_insertion_deletion_or_swap() -> None:
    assert one_edit("databs", "databas") and one_edit("databas", "databs")
    assert one_edit("kuberent", "kubernet") and one_edit("migrat", "migrab")
    assert not one_edit("migrat", "migrat") and not one_edit("migraton", "migrat")
    assert not one_edit("abcdef", "badcef")


@pytest.fixture
def ws(project: Path) -> Path:
    root = project / ".agents" / ".engram"
    root.mkdir(parents=True)
    put(root, "add-a-database-migration", "skill", "- Generate the revision, review, apply.",
        title="Add a database migration", tags=["database", "migrations"])
    put(root, "deploy-to-kubernetes", "skill", "- Helm upgrade from the release branch.",
        title="Deploy to kubernetes", tags=["deploy"])
    return root


def test_a_misspelt_task_routes_the_memory_it_means(ws: Path) -> None:
    out = load(resolve(), query="how do i ad a databse migraton")
    assert out.data["selected_keys"] == ["workspace:add-a-database-migration"]
    assert "databas" in out.data["anchors"]
    out = load(resolve(), query="deploy to kuberentes")
    assert out.data["selected_keys"] == ["workspace:deploy-to-kubernetes"]


def test_short_unknown_words_are_not_respelt(ws: Path) -> None:
    # `datab` is one edit from `databa…` prefixes but too short to guess at.
    assert load(resolve(), query="datab migration").data["anchors"][0] == "datab"
