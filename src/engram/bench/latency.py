"""Read-path speed at 100 / 1,000 / 10,000 memories (BENCHMARKS.md, issue #3).

For each size a synthetic store (`engram.bench.synth.generate`) is written to a scratch project
and indexed once (the cold build is reported too). Then, per size:

- in-process `load` p50: `engram.search.api.load(roots, query=…, session=…)` called repeatedly
  in one process over one read session, as the MCP server does (each call is one request of
  the session: it resolves config, checks index freshness, routes,
  reads and guards the pack's files and renders it), over a fixed set of task phrasings;
- in-process `search` p50, the same way (and the CPU time of `load`, which other work on a shared
  machine disturbs less than wall time);
- cold `engram load "<task>"` wall time: a fresh interpreter per run, median of several runs
  (the console script next to this interpreter, bytecode caching allowed as in an install);
- peak RSS of one cold `engram load` process;
- pack token sizes (mean and max of `data.tokens`).

Measures only: nothing here asserts a target.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from engram.bench.harness import cold_process_ms, engram_argv
from engram.config import read_env
from engram.workspace import Roots, resolve

SIZES = (100, 1_000, 10_000)
TASKS = (
    "add a database migration for the invoices table",
    "fix the flaky frontend test in CI",
    "rotate the API rate limit settings",
    "deploy the worker service to production",
    "review the pull request for the payment endpoint",
)


@dataclass
class SizeResult:
    n: int
    build_s: float
    load_p50_ms: float
    load_cpu_p50_ms: float
    search_p50_ms: float
    cold_load_ms: float
    peak_rss_mb: float
    tokens_mean: float
    tokens_max: int

    def row(self) -> str:
        return (f"| {self.n:,} | {self.load_p50_ms:.1f} | {self.load_cpu_p50_ms:.1f} | "
                f"{self.search_p50_ms:.1f} | "
                f"{self.cold_load_ms:.0f} | {self.peak_rss_mb:.0f} | "
                f"{self.tokens_mean:.0f} / {self.tokens_max} | {self.build_s:.1f} |")


def _env(base: Path, project: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("ENGRAM_")}
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # an installed package has its bytecode cached
    env.update(HOME=str(base), ENGRAM_CONFIG_DIR=str(base / "config"),
               ENGRAM_WORKSPACE=str(project), ENGRAM_NO_AUTO_UPGRADE="1")
    return env


_RSS_PROBE = ("import resource, subprocess, sys; subprocess.run(sys.argv[1:], "
              "stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL); "
              "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)")


def child_peak_rss_mb(argv: list[str], env: dict[str, str]) -> float:
    """Peak RSS of `argv`, started from a small probe interpreter.

    A child forked straight from this (large) benchmark process inherits its page table, and
    Linux carries that high-water mark across exec into the child's ru_maxrss; forking from a
    fresh interpreter measures the command alone.
    """
    out = subprocess.run([sys.executable, "-c", _RSS_PROBE, *argv], env=env,
                         capture_output=True, text=True, check=False)
    return int(out.stdout.strip() or 0) / 1024


def _p50(samples: list[float]) -> float:
    return statistics.median(samples)


def measure(n: int, runs: int = 30, cold_runs: int = 7, workdir: Path | None = None,
            vectors: Path | None = None) -> SizeResult:
    from engram.bench.synth import generate
    from engram.search.api import ReadSession, load, search

    with tempfile.TemporaryDirectory(prefix=f"engram-lat-{n}-", dir=workdir) as tmp:
        base = Path(tmp)
        project = base / "project"
        root = project / ".agents" / ".engram"
        root.mkdir(parents=True)
        generate(root, n)
        roots: Roots = resolve(read_env({"HOME": str(base),
                                         "ENGRAM_CONFIG_DIR": str(base / "config")},
                                        cwd=project))
        if vectors is not None:  # the semantic extra on (`engram bench --semantic`)
            from engram.bench.harness import enable_semantic

            enable_semantic(roots, vectors)
        session = ReadSession(roots, long_lived=True)  # the MCP server holds one
        start = time.perf_counter()
        load(roots, query=TASKS[0], session=session)  # the first call builds the derived index
        build_s = time.perf_counter() - start
        loads, cpus, searches, tokens = [], [], [], []
        for i in range(runs):
            task = TASKS[i % len(TASKS)]
            t0, c0 = time.perf_counter(), time.process_time()
            out = load(roots, query=task, session=session)
            loads.append((time.perf_counter() - t0) * 1000)
            cpus.append((time.process_time() - c0) * 1000)
            tokens.append(int(out.data["tokens"]))
            t0 = time.perf_counter()
            search(roots, task, session=session)
            searches.append((time.perf_counter() - t0) * 1000)
        session.close()
        env = _env(base, project)
        argv = engram_argv("load", TASKS[1])
        cold = cold_process_ms(argv, runs=cold_runs, env=env)
        rss = child_peak_rss_mb(argv, env)
    return SizeResult(n=n, build_s=build_s, load_p50_ms=_p50(loads), load_cpu_p50_ms=_p50(cpus),
                      search_p50_ms=_p50(searches), cold_load_ms=cold, peak_rss_mb=rss,
                      tokens_mean=statistics.mean(tokens), tokens_max=max(tokens))


def run(sizes: tuple[int, ...] = SIZES) -> list[SizeResult]:
    return [measure(n) for n in sizes]


def render_markdown(results: list[SizeResult]) -> str:
    lines = ["| memories | in-process load p50 (ms) | its CPU time p50 (ms) | "
             "in-process search p50 (ms) | "
             "cold `engram load` (ms) | peak RSS (MB) | pack tokens mean / max | "
             "first index build (s) |", "|---|---|---|---|---|---|---|---|"]
    lines += [r.row() for r in results]
    return "\n".join(lines) + "\n"


def as_dicts(results: list[SizeResult]) -> list[dict[str, Any]]:
    return [vars(r) for r in results]


def suite(base: Path, sizes: list[int], runs: int,
          vectors: Path | None = None) -> tuple[list[dict[str, Any]], list[str]]:
    """The `engram bench` runner interface (engram.bench.report.RUNNERS); `vectors` turns the
    semantic extra on."""
    results = [measure(n, runs=max(runs * 10, 10), cold_runs=max(runs // 2, 3), workdir=base,
                       vectors=vectors) for n in sizes]
    return as_dicts(results), render_markdown(results).splitlines()


def main() -> None:
    import sys

    sizes = tuple(int(a) for a in sys.argv[1:]) or SIZES
    print(render_markdown(run(sizes)))


if __name__ == "__main__":
    main()
