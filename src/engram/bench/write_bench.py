"""Write-path measurements: what saving one memory costs as the store grows.

Per size, on a copy of the generated store (commits change it): the first proposal, which
builds the index's cache of memory words; then in-process `propose` and `commit` p50 over
distinct knowledge facts; then a cold `engram save --force "<fact>"` process, the whole
write a user types (parse, verdict against every memory, file, hash, changelog).
"""

from __future__ import annotations

import shutil
import statistics
import subprocess
import time
from pathlib import Path
from typing import Any

from engram.bench.harness import engram_argv
from engram.bench.load_bench import pseudo_words


def _fact(n: int) -> str:
    return f"TYPE: knowledge | TEXT: Fact {pseudo_words(424243 + n)}"


def measure(project: Path, runs: int, env: dict[str, str] | None = None) -> dict[str, float]:
    from engram.proposals import api
    from engram.search.api import load
    from engram.workspace import resolve

    roots = resolve(workspace=project)
    load(roots, query="warm the index")  # index built, as in a working checkout
    start = time.perf_counter()
    api.propose(roots, _fact(0))
    first_ms = (time.perf_counter() - start) * 1000
    proposes, commits = [], []
    for i in range(1, runs + 1):
        t0 = time.perf_counter()
        token = api.propose(roots, _fact(i)).token
        t1 = time.perf_counter()
        out = api.commit(roots, token)
        commits.append((time.perf_counter() - t1) * 1000)
        proposes.append((t1 - t0) * 1000)
        if not out.ok:
            raise RuntimeError(f"bench commit failed: {out.text}")
    cold = []
    for i in range(runs + 1, runs + 1 + max(3, runs // 2)):
        t0 = time.perf_counter()
        subprocess.run([*engram_argv("save", "--force", "--workspace", str(project)),
                        _fact(i)], check=True, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL, env=env)
        cold.append((time.perf_counter() - t0) * 1000)
    return {"first_propose_ms": first_ms, "propose_p50_ms": statistics.median(proposes),
            "commit_p50_ms": statistics.median(commits),
            "cold_save_ms": statistics.median(cold)}


def suite(base: Path, sizes: list[int], runs: int) -> tuple[dict[int, Any], list[str]]:
    from engram.bench.store_bench import store_root

    results: dict[int, Any] = {}
    for n in sizes:
        scratch = base / f"writes-{n}"
        shutil.rmtree(scratch, ignore_errors=True)
        shutil.copytree(store_root(base, n), scratch, symlinks=True)
        try:
            results[n] = measure(scratch, runs)
        finally:
            shutil.rmtree(scratch, ignore_errors=True)
    lines = ["| memories | first proposal (caches memory words) | `propose` p50 | "
             "`commit` p50 | cold `engram save --force` |", "|---:|---:|---:|---:|---:|"]
    lines += [f"| {n:,} | {r['first_propose_ms']:.0f} ms | {r['propose_p50_ms']:.0f} ms | "
              f"{r['commit_p50_ms']:.0f} ms | {r['cold_save_ms']:.0f} ms |"
              for n, r in results.items()]
    lines += ["", "One writer, in process unless marked cold; each proposal is judged against "
              "every memory of the root (docs/saving.md), read through the derived index."]
    return results, lines
