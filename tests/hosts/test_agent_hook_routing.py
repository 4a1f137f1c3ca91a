"""The hook runtime over the real read path (`engram.search.api.load`) and real memory files."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from engram.config import read_env
from engram.hosts import hooks

pytest.importorskip("engram.search.api")
from engram.store.format import render_memory  # noqa: E402
from engram.store.repo import Change, Store  # noqa: E402
from engram.workspace import resolve  # noqa: E402


def _memory(mid: str, mtype: str, tags: list[str], text: str) -> Change:
    meta = {"id": mid, "type": mtype, "tags": tags, "created": "2026-01-01",
            "updated": "2026-01-01", "confidence": "high", "scope": "workspace",
            "source": "manual", "revision": 1}
    folder = {"rule": "rules", "skill": "skills", "knowledge": "knowledge"}[mtype]
    return Change(f"{folder}/{mid}.md", render_memory(meta, text.rstrip("."), f"- {text}"))


@pytest.fixture
def workspace(project: Path) -> Path:
    roots = resolve()
    roots.workspace.path.mkdir(parents=True)
    Store(roots.workspace).write_files([
        _memory("run-smoke-suite-before-tagging", "rule", ["release", "smoke", "tagging"],
                "Run the smoke suite before tagging a release."),
        _memory("refunds-live-in-payments", "knowledge", ["payments", "refunds"],
                "Refund logic lives in the payments service."),
    ], "test fixture")
    return project


def _prompt(project: Path, prompt: str) -> str:
    return json.dumps({"hook_event_name": "UserPromptSubmit", "session_id": "s1",
                       "cwd": str(project), "prompt": prompt})


def test_prompt_injects_routed_memory_once_then_again_when_the_route_changes(
    workspace: Path
) -> None:
    env = read_env()
    first = hooks.respond(_prompt(workspace, "tag the release after the smoke suite"), env)
    assert "run-smoke-suite-before-tagging" in first["hookSpecificOutput"]["additionalContext"]
    assert hooks.respond(_prompt(workspace, "tagging the release: smoke suite"), env) == {}
    other = hooks.respond(_prompt(workspace, "where do payments refunds live"), env)
    assert "refunds-live-in-payments" in other["hookSpecificOutput"]["additionalContext"]


def test_session_start_without_a_route_injects_rule_cards(workspace: Path) -> None:
    raw = json.dumps({"hook_event_name": "SessionStart", "session_id": "s2",
                      "cwd": str(workspace), "source": "startup"})
    out = hooks.respond(raw, read_env())
    context = out["hookSpecificOutput"]["additionalContext"]
    assert "run-smoke-suite-before-tagging (rule" in context
    assert "refunds-live-in-payments" not in context
