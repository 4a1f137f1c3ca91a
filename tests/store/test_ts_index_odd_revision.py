"""A hand-written `revision:` that only looks like digits never crashes the TypeScript index
refresh. `revision: "²"` passed `str.isdigit()` and then `int()` raised (a traceback from
`engram rehash` in a root the TypeScript tool shares); so did a 5,000-digit revision."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests.conftest import FIXTURES
from tests.helpers import run_cli


@pytest.mark.parametrize("revision", ['"\u00b2"', '"' + "9" * 5000 + '"', '"7"', "3"])
def test_odd_revisions_are_kept_as_written(project: Path, revision: str,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    root = project / ".agents" / ".engram"
    shutil.copytree(FIXTURES / "ts_workspace" / ".agents" / ".engram", root)
    (root / "knowledge" / "odd-rev.md").write_text(
        f"---\nid: odd-rev\ntype: knowledge\nrevision: {revision}\ntags:\n  - odd\n---\n"
        "# Odd rev\n\n## Content\n\n- A revision field written by hand.\n", encoding="utf-8")
    code, _, err = run_cli("rehash", "--all", capsys=capsys)
    assert code == 0, err
    entries = json.loads((root / "memory.index.json").read_text(encoding="utf-8"))["entries"]
    mine = next(e for e in entries if e["id"] == "odd-rev")
    expected = {'"7"': 7, "3": 3}.get(revision, json.loads(revision))
    assert mine["revision"] == expected
