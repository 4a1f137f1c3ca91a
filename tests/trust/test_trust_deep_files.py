"""Attack (issue 27, class 6): audits that abort. A deeply nested `memory.index.json` made a
save that had already written and hashed the memory print an error (exit 1), so the approval
token stayed usable and could commit again. An error after the write is now a
`storage.after_write` warning: the save reports success and the token is used up."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.trust.trust_doors import cli

DEEP = '{"memories": ' + "[" * 100000 + "]" * 100000 + "}"
RULE = "Always run the linter before committing code."


def test_a_deep_memory_index_after_a_save_says_saved(
        layout: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (layout / "memory.index.json").write_text(DEEP)
    code, out = cli(capsys, "save", "-f", "rule", RULE)
    assert code == 0, out
    assert "saved and approved" in out and "memory.index.json" in out, out
    code, out = cli(capsys, "save", "-f", "--json", "rule", "Use tabs in Makefiles always.")
    envelope = json.loads(out[out.index("{"):])
    assert envelope["ok"] is True
    assert "storage.after_write" in [d["code"] for d in envelope["diagnostics"]]
    assert cli(capsys, "verify")[0] == 0


def test_the_token_cannot_commit_twice_after_a_late_error(
        layout: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from engram.proposals.api import commit, propose
    from engram.workspace import resolve

    (layout / "memory.index.json").write_text(DEEP)
    roots = resolve(None, layout.parent.parent)
    proposal = propose(roots, RULE, type="rule")
    first = commit(roots, proposal.token)
    assert first.data["written"], first.text
    with pytest.raises(Exception) as again:
        commit(roots, proposal.token)
    assert "approval" in str(getattr(again.value, "code", "")), again.value
