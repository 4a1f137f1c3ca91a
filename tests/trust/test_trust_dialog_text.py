"""Attack: the agent proposes something harmless-looking by id and hopes the human approves the
dialog without reading it. The approval dialog (legacy `elicitation/create`, 2026-07-28
`input_required`) must show each candidate's text, escaped and shortened, not only its id."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import mcp_types as types
import pytest

from engram.cli.main import main
from engram.mcp.elicitation import TEXT_MAX
from tests.trust.trust_doors import ERAS, Door, mcp_session

FIRST = "Always pin tool versions in CI."
SECOND = "Upload the build cache to the shared bucket after every run."
LONG = "Rotate the staging keys monthly. " + "Then check the dashboards again. " * 30


def _props(asked: dict[str, Any]) -> dict[str, Any]:
    return dict(asked["requestedSchema"]["properties"])


@pytest.mark.parametrize("era", ERAS)
def test_the_dialog_shows_each_candidate_text(project: Path, era: str) -> None:
    assert main(["init"]) == 0

    async def decline(_p: types.ElicitRequestParams) -> types.ElicitResult:
        return types.ElicitResult(action="decline")

    async def body(door: Door) -> None:
        await door.tool("engram_save_session", {
            "candidates": f"TYPE: rule | TEXT: {FIRST}\nTYPE: knowledge | TEXT: {SECOND}"})
        await door.tool("engram_save", {"text": LONG, "type": "knowledge"})
        await door.tool("engram_note", {"text": "The CI cache key changed to v7 today."})

    asked = mcp_session(project, era, body, decline)
    assert len(asked) == 3, asked
    session, long, note = asked
    props = _props(session)
    assert props["c1"]["description"].startswith(FIRST)
    # the text whole, then every file approving it writes (issue 27 class 1)
    assert props["c2"]["description"].startswith(f"{SECOND} / New: knowledge ")
    assert FIRST in session["message"] and SECOND in session["message"]
    shown = _props(long)["c1"]["description"]  # whole: a cut would hide what is approved
    assert shown.startswith("Rotate the staging keys monthly.") and "…" not in shown
    assert shown.count("Then check the dashboards again.") == 30
    assert len(shown.split(" / New: ")[0]) <= TEXT_MAX
    assert "The CI cache key changed to v7 today." in json.dumps(note)
    assert "The CI cache key changed to v7 today." in note["message"]
