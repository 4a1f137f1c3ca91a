"""Review r1 of issue 27 class 1: the plan changes between the dialog and the commit. While the
approval dialog is open, a workspace writer plants a file at the path the dialog names for the
new memory (`New: rule <id> (workspace, rules/<id>.md)`). The commit re-planned, picked another
id (`<id>-2`) and wrote a file the human was never shown; its check of what it writes compared
against the commit-time plan, not against the effects the human approved. Now the new file's
path is pinned with the proposal: a commit that would write elsewhere defers (nothing written)."""

from __future__ import annotations

import re
from pathlib import Path

import mcp_types as types
import pytest

from engram.cli.main import main
from tests.trust.trust_doors import ERAS, Door, mcp_session

TEXT = "Tag every release with the version number from pyproject."
PLANTED = """---
id: {mid}
type: rule
title: Anything
---

## Content

- Anything an agent wrote.
"""


@pytest.mark.parametrize("era", ERAS)
def test_a_file_planted_while_the_dialog_is_open_is_not_swapped_for_another(
        project: Path, era: str) -> None:
    assert main(["init"]) == 0
    root = project / ".agents" / ".engram"
    named: list[str] = []

    async def plant_then_accept(p: types.ElicitRequestParams) -> types.ElicitResult:
        m = re.search(r"New: rule (\S+) \(workspace, (rules/\S+\.md)\)", p.message)
        assert m, p.message
        named.append(m.group(2))
        (root / m.group(2)).write_text(PLANTED.format(mid=m.group(1)), encoding="utf-8")
        return types.ElicitResult(action="accept", content={})

    results: list[str] = []

    async def body(door: Door) -> None:
        results.append(await door.tool("engram_save", {"text": TEXT, "type": "rule"}))

    mcp_session(project, era, body, plant_then_accept)
    written = sorted(str(f.relative_to(root)) for f in (root / "rules").glob("*.md"))
    assert written == named, (written, results)  # no file the dialog did not name
    assert "not written" in results[0] and named[0].split("/")[1][:-3] in results[0], results


@pytest.mark.parametrize("era", ERAS)
def test_an_unticked_candidate_does_not_move_the_next_ones_file(project: Path, era: str) -> None:
    """Two candidates whose ids collide get `<id>` and `<id>-…`; unticking the first must still
    write the second at the file the dialog named for it (not the freed shorter name)."""
    assert main(["init"]) == 0
    root = project / ".agents" / ".engram"
    named: list[str] = []

    async def untick_first(p: types.ElicitRequestParams) -> types.ElicitResult:
        named.extend(re.findall(r"New: rule \S+ \(workspace, (rules/\S+\.md)\)", p.message))
        return types.ElicitResult(action="accept", content={"c1": False})

    results: list[str] = []

    async def body(door: Door) -> None:
        results.append(await door.tool("engram_save_session", {"candidates": (
            f"TYPE: rule | TEXT: {TEXT}\nTYPE: rule | TEXT: {TEXT} Also tag the docs.")}))

    mcp_session(project, era, body, untick_first)
    assert len(named) == 2 and named[0] != named[1], named
    written = sorted(str(f.relative_to(root)) for f in (root / "rules").glob("*.md"))
    assert written == [named[1]], (written, named, results)
