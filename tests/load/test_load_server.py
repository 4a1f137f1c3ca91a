"""One real `engram-mcp` under 5,000 pipelined mixed requests at 1,000 memories: no error reply,
every id answered once, resident memory flat from request 1,000 to the end.

`ENGRAM_SOAK=1` runs 25,000 requests instead (a longer soak, same assertions).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest

from engram.bench import load_bench
from engram.bench.synth import generate
from tests.conftest import subprocess_env

pytestmark = pytest.mark.slow
RSS_GROWTH_LIMIT_KB = 10 * 1024


def test_one_server_answers_5000_pipelined_mixed_requests_with_flat_memory(
        project: Path, record_property: Callable[[str, object], None]) -> None:
    generate(project / ".agents" / ".engram", 1000)
    n = 25_000 if os.environ.get("ENGRAM_SOAK") == "1" else 5_000
    res = load_bench.pipelined(project, n, sample_at=1000, env=subprocess_env())
    record_property("requests_per_s", round(res["rps"], 1))
    record_property("rss_kb", (res["rss_at_sample_kb"], res["rss_end_kb"], res["rss_peak_kb"]))
    print(f"\n{n} requests in {res['seconds']:.1f} s = {res['rps']:.0f} req/s; RSS at 1,000: "
          f"{res['rss_at_sample_kb']} kB, end: {res['rss_end_kb']} kB, "
          f"peak: {res['rss_peak_kb']} kB")
    assert res["errors"] == []
    assert res["missing"] == [] and res["duplicates"] == []
    assert res["rss_at_sample_kb"] is not None and res["rss_end_kb"] is not None
    assert res["rss_end_kb"] - res["rss_at_sample_kb"] <= RSS_GROWTH_LIMIT_KB
    assert res["rss_peak_kb"] - res["rss_at_sample_kb"] <= RSS_GROWTH_LIMIT_KB
