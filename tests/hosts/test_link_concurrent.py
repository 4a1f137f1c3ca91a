"""`engram link` of several hosts at once (a setup script, or two terminals) records every link.

Each run read `~/.engram/hosts.json`, staged its edits and wrote the file back: concurrent runs
kept only the last writer's list, so `link list`, `unlink`, `upgrade` and `doctor` lost hosts
whose files were written (4 of 5 tries lost at least one of four hosts)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from tests.conftest import engram_cmd, subprocess_env

HOSTS = ("claude", "codex", "gemini", "opencode")


def test_concurrent_links_are_all_recorded(engram_root: Path, project: Path) -> None:
    env = subprocess_env(ENGRAM_NO_AUTO_UPGRADE="1")
    for attempt in range(3):
        running = [subprocess.Popen([*engram_cmd(), "link", host, "--launcher", "name"],
                                    cwd=project, env=env, stdout=subprocess.DEVNULL,
                                    stderr=subprocess.PIPE) for host in HOSTS]
        for proc in running:
            _, err = proc.communicate(timeout=60)
            assert proc.returncode == 0, err
        listed = subprocess.run([*engram_cmd(), "link", "list", "--json"], cwd=project,
                                env=env, capture_output=True, text=True, timeout=60,
                                check=True)
        hosts = {x["host"] for x in json.loads(listed.stdout)["data"]["links"]}
        assert hosts == set(HOSTS), (attempt, hosts)
        done = subprocess.run([*engram_cmd(), "unlink"], cwd=project, env=env,
                              capture_output=True, text=True, timeout=60, check=False)
        assert done.returncode == 0, done.stderr
