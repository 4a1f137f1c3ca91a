"""Concurrency (§8): two real processes × 20 commits into one root lose nothing."""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
import textwrap

from engram.store.repo import Store
from engram.workspace import Roots
from tests.conftest import subprocess_env

WORKER = textwrap.dedent("""
    import hashlib, sys
    from engram.proposals import api
    from engram.workspace import resolve
    proc = sys.argv[1]
    roots = resolve()
    for i in range(20):
        words = " ".join("w" + hashlib.sha256(f"{proc}-{i}-{k}".encode()).hexdigest()[:8]
                         for k in range(4))
        p = api.propose(roots, f"TYPE: knowledge | TEXT: Service {words} is documented.")
        out = api.commit(roots, p.token)
        assert len(out.data["written"]) == 1, out.text
""")


def test_two_processes_twenty_commits_each_keep_every_memory_and_hash(roots: Roots) -> None:
    env = subprocess_env()
    procs = [subprocess.Popen([sys.executable, "-c", WORKER, name], cwd=roots.project, env=env,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for name in ("a", "b")]
    for p in procs:
        _, err = p.communicate(timeout=120)
        assert p.returncode == 0, err
    store = Store(roots.workspace)
    files = store.memory_files(include_notes=False)
    assert len(files) == 40
    hashes = store.load_hashes()
    assert sorted(hashes) == sorted(files)
    for rel in files:
        assert hashes[rel] == hashlib.sha256(store.read_bytes(rel)).hexdigest()
        store.read(rel)  # parses: no torn file
    log = roots.workspace.changelog_file.read_text().splitlines()
    assert sum(": ADD" in line for line in log) == 40
    entries = json.loads(roots.pending_file.read_text())["entries"]
    assert len(entries) == 40 and all(e["state"] == "used" for e in entries.values())
