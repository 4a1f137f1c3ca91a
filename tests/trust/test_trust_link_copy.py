"""Attack: copy a file from outside the repository into it through a symlinked state file the
containment list did not name. `memory.index.json` (the TypeScript tool's index) is read and
rewritten on every write when it exists: as a link to `~/…/config.json` (any JSON object with
an `entries` list), Engram read the outside file and wrote its whole content, tokens included,
into the repository as a regular file the agent can read. `working/.seals.json` is the other
state file nobody listed. Both are refused like every other state file."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.trust.trust_doors import ERAS, Door, cli, mcp_session

TOKEN = "ghp_outside_the_repository_0123456789"


@pytest.mark.parametrize("name", ["memory.index.json", "working/.seals.json"])
def test_a_symlinked_state_file_is_refused_and_nothing_is_copied_in(
        layout: Path, outside: Path, capsys: pytest.CaptureFixture[str], name: str) -> None:
    assert cli(capsys, "init")[0] == 0
    secret = outside / "config.json"
    secret.write_text(json.dumps({"entries": [], "working/x.md": TOKEN, "token": TOKEN}))
    (layout / name).symlink_to(secret)
    for args in (("save", "--force", "rule", "Pin tool versions in CI."), ("load", "--all"),
                 ("rehash", "--all"), ("note", "The CI cache key is v7.", "--force")):
        code, out = cli(capsys, *args)
        assert TOKEN not in out
        if args[0] == "save":
            assert code != 0 and "symlink" in out, out
    copied = [p for p in layout.rglob("*") if p.is_file() and not p.is_symlink()
              and TOKEN in p.read_text(errors="replace")]
    assert copied == []
    assert json.loads(secret.read_text())["token"] == TOKEN  # the outside file is untouched
    assert "root.symlink" in cli(capsys, "doctor")[1]


@pytest.mark.parametrize("era", ERAS)
def test_the_mcp_server_refuses_a_symlinked_ts_index(
        layout: Path, outside: Path, capsys: pytest.CaptureFixture[str], era: str) -> None:
    assert cli(capsys, "init")[0] == 0
    secret = outside / "config.json"
    secret.write_text(json.dumps({"entries": [], "token": TOKEN}))
    (layout / "memory.index.json").symlink_to(secret)

    async def body(door: Door) -> None:
        text = await door.tool("engram_load", {"query": "ci"})
        assert "symlink" in text, text

    mcp_session(layout.parent.parent, era, body)
    assert not any(TOKEN in p.read_text(errors="replace") for p in layout.rglob("*")
                   if p.is_file() and not p.is_symlink())
