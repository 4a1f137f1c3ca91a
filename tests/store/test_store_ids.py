"""Ids: slugs, titles and validation everywhere an id is accepted."""

from __future__ import annotations

import pytest

from engram.errors import InvalidIdError
from engram.store.ids import (
    MAX_NEW_ID,
    id_from_title,
    is_valid_id,
    slugify,
    split_ids,
    title_from_text,
    unique_id,
    validate_id,
)


@pytest.mark.parametrize(
    "bad", ["../x", "a/b", "/etc/passwd", "", "   ", "a\\b", "x\x00y", "..", "раз", "ｅｔｃ", "-x"])
def test_unsafe_ids_are_refused(bad: str) -> None:
    with pytest.raises(InvalidIdError) as info:
        validate_id(bad)
    assert info.value.code == "id.invalid"
    assert info.value.hint


def test_slug_is_lower_case_and_bounded() -> None:
    assert slugify("Run the Smoke-suite, before TAGGING!") == "run-the-smoke-suite-before-tagging"
    long = slugify("word " * 40)
    assert len(long) <= 80 and not long.endswith("-")


def test_title_is_first_sentence_capitalised_and_cut_at_word() -> None:
    assert title_from_text("always run tests. Then tag.") == "Always run tests"
    t = title_from_text("x" * 5 + " " + "word " * 30)
    assert len(t) <= 70 and not t.endswith(" ")


def test_unique_id_adds_a_short_hash_on_collision() -> None:
    assert unique_id("a", set()) == "a"
    other = unique_id("a", {"a"})
    assert other.startswith("a-") and len(other) == 8


def test_split_ids_validates_each() -> None:
    assert split_ids("a, b") == ["a", "b"]
    with pytest.raises(InvalidIdError):
        split_ids("a,../b")


# New ids (issue 28 finding 3): a few content words, not the whole sentence.
@pytest.mark.parametrize(("title", "want"), [
    ("Run the smoke suite before tagging a release", "run-smoke-suite-before-tagging"),
    ("Never force push to the main branch", "never-force-push-main-branch"),
    ("Do not commit generated files", "not-commit-generated-files"),
    ("The staging database is rebuilt every night from the anonymised dump of production",
     "staging-database-rebuilt-every-night"),
])
def test_new_ids_are_a_few_content_words_with_negations_kept(title: str, want: str) -> None:
    assert id_from_title(title) == want


def test_a_new_id_stays_short_even_from_long_words() -> None:
    got = id_from_title("Supercalifragilistic internationalization considerations "
                        "notwithstanding, reconfigure everything")
    assert len(got) <= MAX_NEW_ID and got and is_valid_id(got)
