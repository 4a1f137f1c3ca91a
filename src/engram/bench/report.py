"""Run the selected benchmark suites and assemble the Markdown report for BENCHMARKS.md."""

from __future__ import annotations

import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from engram.bench.harness import machine, today
from engram.errors import UsageError

Runner = Callable[[Path, list[int], int], tuple[Any, list[str]]]


def run_all(sizes: list[int], suites: list[str], *, quick: bool, write: str | None,
            workdir: str | None,
            fixtures: list[Path] | None = None,
            vectors: Path | None = None) -> tuple[str, dict[str, Any]]:
    """Run `suites` in order; `fixtures` replaces the retrieval suite's default fixture sets;
    `vectors` (a checked table) turns the semantic extra on in the retrieval and latency
    stores."""
    unknown = [s for s in suites if s not in RUNNERS]
    if unknown:
        raise UsageError(f"unknown benchmark suite(s): {', '.join(unknown)}",
                         hint=f"choose from {', '.join(RUNNERS)}")
    runs = 3 if quick else 10
    data: dict[str, Any] = {"machine": machine(), "date": today(), "sizes": sizes}
    flags = (" --quick" if quick else "") + (" --semantic" if vectors else "")
    lines = ["# Benchmarks", "", f"Measured {data['date']} on {data['machine']} by "
             f"`engram bench{flags}`.", ""]
    with tempfile.TemporaryDirectory(prefix="engram-bench-") as tmp:
        base = Path(workdir or tmp)
        base.mkdir(parents=True, exist_ok=True)
        for suite in suites:
            result: Any
            if suite == "retrieval" and (fixtures is not None or vectors is not None):
                from engram.bench import retrieval

                result, rendered = retrieval.suite(base, sizes, runs, fixtures, vectors=vectors)
            elif suite == "latency" and vectors is not None:
                from engram.bench import latency

                result, rendered = latency.suite(base, sizes, runs, vectors=vectors)
            else:
                result, rendered = RUNNERS[suite](base, sizes, runs)
            data[suite] = result
            lines += [f"## {TITLES[suite]}", "", *rendered, ""]
    text = "\n".join(lines)
    if write:
        Path(write).write_text(text + "\n", encoding="utf-8")
    return text, data


def _store(base: Path, sizes: list[int], runs: int) -> tuple[Any, list[str]]:
    from engram.bench import store_bench

    res = store_bench.run(base, sizes, runs)
    return res, store_bench.render(res)


def _lazy(module: str) -> Runner:
    def runner(base: Path, sizes: list[int], runs: int) -> tuple[Any, list[str]]:
        import importlib

        suite: Runner = importlib.import_module(f"engram.bench.{module}").suite
        return suite(base, sizes, runs)

    return runner


RUNNERS: dict[str, Runner] = {
    "store": _store,
    "retrieval": _lazy("retrieval"),
    "latency": _lazy("latency"),
    "mcp": _lazy("mcp_bench"),
    "hooks": _lazy("hook_bench"),
    "load": _lazy("load_bench"),
    "writes": _lazy("write_bench"),
    "stale": _lazy("stale_bench"),
    "takecontrol": _lazy("takecontrol_bench"),
    "record": _lazy("record_bench"),
}
TITLES = {
    "store": "Store: index build, refresh check, cold start",
    "retrieval": "Routing quality on fixture sets (vs a grep baseline)",
    "latency": "Read path: load latency, cold process, peak memory, pack size",
    "mcp": "MCP server: cold start, tools/call round trip, idle memory",
    "load": "Load: server throughput, RSS over a 5,000-request run, commit latency under 2 writers",
    "hooks": "Claude Code hook: cold `engram agent-hook` process per payload",
    "writes": "Write path: proposing and committing one memory",
    "stale": "Code anchors: state accuracy and `engram stale` on a large repository",
    "takecontrol": "Take control: adopting existing guidance (six styles) and its speed",
    "record": "Approval record: what it costs the read path",
}
