"""The `writes` bench suite saves real memories on a small store and renders a table."""

from __future__ import annotations

from pathlib import Path

from engram.bench import write_bench
from engram.bench.synth import generate
from engram.store.integrity import check_root
from engram.store.repo import Store
from engram.workspace import Root
from tests.conftest import subprocess_env


def test_writes_suite_proposes_commits_and_saves_from_a_cold_process(project: Path) -> None:
    root = project / ".agents" / ".engram"
    generate(root, 40)
    before = len(Store(Root(root, "workspace")).scan().memories)
    res = write_bench.measure(project, runs=2, env=subprocess_env())
    assert all(v > 0 for v in res.values())
    store = Store(Root(root, "workspace"))
    assert len(store.scan().memories) == before + 2 + 3  # two commits, three cold saves
    assert [c for c in check_root(store) if c.status != "OK"] == []


def test_the_scan_cost_is_measured_on_a_two_kilobyte_memory() -> None:
    """Speed is a benchmark figure, never a timed test: the bench reports it."""
    assert len(write_bench.SCAN_SAMPLE[:2048]) == 2048
    p50, best = write_bench.scan_cost(runs=3)
    assert 0 < best <= p50
