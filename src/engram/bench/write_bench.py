"""Write-path measurements: what saving one memory costs as the store grows.

Per size, on a copy of the generated store (commits change it): the first proposal, which
builds the index's cache of memory words; then in-process `propose` and `commit` p50 over
distinct knowledge facts; then a cold `engram save --force "<fact>"` process, the whole
write a user types (parse, verdict against every memory, file, hash, changelog). Then what
the safety scan costs for one 2 KB memory (every proposal, and every file whose bytes Engram
has not seen, is scanned; docs/safety.md "Prompt injection").
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


SCAN_SAMPLE = (
    "---\nid: deploy-checklist\ntype: rule\ntags: [deploy, release]\n---\n"
    "# Deploy checklist\n\n"
    "- Run `make test` and `ruff check` before tagging a release.\n"
    "- Bump the version in `pyproject.toml`; the changelog entry goes under Unreleased.\n"
    "- Deploy to staging first, then wait for the smoke suite (about 6 minutes).\n"
    "- Never deploy on Fridays after 15:00; on-call is thin over the weekend.\n"
    "```python\nsettings = load_settings(env)\ntoken = request.headers['X-Token']\n```\n"
) * 6


def scan_cost(runs: int = 200) -> tuple[float, float]:
    """Median and best milliseconds to scan a 2 KB memory (secrets, injection, invisible)."""
    from engram.safety.scan import scan_text

    text = SCAN_SAMPLE[:2048]
    scan_text(text)  # compiled patterns and tables loaded
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        scan_text(text)
        times.append((time.perf_counter() - t0) * 1000)
    return statistics.median(times), min(times)


def suite(base: Path, sizes: list[int], runs: int) -> tuple[dict[Any, Any], list[str]]:
    from engram.bench.store_bench import store_root

    results: dict[Any, Any] = {}
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
              for n, r in results.items() if isinstance(n, int)]
    lines += ["", "One writer, in process unless marked cold; each proposal is judged against "
              "every memory of the root (docs/saving.md), read through the derived index."]
    p50, best = scan_cost()
    results["scan_2kb"] = {"p50_ms": p50, "best_ms": best}
    lines += ["", f"The safety scan of one 2 KB memory: p50 {p50:.2f} ms, best {best:.2f} ms "
              "(every proposal, and every file whose bytes are new; cached by file hash)."]
    return results, lines
