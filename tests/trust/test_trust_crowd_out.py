"""Attack: crowd approved memories out of every pack. Routing ranked index rows and only then
read files through the guard, so an unapproved file still took one of the `load.limit` places
(as a SKIPPED line) and its score pushed approved memories under the evidence cut. Twenty files
repeating the task's words — dropped into git-ignored `working/`, which no review shows — and
the approved rules were gone from `load`, the hooks, `engram_load`, `route` and `search`.
Files nobody approved now take no place: every approved memory that routes without them routes
with them, and the planted files are still named in SKIPPED lines."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.helpers import memory_text, write_memory
from tests.trust.trust_doors import ERAS, Door, cli, hook, mcp_session

TASK = "run the smoke suite before tagging a release"
APPROVED = {
    "smoke-before-tag": ("rule", "Run the smoke suite before tagging a release."),
    "cut-a-release": ("skill", "To cut a release: run the smoke suite, tag, push the tag."),
    "smoke-suite-home": ("knowledge", "The smoke suite lives in scripts/smoke.sh and takes four "
                                      "minutes before a release."),
}
FLOOD = "Run the smoke suite before tagging a release. " * 3


@pytest.fixture
def ws(layout: Path) -> Path:
    for mid, (mtype, text) in APPROVED.items():
        write_memory(layout, mid, mtype, f"- {text}", tags=["smoke", "release"])
    return layout


def _flood(ws: Path, folder: str) -> None:
    for i in range(20):
        (ws / folder / f"smoke-{i}.md").write_text(memory_text(
            f"smoke-suite-release-{i}", "rule", f"- {FLOOD}", tags=["smoke", "release", "tag"]))


def _all_approved_in(text: str) -> bool:
    return all(mid in text for mid in APPROVED)


@pytest.mark.parametrize("folder", ["working", "rules"])
def test_unapproved_files_never_crowd_approved_memories_out(
        ws: Path, capsys: pytest.CaptureFixture[str], folder: str) -> None:
    before = cli(capsys, "load", TASK)[1]
    assert _all_approved_in(before), before
    _flood(ws, folder)
    for args in (("load", TASK), ("route", TASK), ("search", "smoke suite release"),
                 ("load", TASK, "--json")):
        code, out = cli(capsys, *args)
        assert _all_approved_in(out), (args, out)
    out = cli(capsys, "load", TASK)[1]
    assert "SKIPPED" in out, out  # still named for the human
    assert _all_approved_in(hook(ws.parent.parent, TASK))


@pytest.mark.parametrize("era", ERAS)
def test_unapproved_files_never_crowd_out_through_mcp(ws: Path, era: str) -> None:
    _flood(ws, "working")

    async def body(door: Door) -> None:
        for text in (await door.tool("engram_load", {"query": TASK}),
                     await door.tool("engram_route", {"task": TASK}),
                     await door.tool("engram_search", {"query": "smoke suite release"})):
            assert _all_approved_in(text), text

    mcp_session(ws.parent.parent, era, body)


def test_a_planted_twin_of_an_approved_id_still_lets_it_route(
        ws: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The row routing found may be the planted claimant of an approved id: the id stands."""
    (ws / "working" / "aaa.md").write_text(memory_text("smoke-before-tag", "rule", f"- {FLOOD}",
                                                       tags=["smoke", "release"]))
    out = cli(capsys, "load", TASK)[1]
    assert "Run the smoke suite before tagging a release." in out, out


@pytest.mark.parametrize("folder", ["working", "rules"])
def test_session_start_cards_are_not_crowded_out(ws: Path, folder: str) -> None:
    """Without a session objective the SessionStart hook lists rule cards within the budget,
    by id: eighty planted files named `aa…` used it all up before the approved rule's card."""
    for i in range(80):
        (ws / folder / f"aa{i}.md").write_text(memory_text(f"aa{i}", "rule", "- x"))
    injected = hook(ws.parent.parent, "", "SessionStart")
    assert "smoke-before-tag" in injected, injected[:500]


def test_where_a_file_lives_decides_how_it_stands_not_its_frontmatter(
        layout: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`tier: working` in an approved rules/ file does not make it a note to be sealed, and
    `tier: durable` in a file dropped into working/ does not make it a memory to be hashed."""
    write_memory(layout, "smoke-before-tag", "rule", f"- {APPROVED['smoke-before-tag'][1]}",
                 tags=["smoke", "release"], tier="working", valid_until="2999-01-01")
    for i in range(20):
        (layout / "working" / f"w{i}.md").write_text(memory_text(
            f"w{i}", "rule", f"- {FLOOD}", tier="durable", tags=["smoke", "release"]))
    out = cli(capsys, "search", "smoke suite release")[1]
    assert "smoke-before-tag" in out, out
