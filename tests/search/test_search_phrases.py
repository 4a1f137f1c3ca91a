"""Neighbouring task words found side by side in a memory ("api key") rank it first among
memories that hold the same words apart; the phrase only reorders, it never admits."""

from __future__ import annotations

from pathlib import Path

from engram.search.api import load
from engram.search.terms import word_pairs
from engram.workspace import resolve
from tests.search.test_search_load import put


def test_word_pairs_are_neighbouring_anchors_as_the_index_stores_text() -> None:
    # Stop words drop out between neighbours, as they do in the index; generic words break
    # a pair (they are no anchors); a repeated pair counts once.
    assert word_pairs("rotate the API key, then the api key again") == [
        ("rotat", "api"), ("api", "key"), ("key", "api")]
    assert word_pairs("load the memory rules for deploys") == []
    assert word_pairs("deploy") == []


def test_a_memory_holding_the_task_words_side_by_side_ranks_first(project: Path) -> None:
    root = project / ".agents" / ".engram"
    root.mkdir(parents=True)
    # The same words in the same fields: BM25 ties them, and the tie goes to the id.
    put(root, "gateway-ash", "knowledge", "- The key for each api lives in the vault.",
        title="Gateway")
    put(root, "gateway-elm", "knowledge", "- Each api key lives in the vault.",
        title="Gateway")
    out = load(resolve(), query="where is the api key")
    assert out.data["selected_keys"] == ["workspace:gateway-elm", "workspace:gateway-ash"]
    out = load(resolve(), query="where is the key of the api")
    assert out.data["selected_keys"] == ["workspace:gateway-ash", "workspace:gateway-elm"]


def test_a_phrase_alone_admits_nothing(project: Path) -> None:
    root = project / ".agents" / ".engram"
    root.mkdir(parents=True)
    put(root, "vault-layout", "knowledge", "- Secrets live in the vault.", title="Vault")
    assert load(resolve(), query="api key").data["selected_keys"] == []
