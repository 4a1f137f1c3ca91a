"""Attack: run a command as the user through the git Engram runs. An agent that can write the
repository can write `.git/config` (and `.git/hooks/`). Git runs `core.fsmonitor` as a command
for `ls-files`, `check-attr` and `check-ignore`, which Engram runs on its own: the code-anchor
facts behind every load's stale line (so the prompt hook, on every prompt, and the MCP server),
and `verify`/`doctor`'s review checks. The agent then has a shell as the user with no prompt
and nothing the human did. Engram's git never runs a command the repository's config names."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from engram.gitrun import SAFE_CONFIG
from tests.hostile.test_trust_review import _git, _moved_memory
from tests.trust.trust_doors import ERAS, Door, cli, hook, mcp_session

if shutil.which("git") is None:  # pragma: no cover - git is part of the dev environment
    pytest.skip("git is not installed", allow_module_level=True)

TASK = "deploy release tagging"


def _arm(project: Path, marker: Path) -> None:
    """Commands git could run for Engram, each leaving `marker` behind."""
    run = f"sh -c 'echo pwned >> {marker}'"
    _git(project, "config", "core.fsmonitor", run)
    _git(project, "config", "log.showSignature", "true")
    _git(project, "config", "gpg.program", str(_script(project, marker)))
    hooks = project / ".git" / "hooks"
    hooks.mkdir(exist_ok=True)
    for name in ("post-index-change", "post-checkout", "reference-transaction"):
        (hooks / name).write_text(f"#!/bin/sh\necho pwned >> {marker}\n")
        (hooks / name).chmod(0o755)


def _script(project: Path, marker: Path) -> Path:
    path = project / ".git" / "fake-gpg"
    path.write_text(f"#!/bin/sh\necho pwned >> {marker}\nexit 1\n")
    path.chmod(0o755)
    return path


def _touch_git_index(project: Path) -> None:
    """A new git index (the cache key changes): the next read asks git again."""
    (project / "src" / "extra.py").write_text("y\n")
    _git(project, *SAFE_CONFIG, "add", "src/extra.py")  # the test itself runs nothing


def test_engram_never_runs_a_command_named_in_the_repositorys_git_config(
        project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _moved_memory(project, capsys)
    marker = tmp_path / "marker"
    _arm(project, marker)
    for args in (("load", TASK), ("load", "--all"), ("stale",), ("verify",), ("doctor",),
                 ("status",)):
        _touch_git_index(project)
        code, out = cli(capsys, *args)
        assert not marker.exists(), (args, out)
    _touch_git_index(project)
    assert "src/ship.py" in cli(capsys, "load", TASK)[1]  # the stale line still works
    for event in ("UserPromptSubmit", "SessionStart"):
        _touch_git_index(project)
        hook(project, TASK, event)
        assert not marker.exists(), event


@pytest.mark.parametrize("era", ERAS)
def test_the_mcp_server_never_runs_a_command_named_in_git_config(
        project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], era: str) -> None:
    _moved_memory(project, capsys)
    marker = tmp_path / "marker"
    _arm(project, marker)
    _touch_git_index(project)

    async def body(door: Door) -> None:
        await door.tool("engram_load", {"query": TASK})
        await door.resource("engram://index")
        await door.tool("engram_verify", {})
        await door.tool("engram_status", {})

    mcp_session(project, era, body)
    assert not marker.exists()


def test_every_git_engram_runs_goes_through_the_safe_command_line() -> None:
    """The next git call must not forget the overrides: only gitrun.py spells `"git"` as a
    command (the demo and the benchmarks build their own repositories)."""
    src = Path(__file__).resolve().parents[2] / "src" / "engram"
    allowed = {"gitrun.py", "demo.py", "stale_repo.py"}
    offenders = [p.relative_to(src).as_posix() for p in src.rglob("*.py")
                 if p.name not in allowed and ('["git"' in p.read_text() or "('git'" in
                                               p.read_text())]
    assert not offenders, offenders
