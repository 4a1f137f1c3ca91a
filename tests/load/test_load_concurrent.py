"""Four `engram-mcp` processes load from one workspace while a CLI process commits 20 memories:
no write is lost, hashes agree afterwards, and no reader ever gets an error or a SKIPPED file."""

from __future__ import annotations

import json
import subprocess
import threading
from pathlib import Path
from typing import Any

import pytest

from engram.bench.load_bench import INITIALIZE, is_error, pseudo_words, spawn_server
from engram.store.integrity import check_root
from engram.store.repo import Store
from engram.workspace import Root
from tests.conftest import engram_cmd, subprocess_env

pytestmark = pytest.mark.slow

SEED = ("Always run the unit tests before tagging a release",
        "Never commit secrets; use the vault for credentials",
        "Prefer small pull requests reviewed within a day",
        "Pin every Docker base image to a digest",
        "Write database migrations so they can roll back",
        "Log errors as structured JSON with a request id")


def _candidate(i: int) -> str:
    return f"TYPE: knowledge | TEXT: Quokka fact: {pseudo_words(1000 + i)}"


class Reader(threading.Thread):
    """One server, loads back to back until told to stop; keeps every reply's text."""

    def __init__(self, project: Path, seed_ids: list[str], k: int) -> None:
        super().__init__(daemon=True)
        self.proc = spawn_server(project, subprocess_env())
        self.seed_ids, self.k = seed_ids, k
        self.stop = threading.Event()
        self.replies: list[dict[str, Any]] = []

    def call(self, id_: int, method: str, params: dict[str, Any]) -> dict[str, Any]:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        message = {"jsonrpc": "2.0", "id": id_, "method": method, "params": params}
        self.proc.stdin.write(json.dumps(message).encode() + b"\n")
        self.proc.stdin.flush()
        reply: dict[str, Any] = json.loads(self.proc.stdout.readline())
        return reply

    def run(self) -> None:
        self.call(0, "initialize", INITIALIZE)
        i = 0
        while not self.stop.is_set():
            i += 1
            if i % 5 == 4:
                self.replies.append(self.call(i, "resources/read", {"uri": "engram://index"}))
                continue
            if i % 2:
                args: dict[str, Any] = {"query": "quokka fact"}
            else:
                args = {"id": self.seed_ids[(i + self.k) % len(self.seed_ids)]}
            self.replies.append(self.call(i, "tools/call", {"name": "engram_load",
                                                            "arguments": args}))

    def close(self) -> None:
        self.stop.set()
        self.join(timeout=30)
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.close()
        self.proc.wait(timeout=10)
        self.proc.stdout.close()


def test_four_servers_load_while_a_cli_commits_20_memories_without_loss_or_torn_reads(
        project: Path) -> None:
    env = subprocess_env()
    subprocess.run([*engram_cmd(), "init"], env=env, check=True, capture_output=True)
    seed = "\n".join(f"TYPE: rule | TEXT: {t}" for t in SEED)
    done = subprocess.run([*engram_cmd(), "save-session", "--force", seed], env=env,
                          capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    root = project / ".agents" / ".engram"
    seed_ids = sorted(p.stem for p in (root / "rules").glob("*.md"))
    assert len(seed_ids) == 6
    readers = [Reader(project, seed_ids, k) for k in range(4)]
    for r in readers:
        r.start()
    try:
        for i in range(20):
            done = subprocess.run([*engram_cmd(), "save-session", "--force", _candidate(i)],
                                  env=env, capture_output=True, text=True, timeout=60)
            assert done.returncode == 0, done.stderr + done.stdout
            assert "1 written" in done.stdout, done.stdout
    finally:
        for r in readers:
            r.close()
    replies = [rep for r in readers for rep in r.replies]
    assert len(replies) >= 40  # the readers really ran alongside the commits
    bad = [rep for rep in replies if is_error(rep) or "SKIPPED" in json.dumps(rep)]
    assert bad == [], bad[:2]
    store = Store(Root(root, "workspace"))
    scan = store.scan()
    assert scan.invalid == []
    assert sum("quokka" in m.body.lower() for m in scan.memories) == 20
    assert [c for c in check_root(store) if c.status != "OK"] == []
    done = subprocess.run([*engram_cmd(), "verify"], env=env, capture_output=True, text=True,
                          check=False)
    assert done.returncode == 0, done.stdout
