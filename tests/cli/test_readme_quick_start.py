"""The README's quick start, run as written in a fresh git repository, leaves a clean tree
except for the files the README's table calls personal (`.mcp.json` holds this machine's path).

Before, its `git add` line left the `.gitignore` that `engram link claude` creates (to keep
`.claude/settings.local.json` out of git) untracked, so `git status` showed a file the README
does not mention."""

from __future__ import annotations

import re
import shlex
import subprocess
from pathlib import Path

from tests.conftest import REPO, engram_cmd, subprocess_env


def _quick_start() -> list[str]:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    block = re.search(r"## Quick start\n\n```sh\n(.*?)```", readme, re.S)
    assert block is not None
    return [line.split("  #")[0].strip() for line in block.group(1).splitlines()
            if line.strip() and not line.startswith("cd ")]


def test_the_quick_start_leaves_only_personal_files_untracked(project: Path) -> None:
    env = subprocess_env(GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@example.org",
                         GIT_COMMITTER_NAME="t", GIT_COMMITTER_EMAIL="t@example.org")
    subprocess.run(["git", "init", "-q"], cwd=project, check=True)
    for line in _quick_start():
        for part in line.split(" && "):
            argv = shlex.split(part)
            if argv[0] == "engram":
                argv = [*engram_cmd(), *argv[1:]]
            done = subprocess.run(argv, cwd=project, env=env, input="A\n", text=True,
                                  capture_output=True, timeout=60, check=False)
            assert done.returncode == 0, (part, done.stdout, done.stderr)
    status = subprocess.run(["git", "status", "--porcelain"], cwd=project, text=True,
                            capture_output=True, check=True).stdout.splitlines()
    assert status == ["?? .mcp.json"], status
