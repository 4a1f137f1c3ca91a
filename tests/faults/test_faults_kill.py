"""kill -9 a writer at random points: every file stays old-or-new and nothing is lost silently."""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import textwrap
import time
from pathlib import Path

from engram.store.integrity import check_root
from engram.store.layout import init_root
from engram.store.repo import Store
from engram.workspace import Root
from tests.conftest import REPO, subprocess_env

WRITER = textwrap.dedent("""
    import sys
    from pathlib import Path
    from engram.store.repo import Change, Store
    from engram.workspace import Root
    from tests.helpers import memory_text
    store = Store(Root(Path(sys.argv[1]), "workspace"))
    i = 0
    print("ready", flush=True)
    while True:
        mid = f"memory-{i % 7}"
        body = f"- version {i} " + "padding " * (50 * (i % 5))
        store.write_files([Change(f"rules/{mid}.md", memory_text(mid, content=body))], "w")
        i += 1
""")


def _kill_once(root: Path, rng: random.Random, env: dict[str, str]) -> None:
    proc = subprocess.Popen(["python3", "-c", WRITER, str(root)], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    assert proc.stdout is not None
    proc.stdout.readline()  # imports done; now writing in a loop
    time.sleep(rng.uniform(0.0, 0.05))
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    proc.stdout.close()


def test_kill_9_mid_write_leaves_old_or_new_files_and_a_named_mismatch(project: Path) -> None:
    root = project / ".agents" / ".engram"
    init_root(Root(root, "workspace"))  # hashes file exists even if the first write is killed
    env = subprocess_env(PYTHONPATH=f"{REPO / 'src'}:{REPO}")
    rng = random.Random(1234)
    store = Store(Root(root, "workspace"))
    runs = int(os.environ.get("ENGRAM_FAULT_RUNS", "50"))
    for _ in range(runs):
        _kill_once(root, rng, env)
        json.loads((root / "memory.hashes.json").read_text())  # never torn
        scan = store.scan()
        assert scan.invalid == [], scan.invalid  # every file is a whole version
        problems = [c for c in check_root(store) if c.status != "OK"]
        # The only possible damage: the last file written before its hash was recorded.
        assert len(problems) <= 1, problems
        if problems:
            assert problems[0].status in {"MISMATCH", "MISSING HASH", "UNRECORDED"}
            from engram.store.integrity import rehash
            from engram.workspace import resolve

            rehash(resolve(workspace=project))
    store.clean_stale_temp()
    assert not list(root.rglob(".engram-tmp-*"))
