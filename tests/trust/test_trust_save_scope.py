"""Attack: send approved text out of the repository, into the user's global memory (which
every project reads), without the human seeing where it goes. Two levers an agent holds: the
repository's own `engram.config.json` (`"scope": "global"`, also shipped by a cloned
repository) and the `scope` argument of `engram_save`/`engram_save_session`/`engram_note`. The
dialog said "approve saving 1 memory candidate(s)?" and `1 ADD <id>`; the file went to the
global root. Now the repository's config may only narrow the scope (to `workspace`), and every
dialog whose text leaves the repository says so, in its message and on each candidate."""

from __future__ import annotations

import json
from pathlib import Path

import mcp_types as types
import pytest

from engram.cli.main import main
from tests.trust.trust_doors import ERAS, Door, cli, mcp_session

TEXT = "Pin tool versions in CI."


@pytest.fixture
def global_root(project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "global"
    root.mkdir()
    monkeypatch.setenv("ENGRAM_GLOBAL_DIR", str(root))
    assert main(["init"]) == 0
    return root


async def _accept(_p: types.ElicitRequestParams) -> types.ElicitResult:
    return types.ElicitResult(action="accept", content={})


def _global_files(root: Path) -> list[Path]:
    return list(root.rglob("rules/*.md")) + list(root.rglob("working/*.md"))


@pytest.mark.parametrize("scope", ["global", "both"])
def test_the_repositorys_config_cannot_send_saves_to_the_global_memory(
        project: Path, global_root: Path, capsys: pytest.CaptureFixture[str], scope: str) -> None:
    """The user's config keeps saves in the workspace; the repository's config says global:
    the user's choice stands (and a global-only save would skip the copy git review shows)."""
    assert cli(capsys, "config", "set", "scope", "workspace", "--user")[0] == 0
    cfg = project / ".agents" / ".engram" / "engram.config.json"
    cfg.write_text(json.dumps({"version": 1, "scope": scope}))
    code, out = cli(capsys, "save", "--force", "rule", TEXT)
    assert code == 0, out
    assert _global_files(global_root) == [], out
    assert list((project / ".agents/.engram/rules").glob("*.md")), out
    code, out = cli(capsys, "doctor")
    assert "scope" in out, out  # the ignored value is reported
    code, out = cli(capsys, "config", "set", "scope", "global")
    assert code != 0 and "--user" in out, out
    assert cli(capsys, "config", "set", "scope", "global", "--user")[0] == 0  # the user may


@pytest.mark.parametrize("era", ERAS)
@pytest.mark.parametrize("tool", ["engram_save", "engram_save_session", "engram_note"])
def test_a_dialog_says_when_text_leaves_the_repository(
        project: Path, global_root: Path, era: str, tool: str) -> None:
    args = {"engram_save": {"text": TEXT, "type": "rule", "scope": "global"},
            "engram_save_session": {"candidates": f"TYPE: rule | TEXT: {TEXT}",
                                    "scope": "global"},
            "engram_note": {"text": "The CI cache key is v7.", "scope": "global"}}[tool]

    async def body(door: Door) -> None:
        await door.tool(tool, args)

    asked = mcp_session(project, era, body, _accept)
    assert _global_files(global_root), asked  # the agent may ask for global …
    assert "global memory" in asked[0]["message"], asked  # … and the human reads it
    if tool != "engram_note":
        titles = [p["title"] for p in asked[0]["requestedSchema"]["properties"].values()]
        assert all("(global)" in t for t in titles), titles


@pytest.mark.parametrize("era", ERAS)
def test_a_workspace_save_does_not_mention_the_global_memory(
        project: Path, global_root: Path, era: str) -> None:
    async def body(door: Door) -> None:
        await door.tool("engram_save", {"text": TEXT, "type": "rule", "scope": "workspace"})

    asked = mcp_session(project, era, body, _accept)
    assert "global" not in asked[0]["message"], asked


def test_the_user_still_chooses_global_with_set_save_target(
        project: Path, global_root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli(capsys, "set-save-target", "workspace")[0] == 0
    code, out = cli(capsys, "set-save-target", "global")
    assert code == 0 and "user config" in out, out
    assert cli(capsys, "config", "get", "scope")[1].strip() == '"global"'
    assert cli(capsys, "save", "--force", "rule", TEXT)[0] == 0
    assert _global_files(global_root)
