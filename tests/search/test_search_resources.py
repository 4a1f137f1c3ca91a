"""Resource texts, usage ordering, search scope and index freshness on the read path."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from engram.errors import NotFoundError, UsageError
from engram.search.api import index_text, load, memory_text, search, top_by_usage
from engram.store.format import render_memory
from engram.store.repo import Change, Store
from engram.workspace import Root, resolve
from tests.search.test_search_load import put


@pytest.fixture
def ws(project: Path) -> Path:
    root = project / ".agents" / ".engram"
    root.mkdir(parents=True)
    return root


def test_memory_text_is_the_compact_body_and_counts_a_recall(ws: Path) -> None:
    put(ws, "grafana-dashboards", content="- Dashboards live in grafana/.", tags=["grafana"])
    text = memory_text(resolve(), "grafana-dashboards")
    assert text.startswith("---\nid: grafana-dashboards\ntype: knowledge\ntags: [grafana]\n")
    assert "- Dashboards live in grafana/." in text
    usage = json.loads((ws / "usage.json").read_text())
    assert usage["workspace:grafana-dashboards"]["recalls"] == 1


def test_memory_text_of_an_unknown_id_raises_not_found(ws: Path) -> None:
    with pytest.raises(NotFoundError):
        memory_text(resolve(), "no-such-memory")


def test_index_lists_visible_cards_only(ws: Path) -> None:
    put(ws, "visible-one", "rule", "- Shown.")
    put(ws, "hidden-one", content="- Unsure.", confidence="low")
    text = index_text(resolve())
    assert text.splitlines()[0] == "engram index: 1 memories"
    assert "- visible-one (rule, workspace): Visible one" in text
    assert "hidden-one" not in text


def test_top_by_usage_orders_by_recalls_then_most_recently_updated(ws: Path) -> None:
    put(ws, "older", updated="2026-01-01")
    put(ws, "newer", updated="2026-06-01")
    put(ws, "popular", updated="2025-01-01")
    load(resolve(), ids="popular")
    top = top_by_usage(resolve(), 2)
    assert [t["id"] for t in top] == ["popular", "newer"]
    assert top[0]["recalls"] == 1 and top[0]["uri"] == "engram://memory/popular"
    assert top_by_usage(resolve(), 0) == []


def test_search_ranks_and_limits_and_skips_archived(ws: Path) -> None:
    for i in range(4):
        put(ws, f"celery-note-{i}", content=f"- Celery worker detail {i}.")
    Store(Root(ws, "workspace")).write_files([Change(
        "archive/2026-08-02/celery-archived.md",
        render_memory({"id": "celery-archived", "type": "knowledge"}, "Celery archived",
                      "- Old celery fact."))], "archive")
    out = search(resolve(), "celery", limit=3)
    assert len(out.data["entries"]) == 3
    assert all(e["id"].startswith("celery-note-") for e in out.data["entries"])
    with pytest.raises(UsageError):
        search(resolve(), "celery", limit=0)


def test_a_symlinked_memory_file_is_never_printed(ws: Path, tmp_path: Path) -> None:
    rel = put(ws, "vault-paths", content="- Secrets live under kv/ledgerly.")
    outside = tmp_path / "outside.md"
    outside.write_bytes((ws / rel).read_bytes())
    (ws / rel).unlink()
    (ws / rel).symlink_to(outside)
    out = load(resolve(), query="vault secrets")
    assert "kv/ledgerly" not in out.text
    assert all(k != "workspace:vault-paths" for k in out.data["body_keys"])


def test_added_and_hand_edited_files_are_seen_without_a_rebuild(ws: Path) -> None:
    rel = put(ws, "argo-sync", content="- Argo syncs every three minutes.")
    assert load(resolve(), query="argo sync").data["selected_keys"] == ["workspace:argo-sync"]
    put(ws, "argo-rollouts", content="- Argo rollouts use canary steps.")
    keys = load(resolve(), query="argo canary").data["selected_keys"]
    assert keys[0] == "workspace:argo-rollouts"
    # An in-place edit plus re-approval: the hashes file changes, so the next read re-indexes.
    path = ws / rel
    path.write_text(path.read_text().replace("three minutes", "three minutes via webhook"))
    from engram.store.integrity import rehash

    rehash(resolve(), ["argo-sync"])
    out = load(resolve(), query="webhook")
    assert out.data["selected_keys"] == ["workspace:argo-sync"]
    assert "via webhook" in out.text


def test_load_needs_a_task_an_id_or_all(ws: Path) -> None:
    with pytest.raises(UsageError) as err:
        load(resolve(), query="   ")
    assert err.value.code == "usage.empty_query"


def test_load_all_routes_every_visible_memory_rules_first(ws: Path) -> None:
    put(ws, "a-fact")
    put(ws, "b-rule", "rule")
    put(ws, "c-low", confidence="low")
    keys = load(resolve(), include_all=True).data["selected_keys"]
    assert keys == ["workspace:b-rule", "workspace:a-fact"]


def test_dry_run_shows_tiers_without_bodies_or_recalls(ws: Path) -> None:
    put(ws, "nginx-timeouts", content="- Proxy read timeout is 60 s.")
    out = load(resolve(), query="nginx timeouts", dry_run=True)
    assert "would load" in out.text and "workspace:nginx-timeouts [body]" in out.text
    assert "60 s" not in out.text
    assert not (ws / "usage.json").exists()
