"""`load(fit_json=True)`: the budget bounds the whole JSON envelope, escapes included."""

from __future__ import annotations

from pathlib import Path

import pytest

from engram.cli.main import main as cli
from engram.outcome import estimate_tokens, model_json
from engram.search.api import load
from engram.workspace import resolve
from tests.helpers import write_memory


@pytest.fixture
def escapes(project: Path) -> Path:
    """Memories whose bodies JSON must escape a lot: quotes, backslashes, tabs, newlines."""
    assert cli(["init"]) == 0
    root = project / ".agents" / ".engram"
    for i in range(16):
        lines = [f"- \"quoted\" C:\\\\drop\\\\r{i}\\\\{j}\tand \\\"more\\\" {j}" for j in range(10)]
        write_memory(root, f"release-note-{i:02d}", "rule" if i % 2 else "knowledge",
                     "\n".join(lines), tags=["release", "notes"])
    return project


@pytest.mark.parametrize("budget", [200, 333, 800, 1600, 2500])
@pytest.mark.parametrize("disclosure", ["tiered", "cards", "bodies"])
def test_envelope_as_received_stays_within_the_budget(
        escapes: Path, budget: int, disclosure: str) -> None:
    out = load(resolve(), query="release notes", budget_tokens=budget, disclosure=disclosure,
               fit_json=True)
    assert estimate_tokens(model_json(out.envelope())) <= budget
    plain = load(resolve(), query="release notes", budget_tokens=budget, disclosure=disclosure)
    assert estimate_tokens(plain.text) <= budget
    # Fitting the envelope only ever takes room from the pack, never adds to it.
    assert len(out.data["body_keys"]) <= len(plain.data["body_keys"])


def test_in_context_keys_are_left_out_and_named_once(escapes: Path) -> None:
    first = load(resolve(), query="release notes")
    shown = first.data["body_keys"][:2]
    again = load(resolve(), query="release notes", in_context=shown)
    assert again.data["in_context"] == shown
    assert not set(shown) & set(again.data["body_keys"] + again.data["selected_keys"])
    ids = [k.split(":", 1)[1] for k in shown]
    assert f"already in context, left out: {', '.join(ids)}" in again.text.splitlines()
    assert f"id: {ids[0]}" not in again.text
