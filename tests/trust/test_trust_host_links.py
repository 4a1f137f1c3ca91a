"""Attack: a repository's host files as symlinks. `engram link` (a setup step the human runs)
read `AGENTS.md`, `CLAUDE.md`, `.mcp.json`, … through a symlink the repository ships
(`AGENTS.md -> ../../.aws/credentials`, `.mcp.json -> ~/.docker/config.json`), added its block or
entry and wrote the whole text back as a regular file in the repository: the outside file's
content (credentials, tokens) landed in the working tree, where the agent reads it and git
commits it. A symlinked folder (`.claude -> ~/somewhere`) sent link's writes outside the
project. Host files under the project are now refused when any part of their path is a symlink
(`storage.symlink`), before anything is read or written; writes walk from the project without
following links. The user's own global files (under HOME) may still be symlinks (dotfiles)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tests.trust.trust_doors import cli

SECRET = "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY\n"
DOCKER = json.dumps({"auths": {"registry": {"auth": "c2VjcmV0OnRva2Vu"}}})


def _regular_texts(project: Path) -> str:
    out = []
    for dirpath, dirnames, filenames in os.walk(project):
        dirnames[:] = [d for d in dirnames if d != ".git"]
        for name in filenames:
            p = Path(dirpath) / name
            if not p.is_symlink():
                out.append(p.read_text(errors="replace"))
    return "\n".join(out)


@pytest.mark.parametrize(("host", "name", "content"), [
    ("codex", "AGENTS.md", SECRET),
    ("claude", "CLAUDE.md", SECRET),
    ("claude", ".mcp.json", DOCKER),
    ("gemini", "GEMINI.md", SECRET),
    ("gemini", ".gemini/settings.json", DOCKER),
    ("cursor", ".cursor/mcp.json", DOCKER),
    ("opencode", "opencode.json", DOCKER),
])
def test_link_never_copies_a_symlinked_host_file_into_the_repository(
        layout: Path, outside: Path, capsys: pytest.CaptureFixture[str],
        host: str, name: str, content: str) -> None:
    project = layout.parent.parent
    target = outside / "target"
    target.write_text(content)
    link = project / name
    link.parent.mkdir(parents=True, exist_ok=True)
    link.symlink_to(target)
    code, out = cli(capsys, "link", host)
    assert code != 0 and "a symlink in the project" in out, out
    assert target.read_text() == content
    assert link.is_symlink()
    leaked = _regular_texts(project)
    assert "wJalrXUtnFEMI" not in leaked and "c2VjcmV0OnRva2Vu" not in leaked


@pytest.mark.parametrize(("host", "folder"), [("claude", ".claude"), ("gemini", ".gemini"),
                                              ("cursor", ".cursor")])
def test_link_never_writes_through_a_symlinked_folder(
        layout: Path, outside: Path, capsys: pytest.CaptureFixture[str],
        host: str, folder: str) -> None:
    project = layout.parent.parent
    away = outside / "away"
    away.mkdir()
    (project / folder).symlink_to(away)
    code, out = cli(capsys, "link", host)
    assert code != 0 and "a symlink in the project" in out, out
    assert list(away.iterdir()) == []


def test_unlink_and_upgrade_refuse_a_host_file_turned_into_a_symlink(
        layout: Path, outside: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The next variant: link first, then swap the file for a link before unlink or upgrade."""
    project = layout.parent.parent
    assert cli(capsys, "link", "gemini")[0] == 0
    settings = project / ".gemini" / "settings.json"
    target = outside / "settings.json"
    target.write_text(json.dumps({"mcpServers": {"engram": {"command": "engram-mcp"}},
                                  "token": "c2VjcmV0OnRva2Vu"}))
    settings.unlink()
    settings.symlink_to(target)
    for args in (("upgrade",), ("unlink", "gemini")):
        code, out = cli(capsys, *args)
        assert code != 0 and "a symlink in the project" in out, (args, out)
        assert settings.is_symlink() and "c2VjcmV0OnRva2Vu" not in _regular_texts(project)


def test_a_global_host_file_may_be_a_symlink(
        layout: Path, outside: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Dotfile managers link files under HOME: the user's own, not the repository's."""
    home = Path(os.environ["HOME"])
    real = outside / "dotfiles-gemini.json"
    real.write_text("{}")
    (home / ".gemini").mkdir()
    (home / ".gemini" / "settings.json").symlink_to(real)
    code, out = cli(capsys, "link", "--global", "gemini")
    assert code == 0, out
