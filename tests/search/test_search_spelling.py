"""A misspelt long word meets the stored word one edit away; short and known words stay."""

from __future__ import annotations

from pathlib import Path

import pytest

from engram.search.api import load
from engram.search.spelling import split
from engram.search.terms import one_edit
from engram.workspace import resolve
from tests.search.test_search_load import put


def test_one_edit_is_one_change_insertion_deletion_or_swap() -> None:
    assert one_edit("databs", "databas") and one_edit("databas", "databs")
    assert one_edit("kuberent", "kubernet") and one_edit("migrat", "migrab")
    assert not one_edit("migrat", "migrat") and not one_edit("migraton", "migrat")
    assert not one_edit("abcdef", "badcef")


def test_a_word_splits_only_into_stored_terms() -> None:
    known = {"getload", "histori", "list", "stop", "night", "get", "rate"}.__contains__
    assert split("getloadhistori", known) == ["getload", "histori"]
    assert split("liststop", known) == ["list", "stop"]
    assert split("getrate", known) == ["rate"]  # `get` is a stop word
    assert split("tonight", known) is None  # `to` is no stored term
    assert split("loadhistori", known) is None  # `load` is not stored here


@pytest.fixture
def ws(project: Path) -> Path:
    root = project / ".agents" / ".engram"
    root.mkdir(parents=True)
    for mid, mtype, body, title, tags in (
        ("add-a-database-migration", "skill", "- Generate the revision, review, apply.",
         "Add a database migration", ["database", "migrations"]),
        ("deploy-to-kubernetes", "skill", "- Helm upgrade from the release branch.",
         "Deploy to kubernetes", ["deploy"]),
        ("add-grpc-method", "skill", "- Add the rpc to the proto, e.g. GetLoad, then regen.",
         "Adding a gRPC method", ["grpc", "proto"]),
        ("load-history", "knowledge", "- Every state change of a load is kept in history.",
         "Load history table", ["loads", "history"]),
        ("night-shift", "knowledge", "- The night shift covers 22:00 to 06:00.",
         "Night shift", ["ops"]),
    ):
        put(root, mid, mtype, body, title=title, tags=tags)
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



def test_a_joined_identifier_is_read_as_the_stored_words_it_joins(ws: Path) -> None:
    # `GetLoadHistory` is no stored word; `getload` and `histori` are.
    out = load(resolve(), query="add a GetLoadHistory call")
    assert {"getload", "histori"} <= set(out.data["anchors"])
    assert "getloadhistori" not in out.data["anchors"]
    assert set(out.data["selected_keys"]) == {"workspace:add-grpc-method", "workspace:load-history"}


def test_an_unknown_word_is_not_cut_into_a_stored_word_and_a_leftover(ws: Path) -> None:
    # `tonight` ends with the stored `night`, but `to` is no stored word of three letters.
    out = load(resolve(), query="who covers tonight")
    assert "tonight" in out.data["anchors"] and "night" not in out.data["anchors"]
    assert out.data["selected_keys"] == []
