"""A memory that replaced another answers for the old one's name (its `supersedes` ids)."""

from __future__ import annotations

from pathlib import Path

from engram.search.api import load
from engram.workspace import resolve
from tests.search.test_search_load import put


def test_a_task_naming_the_old_tool_routes_the_replacement(project: Path) -> None:
    root = project / ".agents" / ".engram"
    root.mkdir(parents=True)
    put(root, "pagerduty-escalation", "knowledge", "- Escalate after 10 minutes.",
        title="Paging policy", lifecycle="superseded", superseded_by="opsgenie-rotation")
    put(root, "opsgenie-rotation", "knowledge", "- Weekly rotation, handover on Monday.",
        title="On-call rotation", supersedes=["pagerduty-escalation"])
    put(root, "office-hours", "knowledge", "- The office opens at eight.", title="Office hours")
    keys = load(resolve(), query="set up a pagerduty override for next week").data[
        "selected_keys"]
    assert keys == ["workspace:opsgenie-rotation"]
