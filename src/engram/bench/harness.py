"""Measurement helpers shared by every benchmark: timers, cold processes, peak memory, machine.

Benchmarks are measurements, never tests: nothing here asserts a number. Cold-process timings
run the real console entry points in a fresh interpreter and report the median of several runs.
"""

from __future__ import annotations

import os
import platform
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from engram.workspace import Roots


def median_ms(fn: Callable[[], object], runs: int = 20, warmup: int = 2) -> float:
    for _ in range(warmup):
        fn()
    samples = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        samples.append((time.perf_counter() - start) * 1000)
    return statistics.median(samples)


def percentile(samples: Sequence[float], p: float) -> float:
    ordered = sorted(samples)
    k = min(len(ordered) - 1, max(0, round(p / 100 * (len(ordered) - 1))))
    return ordered[k]


def engram_argv(*args: str) -> list[str]:
    """The CLI as a user runs it: the installed console script next to this interpreter."""
    script = Path(sys.executable).parent / "engram"
    return [str(script), *args] if script.exists() else [sys.executable, "-m", "engram", *args]


def cold_process_ms(argv: Sequence[str], runs: int = 10, env: dict[str, str] | None = None,
                    stdin: bytes | None = None) -> float:
    """Median wall time of a fresh process running `argv` to completion."""
    samples = []
    for i in range(runs + 1):
        start = time.perf_counter()
        subprocess.run(list(argv), input=stdin, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL, env=env, check=False)
        if i:  # the first run warms the OS file cache
            samples.append((time.perf_counter() - start) * 1000)
    return statistics.median(samples)


def peak_rss_mb_of(argv: Sequence[str], env: dict[str, str] | None = None) -> float:
    """Peak RSS of one child process, measured with wait4's rusage (0 on Windows: no rusage)."""
    if sys.platform == "win32":
        subprocess.run(list(argv), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                       env=env, check=False)
        return 0.0
    proc = subprocess.Popen(list(argv), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            env=env)
    _, _, usage = os.wait4(proc.pid, 0)
    proc.returncode = 0
    return usage.ru_maxrss / 1024


def self_peak_rss_mb() -> float:
    if sys.platform == "win32":
        return 0.0  # no getrusage on Windows
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def machine() -> str:
    cpu = platform.processor() or platform.machine()
    try:
        with Path("/proc/cpuinfo").open(encoding="utf-8") as f:
            for line in f:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    if sys.platform == "win32":
        return (f"{cpu}, {os.cpu_count()} cores, {platform.system()} "
                f"{platform.release()}, Python {platform.python_version()}")
    mem = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30
    return (f"{cpu}, {os.cpu_count()} cores, {mem:.0f} GiB, {platform.system()} "
            f"{platform.release()}, Python {platform.python_version()}")


def today() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")


def semantic_table(path: Path) -> Path:
    """The vector table `--semantic` measures with, checked first: without numpy or a valid
    table the bench says how to get them (coded errors) instead of measuring lexical routing."""
    from engram.errors import UsageError
    from engram.search.semantic_table import read_table

    try:
        import numpy  # noqa: F401
    except ImportError as exc:
        raise UsageError("--semantic needs numpy", code="semantic.no_numpy",
                         hint="pip install 'engram-protocol[semantic]'") from exc
    read_table(path)  # VectorTableError names scripts/build-vectors.py
    return path


def enable_semantic(roots: Roots, table: Path) -> None:
    """Turn the semantic extra on in a scratch store: the table where Engram looks for it
    (`Roots.vectors_file`) and `semantic.enabled` in the workspace config."""
    import json
    import shutil

    target = roots.vectors_file
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(table, target)
    config = roots.workspace.config_file
    try:
        data = json.loads(config.read_text(encoding="utf-8"))
    except FileNotFoundError:
        data = {}
    data.setdefault("semantic", {})["enabled"] = True
    config.write_text(json.dumps(data), encoding="utf-8")
