"""MCP measurements for `engram bench`: cold start, tools/call round trip, idle memory.

Each function spawns the real server (`python -m engram.mcp`) on a workspace the caller
prepared (the bench harness builds the 1,000 / 10,000 memory fixtures) and returns numbers in
milliseconds or kilobytes. Nothing here is a test: thresholds are for BENCHMARKS.md, not asserts.
"""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import IO, Any

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
        _request(proc, 2, "tools/call", args)  # warm-up: imports and index refresh
        times = []
        for i in range(runs):
            start = time.perf_counter()
            _request(proc, 10 + i, "tools/call", args)
            times.append((time.perf_counter() - start) * 1000)
    finally:
        _stop(proc)
    times.sort()
    return {"load_p50_ms": statistics.median(times),
            "load_p95_ms": times[max(0, int(len(times) * 0.95) - 1)]}


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


def measure(workspace: Path, runs: int = 10) -> dict[str, Any]:
    """Everything above for one workspace, as one flat dict for BENCHMARKS.md."""
    precompile()
    return {**cold_start_ms(workspace, runs), **load_round_trip_ms(workspace),
            "idle_rss_kb": idle_rss_kb(workspace)}


if __name__ == "__main__":
    print(json.dumps(measure(Path(sys.argv[1] if len(sys.argv) > 1 else ".")), indent=2))
