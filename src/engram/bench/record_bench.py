"""What the approval record (store/record.py, docs/safety.md Class 4) costs the read path.

For each size a synthetic store is committed in a git repository whose `refs/remotes/origin/main`
points at that commit (a clone), and the record is seeded by a first read. Then:

- every read: `Store.trusted_hashes()` (the hashes file read once, its digest compared with the
  record's `.seen`) against `Store.read_hashes()` alone; the difference is what a CLI command
  pays (the MCP server keeps the answer while the two files' stats hold);
- after an Engram write: the hashes file changed, every line is in the record (one read of the
  record, `.seen` written);
- after a pull: one line the record does not hold, found at the remote-tracking tip (two git
  processes, once per change of the hashes file).

Measures only: nothing here asserts a target.
"""

from __future__ import annotations

import shutil
import subprocess
import time
from pathlib import Path
from typing import Any

from engram.bench.latency import _p50
from engram.gitrun import git_argv

GIT_USER = ("-c", "user.name=bench", "-c", "user.email=bench@example.com")


def _timed(fn: Any, runs: int, before: Any = None) -> float:
    samples = []
    for _ in range(runs):
        if before is not None:
            before()
        t0 = time.perf_counter()
        fn()
        samples.append((time.perf_counter() - t0) * 1000)
    return _p50(samples)


def measure(base: Path, n: int, runs: int) -> dict[str, Any]:
    from engram.bench.synth import generate
    from engram.store.record import Record
    from engram.store.repo import Store
    from engram.workspace import Root

    project = base / f"record-{n}"
    root_path = project / ".agents" / ".engram"
    root_path.mkdir(parents=True)
    generate(root_path, n)
    for args in (["init", "-q"], ["add", "-A"], ["commit", "-qm", "memory"],
                 ["update-ref", "refs/remotes/origin/main", "HEAD"]):
        subprocess.run(git_argv(project, *GIT_USER, *args), check=True, capture_output=True)
    state = base / f"record-state-{n}"
    store = Store(Root(root_path, "workspace"), state)
    store.trusted_hashes()  # first sight seeds the record
    rec = Record(state, root_path)
    hashes, seen = store.read_hashes()
    baseline = _timed(store.read_hashes, runs)
    every_read = _timed(store.trusted_hashes, runs)
    after_write = _timed(lambda: rec.unexplained(hashes, seen), runs,
                         before=lambda: rec.seen_file.unlink(missing_ok=True))
    # One line from "a teammate": on the remote tip, not in the record.
    rel = sorted(hashes)[0]
    lines = rec.lines() or {}
    lines[rel] = ["0" * 64]
    saved = base / f"record-{n}.json"
    rec._save(lines, None)  # noqa: SLF001 - the bench sets the record's state directly
    shutil.copyfile(rec.file, saved)

    def reset() -> None:
        shutil.copyfile(saved, rec.file)
        rec.seen_file.unlink(missing_ok=True)

    after_pull = _timed(lambda: rec.unexplained(hashes, seen), max(runs // 3, 3), before=reset)
    if rec.unexplained(hashes, seen):  # the teammate's line must be found and kept
        raise RuntimeError("record bench: the line on the remote tip was not found")
    return {"n": n, "read_hashes_p50_ms": baseline, "every_read_p50_ms": every_read,
            "record_p50_ms": every_read - baseline, "after_write_p50_ms": after_write,
            "after_pull_p50_ms": after_pull}


def render(results: list[dict[str, Any]]) -> list[str]:
    lines = ["| memories | read hashes file p50 (ms) | with the record, every read p50 (ms) | "
             "record's share (ms) | after an Engram write p50 (ms) | after a pull p50 (ms) |",
             "|---|---|---|---|---|---|"]
    lines += [f"| {r['n']:,} | {r['read_hashes_p50_ms']:.2f} | {r['every_read_p50_ms']:.2f} | "
              f"{r['record_p50_ms']:.2f} | {r['after_write_p50_ms']:.2f} | "
              f"{r['after_pull_p50_ms']:.1f} |" for r in results]
    lines += ["", "Every read is what a CLI command pays; the MCP server keeps the answer while "
              "the stats of `memory.hashes.json` and the record's `.seen` hold (one `stat` "
              "each). In-process `load` p50 (latency suite) includes it."]
    return lines


def suite(base: Path, sizes: list[int], runs: int) -> tuple[list[dict[str, Any]], list[str]]:
    """The `engram bench` runner interface (engram.bench.report.RUNNERS)."""
    results = [measure(base, n, max(runs * 10, 10)) for n in sizes]
    return results, render(results)
