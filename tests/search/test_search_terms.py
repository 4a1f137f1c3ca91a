"""Query terms: stemming, stop words, generic memory words."""

from __future__ import annotations

from engram.search.terms import anchors, stem


def test_inflections_of_a_word_meet_at_one_stem() -> None:
    assert {stem(w) for w in ("test", "tests", "testing", "tested")} == {"test"}
    assert {stem(w) for w in ("deploy", "deploys", "deployment", "deploying")} == {"deploy"}
    assert {stem(w) for w in ("migrate", "migration", "migrations", "migrating")} == {"migrat"}


def test_the_stemmer_keeps_roots_a_suffix_stripper_broke() -> None:
    # The hand-written stripper made `speed` → `spe`, `line` → `lin`, `banner` → `ban`.
    assert [stem(w) for w in ("speed", "line", "banner", "banners")] == [
        "speed", "line", "banner", "banner"]
    assert stem("speed") != stem("spending") and stem("banner") != stem("ban")


def test_generic_memory_words_and_stop_words_never_anchor() -> None:
    assert anchors("what are the memory rules and skills for this task, agent?") == []
    assert anchors("engram knowledge") == []


def test_meaningful_words_anchor_once_in_query_order() -> None:
    assert anchors("Run the tests, then testing the release") == ["run", "test", "releas"]


def test_workflow_is_not_generic_so_it_can_route_skills() -> None:
    assert anchors("release workflow") == ["releas", "workflow"]


def test_numbers_and_short_codes_keep_their_form_single_characters_drop() -> None:
    assert anchors("python 3.11 on ci") == ["python", "11", "ci"]
