"""Attack (issue 27, class 1): get a human to approve a side effect the dialog never named.

A `SUPERSEDES: <id>` candidate retires an approved memory (rewritten `lifecycle: superseded`,
gone from every load), possibly a global rule every project reads; a candidate close to an
approved memory is merged into it (UPDATE). The approval dialog showed only the new candidate:
`1 SUPERSEDE <new id>` and its text, never the memory retired or rewritten, nor the new
memory's type. Now the dialog, the chat preview, the CLI preview and the `engram_commit` result
are all rendered from one list of effects derived from the commit plan
(`engram.proposals.effects`): every file the commit writes or changes, with its scope, type and
text.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import mcp_types as types
import pytest

from engram.cli.main import main
from tests.trust.trust_doors import ERAS, Door, cli, mcp_session

OLD = "Always squash commits when merging pull requests."
OLD_CONTEXT = "Keeps the release history readable for the changelog tool."
NEW = "Merge pull requests with a merge commit, never squash them."


@pytest.fixture
def global_root(project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "global"
    root.mkdir()
    monkeypatch.setenv("ENGRAM_GLOBAL_DIR", str(root))
    assert main(["init"]) == 0
    assert main(["init", "--global", str(root)]) == 0
    return root


def _approved_global_rule(capsys: pytest.CaptureFixture[str], text: str = OLD) -> str:
    code, out = cli(capsys, "save", "--force", "--scope", "global", "--json", "rule", text,
                    "--context", OLD_CONTEXT)
    assert code == 0, out
    written = json.loads(out)["data"]["written"]
    assert written and written[0]["scope"] == "global", out
    return str(written[0]["id"])


async def _accept(_p: types.ElicitRequestParams) -> types.ElicitResult:
    return types.ElicitResult(action="accept", content={})


async def _cancel(_p: types.ElicitRequestParams) -> types.ElicitResult:
    return types.ElicitResult(action="cancel")


def _dialog_text(asked: list[dict[str, Any]]) -> str:
    return json.dumps([(a.get("message", ""), a.get("requestedSchema", {})) for a in asked],
                      ensure_ascii=False)


def _lifecycle(root: Path, mid: str) -> str:
    text = (root / "rules" / f"{mid}.md").read_text()
    return "superseded" if "lifecycle: superseded" in text else "active"


@pytest.mark.parametrize("era", ERAS)
def test_the_dialog_names_the_global_rule_a_supersede_retires(
        project: Path, global_root: Path, era: str, capsys: pytest.CaptureFixture[str]) -> None:
    old = _approved_global_rule(capsys)
    results: list[str] = []

    async def body(door: Door) -> None:
        results.append(await door.tool("engram_save_session", {
            "candidates": f"TYPE: rule | SUPERSEDES: {old} | TEXT: {NEW}", "scope": "global"}))

    asked = mcp_session(project, era, body, _accept)
    assert _lifecycle(global_root, old) == "superseded"  # the side effect happened …
    message = asked[0]["message"]
    described = json.dumps(asked[0]["requestedSchema"], ensure_ascii=False)
    for shown in (message, described):  # … and the human read it, in both places
        assert old in shown and "superseded" in shown, asked
        assert "squash commits" in shown.lower(), asked  # the retired memory's own text
        assert "global" in shown, asked
    assert "rule" in message, asked  # the new memory's type
    assert old in results[0] and "superseded" in results[0], results  # the commit result


@pytest.mark.parametrize("era", ERAS)
def test_a_supersede_found_by_polarity_is_named_too(
        project: Path, global_root: Path, era: str, capsys: pytest.CaptureFixture[str]) -> None:
    """No SUPERSEDES line: the verdict itself decides to retire the opposite rule."""
    old = _approved_global_rule(capsys)

    async def body(door: Door) -> None:
        await door.tool("engram_save", {"text": "Never squash commits when merging pull "
                                        "requests.", "type": "rule", "scope": "global"})

    asked = mcp_session(project, era, body, _accept)
    assert _lifecycle(global_root, old) == "superseded"
    assert old in asked[0]["message"] and "superseded" in asked[0]["message"], asked


@pytest.mark.parametrize("era", ERAS)
def test_the_dialog_names_the_memory_an_update_rewrites(
        project: Path, global_root: Path, era: str, capsys: pytest.CaptureFixture[str]) -> None:
    old = _approved_global_rule(capsys)

    async def body(door: Door) -> None:
        await door.tool("engram_save_session", {
            "candidates": f"TYPE: rule | UPDATE: {old} | TEXT: Squash commits of bot pull "
                          "requests too.", "scope": "global"})

    asked = mcp_session(project, era, body, _accept)
    message = asked[0]["message"]
    assert old in message and f"Updates: rule {old} (global" in message, asked
    assert "squash commits when merging" in message.lower(), asked  # what it says today


@pytest.mark.parametrize("era", ERAS)
def test_the_chat_preview_names_what_a_supersede_retires(
        project: Path, global_root: Path, era: str, capsys: pytest.CaptureFixture[str]) -> None:
    """A cancelled dialog (or a host without one) falls back to the preview in the chat."""
    old = _approved_global_rule(capsys)
    results: list[str] = []

    async def body(door: Door) -> None:
        results.append(await door.tool("engram_save_session", {
            "candidates": f"TYPE: rule | SUPERSEDES: {old} | TEXT: {NEW}", "scope": "global"}))

    mcp_session(project, era, body, _cancel)
    assert _lifecycle(global_root, old) == "active"
    assert f"Retires: rule {old} (global" in results[0], results
    assert "lifecycle: superseded" in results[0] and "squash commits" in results[0].lower()


def test_the_cli_preview_names_what_a_supersede_retires(
        project: Path, global_root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    old = _approved_global_rule(capsys)
    code, out = cli(capsys, "save-session", "--scope", "global", "--answer", "C",
                    f"TYPE: rule | SUPERSEDES: {old} | TEXT: {NEW}")
    assert code == 0 and "nothing was saved" in out, out
    assert f"Retires: rule {old} (global" in out, out
    assert "lifecycle: superseded" in out and "squash commits" in out.lower(), out
    assert "New: rule" in out, out
    code, out = cli(capsys, "save-session", "--scope", "global", "--answer", "A",
                    f"TYPE: rule | SUPERSEDES: {old} | TEXT: {NEW}")
    assert code == 0 and f"superseded rule {old} (global" in out, out
