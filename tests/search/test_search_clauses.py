"""A task with two subjects: each clause routed on its own gets its best memory into the
pack's free slots, so the larger subject's cluster cannot crowd the other one out."""

from __future__ import annotations

from pathlib import Path

import pytest

from engram.search.api import load
from engram.search.terms import clauses
from engram.workspace import resolve
from tests.search.test_search_load import put

TASK = "bump the kotlin version and fix the flaky map screenshot test"


@pytest.mark.parametrize(("task", "parts"), [
    (TASK, ["bump the kotlin version", "fix the flaky map screenshot test"]),
    ("rotate the key, then redeploy quotes; page oncall",
     ["rotate the key", "redeploy quotes", "page oncall"]),
    ("read and write files", []),  # one clause of two task words: one subject
    ("release v1.2 notes", []),  # a dot inside a word splits nothing
    ("fix the flaky test", []),
])
def test_clauses_are_the_parts_with_two_task_words(task: str, parts: list[str]) -> None:
    assert clauses(task) == parts


def _store(root: Path) -> None:
    for mid, tags in (("kotlin-version", ["android", "kotlin", "gradle"]),
                      ("gradle-wrapper", ["android", "gradle", "kotlin"]),
                      ("compose-bom", ["android", "kotlin", "compose"]),
                      ("android-release", ["android", "release", "kotlin"])):
        put(root, mid, "knowledge", f"- Bump the kotlin version with {mid} in the version "
            "catalog; kotlin and gradle move together.", title=mid.replace("-", " "),
            tags=tags)
    put(root, "tile-idle-wait", "knowledge", "- The map screenshot test is flaky when tiles "
        "load late: wait for the idle callback first.", title="Waiting for tiles",
        tags=["maps"])


def test_the_second_subject_gets_a_free_slot(project: Path) -> None:
    root = project / ".agents" / ".engram"
    root.mkdir(parents=True)
    _store(root)
    out = load(resolve(), query=TASK, explain=True)
    keys = [k.split(":", 1)[1] for k in out.data["selected_keys"]]
    assert "kotlin-version" in keys and "tile-idle-wait" in keys, out.text
    assert "best for 'bump the kotlin version' on its own (free slot)" in out.text
    assert "kotlin-version: pruned" not in out.text  # it is in the pack


def test_one_subject_gets_no_clause_picks(project: Path) -> None:
    root = project / ".agents" / ".engram"
    root.mkdir(parents=True)
    _store(root)
    out = load(resolve(), query="bump the kotlin version", explain=True)
    keys = [k.split(":", 1)[1] for k in out.data["selected_keys"]]
    assert "tile-idle-wait" not in keys
    assert "on its own" not in out.text


def test_a_clause_pick_still_needs_a_task_word(project: Path) -> None:
    """Each clause's words are the task's words: a memory sharing none is never added."""
    root = project / ".agents" / ".engram"
    root.mkdir(parents=True)
    _store(root)
    put(root, "lunch-menu", "knowledge", "- Tacos on Tuesday.", title="Canteen",
        tags=["office"])
    out = load(resolve(), query=TASK)
    assert "workspace:lunch-menu" not in out.data["selected_keys"]
