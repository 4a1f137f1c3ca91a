"""Hook measurements for `engram bench` (suite `hooks`): a cold `engram agent-hook` process.

Claude Code starts `engram agent-hook --host claude` afresh for every SessionStart and every
prompt, so the number that matters is a whole cold process answering one payload on a warm index
(docs/hosts.md targets 200 ms at 1,000 memories). `suite` follows the interface of
`report.RUNNERS`. A measurement, never a test.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import time
from pathlib import Path
from typing import Any

from engram.bench.harness import engram_argv, percentile

PROMPT = "tag the release after the smoke tests pass"
OBJECTIVE = "fix flaky login tests"


def _payloads(project: Path) -> dict[str, dict[str, str]]:
    base = {"session_id": "bench", "cwd": str(project)}
    return {"SessionStart": {**base, "hook_event_name": "SessionStart", "source": "startup"},
            "UserPromptSubmit": {**base, "hook_event_name": "UserPromptSubmit",
                                 "prompt": PROMPT}}


def _env(home: Path) -> dict[str, str]:
    env = {**os.environ, "HOME": str(home), "ENGRAM_CONFIG_DIR": str(home / ".engram"),
           "ENGRAM_NO_AUTO_UPGRADE": "1", "ENGRAM_SESSION_OBJECTIVE": OBJECTIVE}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


def cold_hook_ms(project: Path, home: Path, runs: int) -> dict[str, dict[str, float]]:
    """p50/p95 wall time of fresh hook processes per event (one warm-up run first)."""
    argv = engram_argv("agent-hook", "--host", "claude")
    env = _env(home)
    out: dict[str, dict[str, float]] = {}
    for event, payload in _payloads(project).items():
        raw = json.dumps(payload).encode()
        samples = []
        for i in range(runs + 1):
            start = time.perf_counter()
            subprocess.run(argv, input=raw, stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL, env=env, check=False)
            if i:  # the first run refreshes the index and warms the file cache
                samples.append((time.perf_counter() - start) * 1000)
        out[event] = {"p50_ms": statistics.median(samples), "p95_ms": percentile(samples, 95)}
    return out


def run(base: Path, sizes: list[int], runs: int = 10) -> dict[int, Any]:
    from engram.bench.mcp_bench import precompile
    from engram.bench.store_bench import store_root

    precompile()
    home = base / "hook-home"
    home.mkdir(parents=True, exist_ok=True)
    return {n: cold_hook_ms(store_root(base, n), home, runs) for n in sizes}


def render(res: dict[Any, Any]) -> list[str]:
    lines = ["| memories | SessionStart p50 | p95 | UserPromptSubmit p50 | p95 |",
             "|---:|---:|---:|---:|---:|"]
    for n, r in res.items():
        s, u = r["SessionStart"], r["UserPromptSubmit"]
        lines.append(f"| {n:,} | {s['p50_ms']:.0f} ms | {s['p95_ms']:.0f} ms "
                     f"| {u['p50_ms']:.0f} ms | {u['p95_ms']:.0f} ms |")
    lines += ["", "A fresh `engram agent-hook --host claude` process per payload, warm index; "
              "target 200 ms at 1,000 memories."]
    return lines


def suite(base: Path, sizes: list[int], runs: int) -> tuple[dict[Any, Any], list[str]]:
    """The entry `report._lazy("hook_bench")` calls."""
    res = run(base, sizes, runs)
    return res, render(res)
