"""Task classification for route."""

from __future__ import annotations

from engram.search.classify import classify


def test_a_clear_bug_report_is_a_confident_bugfix() -> None:
    c = classify("fix the crash when the parser fails on empty input")
    assert (c.task_type, c.confidence) == ("bugfix", "high")


def test_one_cue_gives_medium_confidence() -> None:
    assert classify("update the readme").task_type == "docs"
    assert classify("update the readme").confidence == "medium"


def test_no_cue_is_other_with_low_confidence() -> None:
    c = classify("look at the thing")
    assert (c.task_type, c.confidence) == ("other", "low")
