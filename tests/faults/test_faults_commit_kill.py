"""kill -9 a process doing real commits (propose + commit, or `engram save-session --force`)
at random points, 50 times: every file stays a whole version, the hashes file and the pending
approvals stay valid JSON, `verify` names at most the files of the interrupted commit, and the
next command leaves no temp file behind."""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from engram.bench.load_bench import pseudo_words
from engram.store import integrity
from engram.store.fileio import TMP_PREFIX
from engram.store.repo import Store
from engram.workspace import Root, resolve
from tests.conftest import REPO, engram_cmd, subprocess_env

pytestmark = pytest.mark.slow
PER_COMMIT = 2  # candidates per proposal: the most files one interrupted commit can touch

WRITER = textwrap.dedent("""
    import sys
    from pathlib import Path
    from engram.bench.load_bench import pseudo_words
    from engram.proposals import api
    from engram.workspace import resolve
    roots = resolve(workspace=Path(sys.argv[1]))
    base = int(sys.argv[2])
    print("ready", flush=True)
    for i in range(base, base + 1000):
        text = (f"TYPE: knowledge | TEXT: Fact {pseudo_words(2 * i)}\\n"
                f"TYPE: rule | TEXT: Always {pseudo_words(2 * i + 1)}")
        api.commit(roots, api.propose(roots, text).token)
""")


def _kill_api_writer(project: Path, cycle: int, rng: random.Random,
                     env: dict[str, str]) -> None:
    proc = subprocess.Popen([sys.executable, "-c", WRITER, str(project), str(cycle * 1000)],
                            env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    assert proc.stdout is not None
    proc.stdout.readline()  # imports done: from here on it proposes and commits in a loop
    time.sleep(rng.uniform(0.0, 0.25))
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    proc.stdout.close()


def _kill_cli_writer(cycle: int, rng: random.Random, env: dict[str, str]) -> None:
    text = (f"TYPE: knowledge | TEXT: Cli {pseudo_words(10**6 + 2 * cycle)}\n"
            f"TYPE: rule | TEXT: Never {pseudo_words(10**6 + 2 * cycle + 1)}")
    proc = subprocess.Popen([*engram_cmd(), "save-session", "--force", text], env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    time.sleep(rng.uniform(0.05, 0.6))  # start-up, proposal and commit all get hit
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()


def _check_after_kill(project: Path, root: Path, since_ns: int) -> int:
    """Assert the invariants; return how many files verify named (0 after a clean stop)."""
    json.loads((root / "memory.hashes.json").read_text(encoding="utf-8"))
    pending = resolve(workspace=project).pending_file
    if pending.exists():
        json.loads(pending.read_text(encoding="utf-8"))
    store = Store(Root(root, "workspace"))
    assert store.scan().invalid == []  # every memory file parses: a whole version
    outcome = integrity.verify(resolve(workspace=project))  # "the next command"
    assert not list(root.rglob(f"{TMP_PREFIX}*"))
    problems = [f for f in outcome.data["files"] if f["status"] != "OK"]
    assert len(problems) <= PER_COMMIT, problems
    for f in problems:
        assert f["status"] in {"MISMATCH", "MISSING HASH", "UNRECORDED"}, f
        # Only a file of the interrupted commit: written after the previous check.
        assert (root / f["file"]).stat().st_mtime_ns >= since_ns, f
    if problems:
        integrity.rehash(resolve(workspace=project))
    return len(problems)


def test_kill_9_during_real_commits_keeps_whole_files_and_names_only_the_interrupted_ones(
        project: Path) -> None:
    env = subprocess_env(PYTHONPATH=f"{REPO / 'src'}:{REPO}")
    subprocess.run([*engram_cmd(), "init"], env=env, check=True, capture_output=True)
    root = project / ".agents" / ".engram"
    rng = random.Random(20261202)
    runs = int(os.environ.get("ENGRAM_FAULT_RUNS", "50"))
    named = 0
    for cycle in range(runs):
        since = time.time_ns()
        if cycle % 5 == 4:
            _kill_cli_writer(cycle, rng, env)
        else:
            _kill_api_writer(project, cycle, rng, env)
        named += _check_after_kill(project, root, since)
    memories = Store(Root(root, "workspace")).scan().memories
    assert len(memories) > runs // 2  # the writers really committed between kills
    done = subprocess.run([*engram_cmd(), "verify"], env=env, capture_output=True, text=True,
                          check=False)
    assert done.returncode == 0, done.stdout
    print(f"\n{runs} kills, {len(memories)} memories committed, {named} files named by verify")
