"""Evidence pruning: each rule on a small constructed pool, then end to end on tiny stores."""

from __future__ import annotations

from pathlib import Path

import pytest

from engram.search.api import load
from engram.search.evidence import prune
from engram.search.rank import Candidate
from engram.search.terms import stem, stems
from engram.workspace import resolve
from tests.search.test_search_load import put


def cand(mid: str, *, title: str = "", body: str = "", tags: tuple[str, ...] = (),
         anchors: tuple[str, ...] = ()) -> Candidate:
    """A reranked candidate whose matches are worked out from its title, tags and body."""
    strong = set(stems(f"{mid} {title} {' '.join(tags)}"))
    everything = strong | set(stems(body))
    c = Candidate(key=f"workspace:{mid}", id=mid, scope="workspace", type="knowledge",
                  bm25=1.0, tags=frozenset(tags))
    c.matched = [a for a in anchors if a in everything]
    c.strong = [a for a in c.matched if a in strong]
    return c


def kept(pool: list[Candidate], anchors: tuple[str, ...], df: dict[str, int],
         n: int = 100) -> list[str]:
    return [c.id for c in prune(pool, anchors, df, n).kept]


def test_a_query_mostly_unknown_to_the_store_with_only_body_mentions_routes_nothing() -> None:
    q = tuple(stem(w) for w in ("polish", "telescope", "lens", "vinegar"))
    pool = [cand("clean-the-build-cache", body="as sharp as a telescope", anchors=q)]
    out = prune(pool, q, {stem("telescope"): 1}, 100)
    assert out.kept == [] and "foreign query" in out.dropped[0][1]


def test_a_mostly_unknown_query_still_routes_a_memory_titled_with_its_known_word() -> None:
    q = tuple(stem(w) for w in ("polish", "telescope", "lens", "vinegar"))
    pool = [cand("telescope-maintenance", anchors=q)]
    assert kept(pool, q, {stem("telescope"): 1}) == ["telescope-maintenance"]


def test_a_candidate_with_under_a_third_of_the_best_evidence_is_dropped() -> None:
    q = ("rotat", "signing", "key", "weekly")
    df = {"rotat": 3, "signing": 2, "key": 30, "weekly": 20}
    best = cand("rotate-signing-keys", title="rotating signing keys weekly", anchors=q)
    passing = cand("team-lunch", body="the weekly lunch", tags=("social",), anchors=q)
    out = prune([best, passing], q, df, 100)
    assert [c.id for c in out.kept] == ["rotate-signing-keys"]
    assert out.dropped[0][0] == "workspace:team-lunch"
    assert out.dropped[0][1].startswith("weak evidence")


def test_body_only_matches_count_half_of_title_matches() -> None:
    q = ("rotat", "key")
    df = {"rotat": 5, "key": 5}
    best = cand("rotate-keys", anchors=q)
    # Same words, body only: exactly half the evidence, above a third, so it stays.
    mention = cand("key-ceremony-notes", title="ceremony notes", body="rotate each key",
                   tags=("keys",), anchors=q)
    assert kept([best, mention], q, df) == ["rotate-keys", "key-ceremony-notes"]


def test_an_off_topic_memory_goes_when_an_on_topic_one_covers_its_word_and_more() -> None:
    q = ("releas", "monday")
    df = {"releas": 10, "monday": 2}
    plants = cand("water-the-plants-on-mondays", tags=("facilities", "garden"), anchors=q)
    window = cand("release-windows", body="never on a monday", tags=("release", "calendar"),
                  anchors=q)
    cut = cand("cut-a-release", tags=("release", "calendar", "git"), anchors=q)
    out = prune([plants, window, cut], q, df, 100)
    assert [c.id for c in out.kept] == ["release-windows", "cut-a-release"]
    assert out.dropped[0][1].startswith("off topic: release-windows")


def test_an_off_topic_memory_stays_when_nothing_on_topic_covers_its_words() -> None:
    q = ("monday", "plant")
    df = {"monday": 2, "plant": 2}
    plants = cand("water-the-plants-on-mondays", tags=("facilities", "garden"), anchors=q)
    cut = cand("cut-a-release", body="on monday", tags=("release", "git"), anchors=q)
    assert "water-the-plants-on-mondays" in kept([plants, cut], q, df)


def test_sharing_a_topic_tag_with_an_on_topic_memory_keeps_a_weaker_match() -> None:
    q = ("remov", "toggl", "bulk")
    df = {"remov": 5, "toggl": 2, "bulk": 2}
    add = cand("add-a-toggle", title="remove toggle bulk", tags=("flags", "vendor"), anchors=q)
    cleanup = cand("remove-stale-flags", title="remove stale toggles",
                   tags=("flags", "cleanup", "debt"), anchors=q)
    assert kept([add, cleanup], q, df) == ["add-a-toggle", "remove-stale-flags"]


def test_sharing_only_a_query_word_tag_is_no_topic_link() -> None:
    q = ("ci", "pipelin", "stag")
    df = {"ci": 10, "pipelin": 2, "stag": 10}
    ci = cand("ci-pipeline", body="stages run in order", tags=("ci", "pipeline", "actions"),
              anchors=q)
    lint = cand("lint-in-ci", title="lint stage in ci", tags=("ci", "actions", "lint"),
                anchors=q)
    sales = cand("sales-pipeline-stages", tags=("sales", "pipeline", "crm", "vendor"),
                 anchors=q)
    assert kept([ci, sales, lint], q, df) == ["ci-pipeline", "lint-in-ci"]


def test_a_passing_body_mention_goes_when_another_memory_is_about_the_word() -> None:
    q = ("uptim",)
    df = {"uptim": 2}
    about = cand("uptime-targets", tags=("reliability", "uptime"), anchors=q)
    mention = cand("support-contracts", body="uptime is in the contract",
                   tags=("sales", "contracts"), anchors=q)
    out = prune([about, mention], q, df, 100)
    assert [c.id for c in out.kept] == ["uptime-targets"]
    assert out.dropped[0][1].startswith("passing mention")


@pytest.fixture
def ws(project: Path) -> Path:
    root = project / ".agents" / ".engram"
    root.mkdir(parents=True)
    return root


def fillers(ws: Path, n: int = 8) -> None:
    """Unrelated memories, so that BM25's IDF is positive in a tiny store."""
    for i, word in enumerate(("alpha", "bravo", "charlie", "delta", "echo", "foxtrot",
                              "golf", "hotel")[:n]):
        put(ws, f"{word}-notes", content=f"- Notes about {word} number {i}.", tags=[word])


def test_load_keeps_an_off_topic_homonym_out_of_the_pack(ws: Path) -> None:
    fillers(ws)
    put(ws, "release-windows", content="- Never release on a Monday morning.",
        tags=["release", "calendar"])
    put(ws, "cut-a-release", content="- Tag, build and publish the release.",
        tags=["release", "calendar", "git"])
    put(ws, "water-the-plants-on-mondays", content="- Monday: water the office plants.",
        tags=["facilities", "garden"])
    out = load(resolve(), query="can we release on monday")
    ids = [k.split(":", 1)[1] for k in out.data["selected_keys"]]
    assert ids == ["release-windows", "cut-a-release"]


def test_load_routes_nothing_for_a_task_from_another_world_and_explain_says_why(
        ws: Path) -> None:
    fillers(ws)
    put(ws, "set-up-the-dev-box", content="- Install the tools; we recommend the make targets.",
        tags=["setup"])
    out = load(resolve(), query="recommend a fantasy saga audiobook", explain=True)
    assert out.ok and out.data["selected_keys"] == []
    reasons = {o["key"]: o["reason"] for o in out.data["explain"]["omitted"]}
    assert reasons["workspace:set-up-the-dev-box"].startswith("pruned: foreign query")
    assert load(resolve(), query="set up the dev box").data["selected_keys"] == [
        "workspace:set-up-the-dev-box"]
