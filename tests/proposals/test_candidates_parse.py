"""Candidate parsing (§7.1): pipe form, plain text with type inference, limits and clear errors."""

from __future__ import annotations

import pytest

from engram.errors import InvalidIdError, UsageError
from engram.proposals.candidates import Candidate, infer_type, parse_candidates

FULL = ("TYPE: rule | TEXT: Always run tests before release. | CONTEXT: a bad tag shipped | "
        "DEPENDS_ON: ci-setup, test-layout | LEVEL: advanced | UPDATE: release-rules | "
        "ROLE: Backend | TRIGGERS: release, tag | TAGS: Release | CONFIDENCE: medium | "
        "LIGHT: Try to run tests. | BALANCED: Run tests before release. | "
        "STRICT: Never release without green tests.")


def test_pipe_form_reads_every_field() -> None:
    [c] = parse_candidates(FULL)
    assert c.number == 1 and c.type == "rule"
    assert c.text == "Always run tests before release."
    assert c.context == "a bad tag shipped"
    assert c.depends_on == ("ci-setup", "test-layout")
    assert c.level == "advanced" and c.update == "release-rules" and c.supersedes is None
    assert c.role == ("backend",) and c.triggers == ("release", "tag") and c.tags == ("release",)
    assert c.confidence == "medium"
    assert c.variants == {"light": "Try to run tests.", "balanced": "Run tests before release.",
                          "strict": "Never release without green tests."}


def test_candidates_are_numbered_from_one_one_per_line() -> None:
    text = "TYPE: rule | TEXT: Use pnpm.\n\nTYPE: knowledge | TEXT: The API runs on 8080.\n"
    got = parse_candidates(text)
    assert [(c.number, c.type) for c in got] == [(1, "rule"), (2, "knowledge")]


def test_pipes_inside_text_are_kept_when_no_field_follows() -> None:
    [c] = parse_candidates("TEXT: Pipe output with `a | b` in scripts | TYPE: skill")
    assert c.text == "Pipe output with `a | b` in scripts" and c.type == "skill"


def test_round_trip_through_dict_keeps_the_candidate() -> None:
    [c] = parse_candidates(FULL)
    assert Candidate.from_dict(c.to_dict()) == c


@pytest.mark.parametrize(("text", "expected"), [
    ("Always run the smoke suite before tagging.", "rule"),
    ("Never commit generated files.", "rule"),
    ("Use pnpm instead of npm in this repo.", "rule"),
    ("To release: first bump the version, then tag, then push the tag.", "skill"),
    ("1. build the image 2. push it 3. restart the service", "skill"),
    ("The API server listens on port 8080 in development.", "knowledge"),
    ("We decided to keep Postgres 15 for the reporting database.", "knowledge"),
])
def test_plain_text_type_is_inferred(text: str, expected: str) -> None:
    assert infer_type(text) == expected
    assert parse_candidates(text, single=True)[0].type == expected


def test_single_mode_keeps_multiline_plain_text_as_one_candidate() -> None:
    got = parse_candidates("First line of a fact.\nSecond line of it.", single=True)
    assert len(got) == 1 and "Second line" in got[0].text


def test_dict_input_from_mcp_is_accepted() -> None:
    [c] = parse_candidates([{"text": "Prefer small PRs.", "type": "preference",
                             "depends_on": ["review-flow"]}])
    assert c.type == "rule" and c.depends_on == ("review-flow",)


def test_more_than_eight_candidates_is_refused() -> None:
    text = "\n".join(f"TYPE: knowledge | TEXT: Fact number {i}." for i in range(9))
    with pytest.raises(UsageError) as err:
        parse_candidates(text)
    assert err.value.code == "candidate.limit"


@pytest.mark.parametrize(("text", "code"), [
    ("", "candidate.empty"),
    ("TYPE: rule | TEXT:   ", "candidate.empty"),
    ("TYPE: opinion | TEXT: Tabs are nice.", "candidate.type"),
    ("TYPE: rule | TEXT: Use tabs. | COLOR: blue", "candidate.field"),
    ("TYPE: rule | TEXT: Use tabs. | LEVEL: expert", "candidate.value"),
    ("TYPE: rule | TEXT: Use tabs. | CONFIDENCE: sure", "candidate.value"),
    ("TYPE: knowledge | TEXT: Tabs. | STRICT: Always tabs.", "candidate.value"),
    ("TYPE: rule | TEXT: Tabs. | UPDATE: a | SUPERSEDES: b", "candidate.value"),
    ("TYPE: rule | TEXT: Tabs. | TEXT: Spaces.", "candidate.field"),
])
def test_bad_candidates_fail_with_a_named_code(text: str, code: str) -> None:
    with pytest.raises(UsageError) as err:
        parse_candidates(text)
    assert err.value.code == code
    assert err.value.hint


def test_ids_in_fields_are_validated() -> None:
    with pytest.raises(InvalidIdError):
        parse_candidates("TYPE: rule | TEXT: Tabs. | DEPENDS_ON: ../etc/passwd")
