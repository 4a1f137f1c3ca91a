"""A project whose folder name is not UTF-8 (`caf\\xe9`, from a Latin-1 file system) works.

`load` and `search` ended in `UnicodeEncodeError: surrogates not allowed`: the root's path was
encoded as UTF-8 into the MAC of the cached scan verdict (and into the pending-approvals file
name and the notes' seals)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from tests.conftest import engram_cmd, subprocess_env


def test_a_project_folder_that_is_not_utf8(tmp_path: Path) -> None:
    project = Path(os.fsdecode(os.fsencode(tmp_path) + b"/caf\xe9"))
    project.mkdir()
    env = subprocess_env(HOME=str(tmp_path / "home"),
                         ENGRAM_CONFIG_DIR=str(tmp_path / "home" / ".engram"))
    for args in (["init"], ["save", "rule", "Run the smoke suite before tagging.", "--answer", "A"],
                 ["load", "smoke suite"], ["search", "smoke"], ["route", "smoke suite"],
                 ["save", "knowledge", "Tags come from main only.", "--answer", "A"],
                 ["status", "--json"], ["verify"], ["doctor"]):
        done = subprocess.run([*engram_cmd(), *args], cwd=project, env=env, text=True,
                              errors="replace", capture_output=True, timeout=60, check=False)
        assert "Traceback" not in done.stderr, (args, done.stderr[-600:])
        assert done.returncode in (0, 1), (args, done.stdout, done.stderr)
        if args[0] == "load":
            assert "Run the smoke suite" in done.stdout
