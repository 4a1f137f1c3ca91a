"""MCP measurements for `engram bench` (suite `mcp`): cold start, tools/call round trip, idle RSS.

Each function spawns the real server (`python -m engram.mcp`) on a workspace (the synthetic
stores of `store_bench.store_root`) and returns milliseconds or kilobytes. `run`/`render` follow
the suite interface of `report.RUNNERS`. Nothing here is a test: targets are for BENCHMARKS.md.
"""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import IO, Any

from engram.bench.harness import percentile

MODERN_META = {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
               "io.modelcontextprotocol/clientCapabilities": {}}
INITIALIZE = {"protocolVersion": "2025-11-25", "capabilities": {},
              "clientInfo": {"name": "engram-bench", "version": "1"}}


def _spawn(workspace: Path) -> subprocess.Popen[bytes]:
    return subprocess.Popen([sys.executable, "-m", "engram.mcp", "--workspace", str(workspace)],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL)


def _request(proc: subprocess.Popen[bytes], id_: int, method: str,
             params: dict[str, Any]) -> dict[str, Any]:
    stdin: IO[bytes] = proc.stdin  # type: ignore[assignment]
    stdout: IO[bytes] = proc.stdout  # type: ignore[assignment]
    stdin.write(json.dumps({"jsonrpc": "2.0", "id": id_, "method": method,
                            "params": params}).encode() + b"\n")
    stdin.flush()
    while True:
        line = stdout.readline()
        if not line:
            raise RuntimeError(f"engram-mcp exited before answering {method}")
        reply: dict[str, Any] = json.loads(line)
        if reply.get("id") == id_:
            return reply


def _stop(proc: subprocess.Popen[bytes]) -> None:
    if proc.stdin is not None:
        proc.stdin.close()
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
    if proc.stdout is not None:
        proc.stdout.close()


def spawn_to_reply_ms(workspace: Path, method: str, params: dict[str, Any]) -> float:
    """Wall time from process spawn to the first reply of `method`."""
    start = time.perf_counter()
    proc = _spawn(workspace)
    try:
        _request(proc, 1, method, params)
        return (time.perf_counter() - start) * 1000
    finally:
        _stop(proc)


def cold_start_ms(workspace: Path, runs: int = 10) -> dict[str, float]:
    """Median spawn -> initialize reply and spawn -> server/discover reply."""
    init = [spawn_to_reply_ms(workspace, "initialize", INITIALIZE) for _ in range(runs)]
    disc = [spawn_to_reply_ms(workspace, "server/discover", {"_meta": MODERN_META})
            for _ in range(runs)]
    return {"initialize_p50_ms": statistics.median(init),
            "discover_p50_ms": statistics.median(disc)}


def load_round_trip_ms(workspace: Path, query: str = "release checklist tests",
                       runs: int = 50) -> dict[str, float]:
    """p50 / p95 of `tools/call engram_load` on one warm server (first call excluded)."""
    proc = _spawn(workspace)
    try:
        _request(proc, 1, "initialize", INITIALIZE)
        args = {"name": "engram_load", "arguments": {"query": query}}
        warm = _request(proc, 2, "tools/call", args)  # warm-up: imports and index refresh
        if warm.get("result", {}).get("isError", True):
            raise RuntimeError(f"engram_load failed, nothing to time: {warm}")
        times = []
        for i in range(runs):
            start = time.perf_counter()
            _request(proc, 10 + i, "tools/call", args)
            times.append((time.perf_counter() - start) * 1000)
    finally:
        _stop(proc)
    return {"load_p50_ms": statistics.median(times), "load_p95_ms": percentile(times, 95)}


def idle_rss_kb(workspace: Path) -> int | None:
    """Resident memory of a server that answered initialize and sits idle (Linux only)."""
    proc = _spawn(workspace)
    try:
        _request(proc, 1, "initialize", INITIALIZE)
        time.sleep(0.2)
        status = Path(f"/proc/{proc.pid}/status")
        if not status.exists():
            return None
        for line in status.read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
        return None
    finally:
        _stop(proc)


def precompile() -> None:
    """Write bytecode first: an installed package has it, a source checkout may not (and with
    PYTHONDONTWRITEBYTECODE set every spawn would recompile, measuring the compiler)."""
    import compileall

    import engram

    compileall.compile_dir(str(Path(engram.__file__).parent), quiet=1)


def run(base: Path, sizes: list[int], runs: int = 10) -> dict[str, Any]:
    """The `mcp` suite: cold start and idle RSS once, the load round trip per store size."""
    from engram.bench.store_bench import store_root

    precompile()
    first = store_root(base, sizes[0])
    out: dict[str, Any] = {"cold": cold_start_ms(first, runs), "idle_rss_kb": idle_rss_kb(first),
                           "load": {}}
    for n in sizes:
        out["load"][n] = load_round_trip_ms(store_root(base, n), runs=runs * 5)
    return out


def render(res: dict[str, Any]) -> list[str]:
    cold = res["cold"]
    rss = res["idle_rss_kb"]
    lines = ["| engram-mcp | median |", "|---|---:|",
             f"| spawn → `initialize` reply | {cold['initialize_p50_ms']:.0f} ms |",
             f"| spawn → `server/discover` reply | {cold['discover_p50_ms']:.0f} ms |",
             f"| idle RSS after `initialize` | {rss / 1024:.1f} MB |" if rss else
             "| idle RSS after `initialize` | n/a |",
             "", "| memories | `tools/call engram_load` p50 | p95 |", "|---:|---:|---:|"]
    lines += [f"| {n:,} | {r['load_p50_ms']:.1f} ms | {r['load_p95_ms']:.1f} ms |"
              for n, r in res["load"].items()]
    return lines


def suite(base: Path, sizes: list[int], runs: int) -> tuple[dict[str, Any], list[str]]:
    """The entry `report._lazy("mcp_bench")` calls."""
    res = run(base, sizes, runs)
    return res, render(res)
