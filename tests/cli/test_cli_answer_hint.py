"""A terminal answer naming a candidate that does not exist gets the terminal's syntax back.

Before: `--answer "A 2"` on a one-candidate proposal said `fix: approve "all" or numbers from 1
to 1` (the MCP tool's vocabulary); answering `all` then failed as an unknown answer."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.helpers import run_cli


@pytest.mark.parametrize("answer", ["A 2", "A 0", "A 1-3"])
def test_a_wrong_number_is_answered_in_terminal_syntax(
        project: Path, answer: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert run_cli("init", capsys=capsys)[0] == 0
    code, _, err = run_cli("save", "rule", "Run the smoke suite before tagging.", "--answer",
                           answer, capsys=capsys)
    assert code == 2
    assert 'approve "all"' not in err
    assert "answer A" in err and "A 1" in err
    assert not list((project / ".agents" / ".engram").glob("*/*.md"))


@pytest.mark.parametrize("text", ["|||||", "...", "- * -", "—"])
def test_a_candidate_without_a_word_is_refused(project: Path, text: str,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    """`engram save "|||||"` used to propose (and write) a memory titled `|||||` with the id
    `memory`."""
    assert run_cli("init", capsys=capsys)[0] == 0
    code, _, err = run_cli("save", text, "--answer", "A", capsys=capsys)
    assert code == 2 and "no word" in err, err
    assert not list((project / ".agents" / ".engram").glob("*/*.md"))
