"""Staleness benchmark: is each anchor state found (precision, recall, false alarms), and how
long `engram stale` takes on a large repository.

Accuracy: a generated history renames, deletes and edits files after the memories' confirmation
date (and edits others before it); each memory's expected state is known, so the found states
are scored per state, and every memory whose anchors did not change counts as a false alarm if
it is reported. Speed: 10,000 memories anchored into a repository of 100,000 tracked files and
5,000 commits; a cold `engram stale` (git read, cache built) and a warm one (cache current),
and in-process `load` p50 on that store.
"""

from __future__ import annotations

import random
import shutil
import statistics
import subprocess
import time
from pathlib import Path
from typing import Any

from engram.bench.harness import engram_argv
from engram.bench.stale_repo import History, write_memories

STATES = ("moved", "gone", "changed")
CONFIRMED = "2026-06-01"


def _file(i: int) -> str:
    return f"src/pkg{i % 100:03d}/mod{i:06d}.py"


def _source(i: int, version: int = 0) -> str:
    return f"def handler_{i}():\n    return {version}\n\nclass Model{i}:\n    pass\n"


def accuracy_repo(path: Path, seed: int = 11) -> dict[str, str]:
    """400 memories with known expected states; returns {memory id: expected state}."""
    rng = random.Random(seed)
    n = 400
    h = History()
    h.commit("2026-01-01", [("M", _file(i), _source(i)) for i in range(n)])
    h.commit("2026-03-01", [("M", _file(i), _source(i, 1)) for i in range(300, 340)])
    expected: dict[str, str] = {}
    items: list[tuple[str, str, dict[str, Any]]] = []
    plan = (["moved"] * 60 + ["moved2"] * 20 + ["gone"] * 50 + ["changed"] * 50
            + ["symbol"] * 20 + ["ok"] * 200)
    rng.shuffle(plan)
    later: list[tuple[str, ...]] = []
    deletes: list[tuple[str, ...]] = []
    for i, kind in enumerate(plan):
        f = _file(i)
        mid = f"memory-{i:04d}"
        body = f"- The handler lives in `{f}`; keep it small."
        if kind == "symbol":
            body = f"- The model is `{f}::Model{i}`."
            later.append(("M", f, f"def handler_{i}():\n    return 9\n"))
            expected[mid] = "gone"
        elif kind in ("moved", "moved2"):
            later.append(("R", f, f"lib/moved/m{i:06d}.py"))
            if kind == "moved2":
                deletes.append(("R", f"lib/moved/m{i:06d}.py", f"core/m{i:06d}.py"))
            expected[mid] = "moved"
        elif kind == "gone":
            deletes.append(("D", f))
            expected[mid] = "gone"
        elif kind == "changed":
            later.append(("M", f, _source(i, 2)))
            expected[mid] = "changed"
        else:
            if i % 5 == 0:
                body += " Scripts such as `tools/never-existed.sh` are not in the repository."
            expected[mid] = "ok"
        items.append((mid, body, {"last_confirmed": CONFIRMED}))
    for k in range(0, len(later), 25):
        h.commit("2026-07-01", later[k:k + 25])
    for k in range(0, len(deletes), 25):
        h.commit("2026-08-01", deletes[k:k + 25])
    h.write(path)
    write_memories(path, items)
    return expected


def score(expected: dict[str, str], found: dict[str, str]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for s in STATES:
        tp = sum(1 for m, e in expected.items() if e == s and found.get(m, "ok") == s)
        fp = sum(1 for m, e in expected.items() if e != s and found.get(m, "ok") == s)
        fn = sum(1 for m, e in expected.items() if e == s and found.get(m, "ok") != s)
        out[s] = {"precision": tp / (tp + fp) if tp + fp else 1.0,
                  "recall": tp / (tp + fn) if tp + fn else 1.0, "n": tp + fn}
    unchanged = [m for m, e in expected.items() if e == "ok"]
    alarms = sum(1 for m in unchanged if found.get(m, "ok") != "ok")
    out["false_alarm_rate"] = alarms / len(unchanged) if unchanged else 0.0
    out["unchanged"] = len(unchanged)
    return out


def run_accuracy(base: Path) -> dict[str, Any]:
    from engram.anchors.api import scan
    from engram.workspace import resolve

    path = base / "stale-accuracy"
    shutil.rmtree(path, ignore_errors=True)
    expected = accuracy_repo(path)
    found, _ = scan(resolve(workspace=path))
    return score(expected, {st.id: st.state for st in found})


def speed_repo(path: Path, files: int, commits: int, memories: int, seed: int = 5) -> None:
    rng = random.Random(seed)
    h = History()
    h.commit("2026-01-01", [("M", _file(i), _source(i)) for i in range(files)])
    alive = list(range(files))
    names = {i: _file(i) for i in range(files)}
    for c in range(1, commits):
        day = f"2026-{1 + c * 11 // commits:02d}-{1 + c % 27:02d}"
        ops: list[tuple[str, ...]] = []
        for i in rng.sample(alive, 3):
            ops.append(("M", names[i], _source(i, c)))
        if c % 10 == 0:
            i = rng.choice(alive)
            new = f"lib/r{c}/mod{i:06d}.py"
            ops = [o for o in ops if o[1] != names[i]] + [("R", names[i], new)]
            names[i] = new
        if c % 25 == 0:
            i = rng.choice(alive)
            ops = [o for o in ops if o[1] != names[i]] + [("D", names[i])]
            alive.remove(i)
        h.commit(day, ops)
    h.write(path)
    items = []
    for m in range(memories):
        a, b = rng.randrange(files), rng.randrange(files)
        items.append((f"memory-{m:05d}", f"- See `{_file(a)}` and `{_file(b)}::handler_{b}`.",
                      {"last_confirmed": CONFIRMED}))
    write_memories(path, items)


def _timed(argv: list[str]) -> float:
    t0 = time.perf_counter()
    subprocess.run(argv, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return (time.perf_counter() - t0) * 1000


def run_speed(base: Path, files: int, commits: int, memories: int, runs: int) -> dict[str, Any]:
    from engram.search.api import load
    from engram.workspace import resolve

    path = base / "stale-speed"
    shutil.rmtree(path, ignore_errors=True)
    t0 = time.perf_counter()
    speed_repo(path, files, commits, memories)
    gen_s = time.perf_counter() - t0
    argv = engram_argv("stale", "--json", "--workspace", str(path))
    subprocess.run(engram_argv("load", "warm the index", "--workspace", str(path)),
                   check=True, stdout=subprocess.DEVNULL)
    cache = path / ".agents" / ".engram" / ".cache" / "anchors.sqlite"
    cold = []
    for _ in range(max(2, runs // 3)):
        cache.unlink(missing_ok=True)
        cold.append(_timed(argv))
    warm = [_timed(argv) for _ in range(runs)]
    roots = resolve(workspace=path)
    load(roots, query="handler model")
    samples = []
    for i in range(runs * 5):
        t = time.perf_counter()
        load(roots, query=f"handler {i} model")
        samples.append((time.perf_counter() - t) * 1000)
    return {"files": files, "commits": commits, "memories": memories, "generate_s": gen_s,
            "stale_cold_ms": statistics.median(cold), "stale_warm_ms": statistics.median(warm),
            "load_p50_ms": statistics.median(samples)}


def suite(base: Path, sizes: list[int], runs: int) -> tuple[dict[str, Any], list[str]]:
    acc = run_accuracy(base)
    quick = runs < 10
    speed = run_speed(base, 20000 if quick else 100000, 1000 if quick else 5000,
                      max(sizes) if sizes else 10000, runs)
    lines = ["| state | memories | precision | recall |", "|---|---:|---:|---:|"]
    lines += [f"| {s} | {acc[s]['n']} | {acc[s]['precision']:.3f} | {acc[s]['recall']:.3f} |"
              for s in STATES]
    lines += ["", f"False alarms on the {acc['unchanged']} memories whose anchors did not "
              f"change: {acc['false_alarm_rate']:.3f} (target 0). Targets: precision and "
              "recall ≥ 0.95 for each state.", "",
              "| tracked files | commits | memories | `engram stale` cold (git read, cache "
              "built) | `engram stale` warm | in-process `load` p50 |",
              "|---:|---:|---:|---:|---:|---:|",
              f"| {speed['files']:,} | {speed['commits']:,} | {speed['memories']:,} | "
              f"{speed['stale_cold_ms']:.0f} ms | {speed['stale_warm_ms']:.0f} ms | "
              f"{speed['load_p50_ms']:.1f} ms |", "",
              f"Target: `engram stale` ≤ 1 s at 10,000 memories, 100,000 files, 5,000 commits. "
              f"(Generating the repository took {speed['generate_s']:.0f} s.)"]
    return {"accuracy": acc, "speed": speed}, lines
