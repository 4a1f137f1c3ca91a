"""The README's quick start, run as written in a fresh git repository, leaves a clean tree:
every file `engram link` writes in the project is committed or git-ignored (the shared
`.mcp.json` runs the bare `engram-mcp`, so it is committed too). The install line (`pipx`/`uv`)
is the reader's, not the test's: only the `engram` and `git` lines run here.

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
            if line.split(" ", 1)[0] in {"engram", "git"}]


def test_the_quick_start_leaves_a_clean_tree(project: Path) -> None:
    env = subprocess_env(GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@example.org",
                         GIT_COMMITTER_NAME="t", GIT_COMMITTER_EMAIL="t@example.org")
    subprocess.run(["git", "init", "-q"], cwd=project, check=True)
    lines = _quick_start()
    assert [x.split()[1] for x in lines if x.startswith("engram")][:1] == ["init"], lines
    assert any(x.startswith("engram link") for x in lines), lines
    for line in lines:
        for part in line.split(" && "):
            argv = shlex.split(part)
            if argv[0] == "engram":
                argv = [*engram_cmd(), *argv[1:]]
            done = subprocess.run(argv, cwd=project, env=env, input="A\n", text=True,
                                  capture_output=True, timeout=60, check=False)
            assert done.returncode == 0, (part, done.stdout, done.stderr)
    status = subprocess.run(["git", "status", "--porcelain"], cwd=project, text=True,
                            capture_output=True, check=True).stdout.splitlines()
    assert status == [], status


def test_the_readme_opens_the_door_early() -> None:
    """Issue 28: at most 200 lines, the quick start within the first 60, the flow as a picture
    GitHub renders (a Mermaid block)."""
    lines = (REPO / "README.md").read_text(encoding="utf-8").splitlines()
    assert len(lines) <= 200, len(lines)
    assert "## Quick start" in lines[:60]
    assert "```mermaid" in lines


def test_the_quick_start_says_what_to_do_without_pipx() -> None:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    head = "\n".join(readme.splitlines()[:60])
    for needle in ("pipx install engram-protocol", "uv tool install engram-protocol",
                   "python3 -m pip install --user pipx", "ensurepath", "engram init",
                   "engram link", "bash scripts/demo.sh", "bash scripts/test.sh",
                   "note: for git: commit"):
        assert needle in head, needle
