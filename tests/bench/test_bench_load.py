"""The `load` bench suite's parts run end to end on a small store and render a table."""

from __future__ import annotations

from pathlib import Path

from engram.bench import load_bench
from engram.bench.synth import generate
from engram.store.integrity import check_root
from engram.store.repo import Store
from engram.workspace import Root
from tests.conftest import subprocess_env


def test_load_suite_parts_measure_throughput_rss_and_commit_latency(project: Path) -> None:
    root = project / ".agents" / ".engram"
    generate(root, 40)
    load = load_bench.pipelined(project, 80, sample_at=20, env=subprocess_env())
    assert load["errors"] == [] and load["missing"] == [] and load["rps"] > 0
    commits = load_bench.commit_latency(project, writers=2, commits=2, env=subprocess_env())
    assert commits["commits"] == 4 and 0 < commits["p50_ms"] <= commits["p95_ms"]
    store = Store(Root(root, "workspace"))
    assert len(store.scan().memories) == 44  # both writers' commits landed
    assert [c for c in check_root(store) if c.status != "OK"] == []
    load["errors"] = 0
    lines = load_bench.render({"memories": 40, "load": load, "commit": commits})
    assert any("requests/s" in line for line in lines)
    assert any(line.startswith("| ") and "ms |" in line for line in lines)
