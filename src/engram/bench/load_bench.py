"""Load measurements for `engram bench` (suite `load`) and the load tests: a pipelined client.

`pipelined` streams mixed requests (engram_load, engram_search, resources/read, engram_status)
into one real `engram-mcp` over stdio, keeping up to MAX_IN_FLIGHT requests outstanding (the
server refuses more with "Server busy" rather than blocking its reader), and samples the
server's VmRSS from /proc while replies stream back. `commit_latency` times real commits
(propose + commit through `engram.proposals.api`) from two writer processes at once.
Nothing here asserts: tests/load/ does, from the same functions.
"""

from __future__ import annotations

import contextlib
import json
import random
import shutil
import subprocess
import sys
import threading
import time
from collections import Counter
from pathlib import Path
from typing import IO, Any

from engram.bench.harness import percentile
from engram.mcp.protocol import MAX_IN_FLIGHT

INITIALIZE = {"protocolVersion": "2025-11-25", "capabilities": {},
              "clientInfo": {"name": "engram-load", "version": "1"}}
QUERIES = ("release checklist tests", "database migration rollback", "deploy staging config",
           "logging format errors", "api pagination limits")


def pseudo_words(seed: int, n: int = 6) -> str:
    """n made-up words, distinct per seed: candidates that never look like each other."""
    rng = random.Random(seed)
    syllables = [c + v for c in "bdfgklmnprstvz" for v in "aeiou"]
    return " ".join("".join(rng.choice(syllables) for _ in range(3)) for _ in range(n))


def rss_kb(pid: int) -> int | None:
    """VmRSS of a live process in kB (Linux); None where /proc is missing."""
    try:
        text = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return None
    for line in text.splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return None


def memory_ids(project: Path, limit: int = 200) -> list[str]:
    root = project / ".agents" / ".engram"
    found = sorted(p.stem for sub in ("rules", "skills", "knowledge")
                   for p in (root / sub).glob("*.md"))
    return found[:limit]


def mixed_request(i: int, ids: list[str]) -> tuple[str, dict[str, Any]]:
    """Request number i of the mix: load, search, resources/read, status in turn."""
    kind = i % 4
    if kind == 0:
        return "tools/call", {"name": "engram_load",
                              "arguments": {"query": QUERIES[i % len(QUERIES)]}}
    if kind == 1:
        return "tools/call", {"name": "engram_search",
                              "arguments": {"query": QUERIES[(i // 4) % len(QUERIES)]}}
    if kind == 2 and ids:
        return "resources/read", {"uri": f"engram://memory/{ids[i % len(ids)]}"}
    return "tools/call", {"name": "engram_status", "arguments": {}}


def is_error(reply: dict[str, Any]) -> bool:
    result = reply.get("result")
    return "error" in reply or (isinstance(result, dict) and bool(result.get("isError")))


def spawn_server(project: Path, env: dict[str, str] | None = None) -> subprocess.Popen[bytes]:
    return subprocess.Popen([sys.executable, "-m", "engram.mcp", "--workspace", str(project)],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, env=env)


def pipelined(project: Path, n: int, *, sample_at: int = 1000,
              env: dict[str, str] | None = None) -> dict[str, Any]:
    """Send n mixed requests to one server, at most MAX_IN_FLIGHT outstanding; see module doc."""
    proc = spawn_server(project, env)
    stdin: IO[bytes] = proc.stdin  # type: ignore[assignment]
    stdout: IO[bytes] = proc.stdout  # type: ignore[assignment]
    window = threading.Semaphore(MAX_IN_FLIGHT)
    answered: Counter[Any] = Counter()
    errors: list[dict[str, Any]] = []
    samples: list[tuple[int, int]] = []
    done = threading.Event()

    def read() -> None:
        count = -1  # the initialize reply is not one of the n
        for line in stdout:
            reply = json.loads(line)
            answered[reply.get("id")] += 1
            if is_error(reply):
                errors.append(reply)
            count += 1
            if count > 0 and count % 100 == 0:
                kb = rss_kb(proc.pid)
                if kb is not None:
                    samples.append((count, kb))
            if reply.get("id") != 0:
                window.release()
            if count >= n:
                done.set()
        for _ in range(MAX_IN_FLIGHT):  # the server is gone: never leave the sender blocked
            window.release()
        done.set()

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    ids = memory_ids(project)
    try:
        window.acquire()  # the initialize request takes a slot until its reply
        stdin.write(_line(0, "initialize", INITIALIZE))
        stdin.flush()
        start = time.perf_counter()
        for i in range(1, n + 1):
            window.acquire()
            if proc.poll() is not None:
                break  # died: the missing ids say so
            stdin.write(_line(i, *mixed_request(i, ids)))
            stdin.flush()
        done.wait(timeout=max(60.0, n / 5))
        seconds = time.perf_counter() - start
        end_kb = rss_kb(proc.pid)
    finally:
        with contextlib.suppress(OSError):  # a dead server's pipe
            stdin.close()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        reader.join(timeout=5)
        stdout.close()
    at_sample = next((kb for count, kb in samples if count >= sample_at), None)
    return {"requests": n, "sample_at": sample_at, "seconds": seconds, "rps": n / seconds,
            "errors": errors,
            "missing": [i for i in range(n + 1) if answered[i] == 0],
            "duplicates": [i for i, c in answered.items() if c > 1],
            "rss_samples_kb": samples, "rss_at_sample_kb": at_sample, "rss_end_kb": end_kb,
            "rss_peak_kb": max((kb for _, kb in samples), default=end_kb)}


def _line(id_: int, method: str, params: dict[str, Any]) -> bytes:
    message = {"jsonrpc": "2.0", "id": id_, "method": method, "params": params}
    return json.dumps(message).encode() + b"\n"


WRITER = """
import json, sys, time
from pathlib import Path
from engram.bench.load_bench import pseudo_words
from engram.proposals import api
from engram.workspace import resolve
roots = resolve(workspace=Path(sys.argv[1]))
tag, count = sys.argv[2], int(sys.argv[3])
times = []
for i in range(count):
    text = f"TYPE: knowledge | TEXT: Fact {pseudo_words(sum(map(ord, tag)) * 100003 + i)}"
    token = api.propose(roots, text).token
    start = time.perf_counter()
    outcome = api.commit(roots, token)
    times.append((time.perf_counter() - start) * 1000)
    if not outcome.ok:
        sys.exit(f"commit failed: {outcome.text}")
print(json.dumps(times))
"""


def commit_latency(project: Path, *, writers: int = 2, commits: int = 10,
                   env: dict[str, str] | None = None) -> dict[str, Any]:
    """p50/p95 of `api.commit` while `writers` processes commit to one workspace at once."""
    procs = [subprocess.Popen([sys.executable, "-c", WRITER, str(project), f"w{k}", str(commits)],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
             for k in range(writers)]
    times: list[float] = []
    for proc in procs:
        out, err = proc.communicate(timeout=300)
        if proc.returncode != 0:
            raise RuntimeError(f"commit writer failed: {err.decode(errors='replace')[-500:]}")
        times += json.loads(out)
    return {"writers": writers, "commits": len(times), "p50_ms": percentile(times, 50),
            "p95_ms": percentile(times, 95)}


def run(base: Path, sizes: list[int], runs: int = 10) -> dict[str, Any]:
    """The `load` suite: 1,000 memories, requests scaled by `runs` (quick: 1,500; full: 5,000)."""
    from engram.bench.store_bench import store_root

    project = store_root(base, 1000)
    n = 5000 if runs >= 10 else 1500
    load = pipelined(project, n, sample_at=min(1000, n // 3))
    load.pop("rss_samples_kb")
    load["errors"] = len(load["errors"])
    scratch = base / "load-commits"
    shutil.rmtree(scratch, ignore_errors=True)
    shutil.copytree(project, scratch)
    commits = commit_latency(scratch, writers=2, commits=max(5, runs * 2))
    shutil.rmtree(scratch, ignore_errors=True)
    return {"memories": 1000, "load": load, "commit": commits}


def render(res: dict[str, Any]) -> list[str]:
    load, commit = res["load"], res["commit"]

    def mb(kb: int | None) -> str:
        return f"{kb / 1024:.1f} MB" if kb else "n/a"

    return [
        f"One `engram-mcp` at {res['memories']:,} memories, {load['requests']:,} pipelined mixed "
        f"requests (load, search, resources/read, status; ≤ {MAX_IN_FLIGHT} in flight):", "",
        "| measure | value |", "|---|---:|",
        f"| throughput | {load['rps']:,.0f} requests/s |",
        f"| error replies | {load['errors']} |",
        f"| RSS at request {load['sample_at']:,} | {mb(load['rss_at_sample_kb'])} |",
        f"| RSS at the end | {mb(load['rss_end_kb'])} |",
        f"| RSS peak while streaming | {mb(load['rss_peak_kb'])} |",
        "", f"Commit latency (`proposals.api.commit`), {commit['writers']} concurrent writer "
        f"processes, {commit['commits']} commits:", "",
        "| p50 | p95 |", "|---:|---:|",
        f"| {commit['p50_ms']:.0f} ms | {commit['p95_ms']:.0f} ms |",
    ]


def suite(base: Path, sizes: list[int], runs: int) -> tuple[dict[str, Any], list[str]]:
    """The entry `report._lazy("load_bench")` calls."""
    res = run(base, sizes, runs)
    return res, render(res)
