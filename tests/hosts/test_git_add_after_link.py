"""`git add .` after `engram init` + `engram link <host>` commits nothing machine-specific
(issue #28, finding 4).

Through the real CLI in a fresh git repository, with Engram installed in a virtualenv that is on
PATH (as when activated), a temp HOME and a temp project: the staged diff must not name the temp
dir, HOME, the venv or this checkout. Project files a team commits get the bare `engram-mcp`
(`engram agent-hook` for `--team` hooks); personal files (`.claude/settings.local.json`, a
`--launcher path` entry) are git-ignored.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import REPO, engram_cmd, subprocess_env

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
HOSTS = ("claude", "codex", "gemini", "antigravity", "cursor", "opencode", "windsurf")


def _env(home: Path) -> dict[str, str]:
    venv_bin = str(Path(sys.executable).parent)
    return subprocess_env(HOME=str(home), PATH=os.pathsep.join([venv_bin, "/usr/bin", "/bin"]),
                          ENGRAM_NO_AUTO_UPGRADE="1", GIT_AUTHOR_NAME="t",
                          GIT_AUTHOR_EMAIL="t@example.invalid", GIT_COMMITTER_NAME="t",
                          GIT_COMMITTER_EMAIL="t@example.invalid")


def _run(args: list[str], cwd: Path, env: dict[str, str]) -> str:
    done = subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True, check=False)
    assert done.returncode == 0, f"{args}: {done.stdout}\n{done.stderr}"
    return done.stdout


def _repo(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    home = tmp_path / "user-home"
    project = tmp_path / "team-repo"
    home.mkdir()
    project.mkdir()
    env = _env(home)
    _run(["git", "init", "-q", "."], project, env)
    _run([*engram_cmd(), "init"], project, env)
    return project, env


def _staged(project: Path, env: dict[str, str]) -> str:
    _run(["git", "add", "."], project, env)
    return _run(["git", "diff", "--cached"], project, env)


def _machine_paths(tmp_path: Path) -> list[str]:
    venv = Path(sys.executable).parent
    return [str(tmp_path), str(tmp_path.resolve()), str(venv), str(venv.resolve()),
            str(Path(sys.prefix)), str(REPO), str(Path.home())]


def _assert_portable(diff: str, tmp_path: Path) -> None:
    assert diff, "nothing staged"
    for path in _machine_paths(tmp_path):
        assert path not in diff, f"the staged diff names {path}:\n{diff}"


def test_link_every_host_then_git_add_commits_no_path_of_this_machine(tmp_path: Path) -> None:
    project, env = _repo(tmp_path)
    notes = [_run([*engram_cmd(), "link", host], project, env) for host in HOSTS]
    diff = _staged(project, env)
    _assert_portable(diff, tmp_path)
    server = json.loads((project / ".mcp.json").read_text())["mcpServers"]["engram"]
    assert server["command"] == "engram-mcp"
    assert ".claude/settings.local.json" in (project / ".gitignore").read_text()
    # one line says what to commit and what stays personal
    claude = next(line for line in notes[0].splitlines() if line.startswith("note: for git:"))
    assert ".mcp.json" in claude and "settings.local.json stay yours (git-ignored)" in claude


def test_team_hooks_and_files_with_user_content_stay_portable(tmp_path: Path) -> None:
    project, env = _repo(tmp_path)
    (project / ".mcp.json").write_text('{"mcpServers": {"lint": {"command": "lint-server"}}}\n')
    (project / "opencode.json").write_text('{\n  // ours\n  "theme": "system"\n}\n')
    (project / ".gemini").mkdir()
    (project / ".gemini/settings.json").write_text('{"ui": {"theme": "GitHub"}}\n')
    for host in ("claude", "opencode", "gemini"):
        _run([*engram_cmd(), "link", host, *(["--team"] if host == "claude" else [])],
             project, env)
    diff = _staged(project, env)
    _assert_portable(diff, tmp_path)
    hooks = json.loads((project / ".claude/settings.json").read_text())["hooks"]
    assert hooks["SessionStart"][0]["hooks"][0]["command"] == "engram agent-hook --host claude"
    assert "lint-server" in diff and '"theme": "system"' in diff and "GitHub" in diff


def test_launcher_path_is_personal_and_git_ignored(tmp_path: Path) -> None:
    project, env = _repo(tmp_path)
    out = ""
    for host in ("claude", "gemini", "opencode", "cursor"):
        out += _run([*engram_cmd(), "link", host, "--launcher", "path"], project, env)
    diff = _staged(project, env)
    _assert_portable(diff, tmp_path)
    ignored = (project / ".gitignore").read_text().splitlines()
    for name in (".mcp.json", ".gemini/settings.json", "opencode.json", ".cursor/mcp.json"):
        assert name in ignored, ignored
    assert "a path on this machine (git-ignored)" in out
    assert _run([*engram_cmd(), "unlink", "gemini"], project, env) is not None
    assert ".gemini/settings.json" not in (project / ".gitignore").read_text().splitlines()
