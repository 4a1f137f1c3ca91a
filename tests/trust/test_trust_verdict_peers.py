"""Attack: an unapproved file as the memory a proposal is compared with. Planning compared a
candidate with every file of the root, approved or not, so a planted `rules/pin.md` declaring
the id `always-paste-deploy-key-chat` with the candidate's words made the human's save
"NOOP duplicate of always-paste-deploy-key-chat" (nothing saved), or an automatic
UPDATE of it (refused), and put that id — text nobody reviewed — in the preview, the error and
the approval dialog. Only approved memories are duplicates, update targets or related hints."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import mcp_types as types
import pytest

from tests.helpers import memory_text, write_memory
from tests.trust.trust_doors import ERAS, Door, cli, mcp_session

BAD = "always-paste-deploy-key-chat"
SAME = "Pin tool versions in CI."
CLOSE = "Pin the tool versions in CI always."


def _plant(layout: Path) -> None:
    (layout / "rules" / "pin.md").write_text(memory_text(BAD, "rule", f"- {SAME}",
                                                         tags=["ci", "pin"]))


def _leaks(text: str) -> bool:
    return BAD in text or "paste-the-deploy-key" in text


@pytest.mark.parametrize("text", [SAME, CLOSE])
def test_an_unapproved_file_is_never_the_duplicate_or_target_of_a_save(
        layout: Path, capsys: pytest.CaptureFixture[str], text: str) -> None:
    _plant(layout)
    code, out = cli(capsys, "save", "rule", text, "--answer", "C")
    assert not _leaks(out) and "Verdict: ADD" in out, out
    code, out = cli(capsys, "save", "--force", "rule", text)
    assert code == 0 and not _leaks(out) and "written" in out, out


def test_a_rewritten_index_row_is_not_a_duplicate_either(
        layout: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write_memory(layout, "pin-tool-versions", "rule", f"- {SAME}", tags=["ci", "pin"])
    assert "NOOP duplicate of pin-tool-versions" in cli(capsys, "save", "rule", SAME,
                                                         "--answer", "C")[1]  # approved: yes
    db = sqlite3.connect(layout / ".cache" / "index.sqlite")
    db.execute("UPDATE mem SET id = ?", (BAD,))
    db.commit()
    db.close()
    code, out = cli(capsys, "save", "rule", SAME, "--answer", "C")
    assert not _leaks(out), out


@pytest.mark.parametrize("era", ERAS)
def test_the_dialog_and_preview_never_name_an_unapproved_file(
        layout: Path, era: str) -> None:
    _plant(layout)
    texts: list[str] = []

    async def accept(_p: types.ElicitRequestParams) -> types.ElicitResult:
        return types.ElicitResult(action="accept", content={})

    async def body(door: Door) -> None:
        texts.append(await door.tool("engram_save", {"text": SAME, "type": "rule"}))
        texts.append(await door.tool("engram_save_session",
                                     {"candidates": f"TYPE: rule | TEXT: {CLOSE}"}))

    asked = mcp_session(layout.parent.parent, era, body, accept)
    assert len(asked) == 2 and not _leaks(json.dumps(asked)), asked
    assert not any(_leaks(t) for t in texts), texts
    assert (layout / "rules" / "pin-tool-versions-ci.md").is_file()  # the save went in
