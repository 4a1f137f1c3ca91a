"""A real temporary git repository with an Engram workspace, and helpers to change its history."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest


class Repo:
    """Run git in a project with fixed identities and dates (commit dates drive staleness)."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def git(self, *args: str, date: str = "2026-07-01") -> str:
        env = dict(os.environ, GIT_AUTHOR_NAME="T", GIT_AUTHOR_EMAIL="t@example.com",
                   GIT_COMMITTER_NAME="T", GIT_COMMITTER_EMAIL="t@example.com",
                   GIT_AUTHOR_DATE=f"{date}T12:00:00", GIT_COMMITTER_DATE=f"{date}T12:00:00")
        done = subprocess.run(["git", "-C", str(self.path), *args], capture_output=True,
                              text=True, check=True, env=env)
        return done.stdout

    def write(self, rel: str, text: str) -> None:
        p = self.path / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text, encoding="utf-8")

    def mv(self, old: str, new: str) -> None:
        (self.path / new).parent.mkdir(parents=True, exist_ok=True)
        self.git("mv", old, new)

    def commit(self, message: str, date: str = "2026-07-01") -> str:
        self.git("add", "-A", date=date)
        self.git("commit", "-q", "-m", message, date=date)
        return self.git("rev-parse", "HEAD").strip()


@pytest.fixture
def repo(project: Path) -> Repo:
    r = Repo(project)
    r.git("init", "-q", "-b", "main")
    # Memories stay out of the history these tests write (a reset must not remove them).
    (project / ".git" / "info" / "exclude").write_text(".agents/\n")
    r.write("infra/prometheus/rules/workers.yaml", "groups: []\n")
    r.write("src/app/server.py", "def handle_request():\n    return 1\n\nclass Router:\n    pass\n")
    r.write("docs/runbook.md", "# runbook\n")
    r.write("deploy/a.tf", "a\n")
    r.write("deploy/b.tf", "b\n")
    (project / ".agents" / ".engram").mkdir(parents=True)
    r.commit("initial", "2026-07-01")
    return r
