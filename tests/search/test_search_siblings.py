"""Implied sub-tasks: free pack slots go to the best memory's tag siblings and their
prerequisites, so "drop a column" also brings the migration procedure it implies."""

from __future__ import annotations

from pathlib import Path

from engram.search.api import load
from engram.workspace import resolve
from tests.search.test_search_load import put


def test_free_slots_take_the_best_memorys_tag_siblings(project: Path) -> None:
    root = project / ".agents" / ".engram"
    root.mkdir(parents=True)
    put(root, "expand-contract", "rule", "- Never remove a column in one release: expand, "
        "migrate readers, then contract.", title="Columns change in two releases",
        tags=["postgres", "migration", "schema"], triggers=["drop column"])
    put(root, "add-db-migration", "skill", "- Write the goose file, run it locally, commit.",
        title="Write a goose file", tags=["postgres", "migration", "goose", "schema"],
        depends_on=["local-dev-setup"])
    put(root, "local-dev-setup", "skill", "- Start the compose stack.", title="Dev stack",
        tags=["setup"])
    put(root, "postgres-version", "knowledge", "- Cloud SQL runs Postgres 15.",
        title="Database version", tags=["postgres", "cloud-sql"])
    out = load(resolve(), query="drop the legacy_status column from loads and migrate",
               explain=True)
    keys = [k.split(":", 1)[1] for k in out.data["selected_keys"]]
    assert keys == ["expand-contract", "local-dev-setup", "add-db-migration"]
    assert "shares tags with expand-contract" in out.text


def test_a_sibling_without_a_task_word_is_never_selected(project: Path) -> None:
    """SPEC §6.1: a secondary signal (here shared tags) never selects a memory that shares no
    word with the task."""
    root = project / ".agents" / ".engram"
    root.mkdir(parents=True)
    put(root, "expand-contract", "rule", "- Never remove a column in one release: expand, "
        "migrate readers, then contract.", title="Columns change in two releases",
        tags=["postgres", "migration", "schema"], triggers=["drop column"])
    put(root, "add-db-migration", "skill", "- Write the goose file, run it locally, commit.",
        title="Write a goose file", tags=["postgres", "migration", "goose", "schema"])
    out = load(resolve(), query="drop the legacy_status column from loads")
    keys = [k.split(":", 1)[1] for k in out.data["selected_keys"]]
    assert keys == ["expand-contract"]
