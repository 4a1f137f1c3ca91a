"""Cold-process latency of `engram agent-hook --host claude` at N memories (target: 200 ms).

Builds a temp project with N synthetic v3 memories through the store's write path, warms the
derived index once (as the first command in a real project would), then starts a fresh
`python -m engram agent-hook` process per run for a SessionStart and a UserPromptSubmit payload
and reports median and p95 wall time. A measurement, never a test.

    python benchmarks/hook_cold_start.py [--memories 1000] [--runs 15]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

WORDS = ["release", "smoke", "deploy", "billing", "refund", "invoice", "login", "cache", "queue",
         "retry", "schema", "migration", "index", "docker", "ci", "lint", "format", "tests",
         "flaky", "timeout", "api", "auth", "token", "logging", "metrics", "alert", "backup",
         "restore", "python", "node", "rust", "go", "build", "package", "version", "tag",
         "branch", "review"]


def build(project: Path, n: int) -> None:
    from engram.store.format import render_memory
    from engram.store.repo import Change, Store
    from engram.workspace import resolve

    rnd = random.Random(7)
    roots = resolve(workspace=project)
    roots.workspace.path.mkdir(parents=True)
    changes = []
    for i in range(n):
        kind = ("rule", "skill", "knowledge")[i % 3]
        tags = rnd.sample(WORDS, 3)
        title = f"{tags[0].capitalize()} {tags[1]} note {i}"
        meta = {"id": f"m{i}-{tags[0]}-{tags[1]}", "type": kind, "tags": tags,
                "created": "2026-01-01", "updated": "2026-01-01", "confidence": "high",
                "scope": "workspace", "source": "manual", "revision": 1}
        body = "- " + " ".join(rnd.choices(WORDS, k=25)) + "."
        changes.append(Change(f"{kind}s/{meta['id']}.md".replace("knowledges", "knowledge"),
                              render_memory(meta, title, body)))
    Store(roots.workspace).write_files(changes, "benchmark fixture")


def run_hook(payload: dict[str, str], env: dict[str, str]) -> float:
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "engram", "agent-hook", "--host", "claude"],
                          input=json.dumps(payload), capture_output=True, text=True, env=env,
                          check=True)
    elapsed = time.perf_counter() - start
    json.loads(done.stdout)
    return elapsed * 1000


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--memories", type=int, default=1000)
    ap.add_argument("--runs", type=int, default=15)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        project, home = Path(tmp) / "project", Path(tmp) / "home"
        project.mkdir()
        home.mkdir()
        env = {**os.environ, "HOME": str(home), "ENGRAM_CONFIG_DIR": str(home / ".engram"),
               "ENGRAM_NO_AUTO_UPGRADE": "1", "ENGRAM_SESSION_OBJECTIVE": "fix flaky login tests"}
        # An installed package has byte-code; without it every cold run would time compiling.
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        os.environ.update({k: env[k] for k in ("HOME", "ENGRAM_CONFIG_DIR")})
        build(project, args.memories)
        start = {"hook_event_name": "SessionStart", "session_id": "s", "cwd": str(project),
                 "source": "startup"}
        run_hook(start, env)  # warms the derived index, as any first command would
        results = {}
        prompt = {**start, "hook_event_name": "UserPromptSubmit",
                  "prompt": "tag the release after smoke tests"}
        for name, payload in (("SessionStart", start), ("UserPromptSubmit", prompt)):
            times = sorted(run_hook(payload, env) for _ in range(args.runs))
            results[name] = (statistics.median(times), times[int(len(times) * 0.95) - 1])
        print(f"agent-hook cold process, {args.memories} memories, {args.runs} runs "
              f"(python {sys.version.split()[0]}):")
        for name, (med, p95) in results.items():
            print(f"  {name:<17} median {med:6.1f} ms   p95 {p95:6.1f} ms")


if __name__ == "__main__":
    main()
