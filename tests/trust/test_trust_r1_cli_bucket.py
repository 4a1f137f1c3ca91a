"""Review r1 of issue 27 class 8 (lockout): the open variant was said to be an agent with a
shell filling the command line's own bucket (64 proposals per 30 minutes) with `engram save`
so that the human's own terminal is refused. Tried through the real CLI: `engram save` never
mints an approval token (a human answers the preview in place, or nothing is saved), so it
cannot fill any bucket, and the human at a terminal saves while every agent bucket is full."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from engram.cli.main import main as cli
from engram.proposals import origin
from engram.proposals.approvals import AGENT_LIMIT, MINT_LIMIT, PendingApprovals, open_count
from engram.workspace import resolve
from tests.cli.test_cli_first_hour import _until
from tests.conftest import engram_cmd, subprocess_env
from tests.trust.test_trust_lockout import fill_agent_sessions

LOOPS = MINT_LIMIT + 6


def _agent_shell(*args: str) -> subprocess.CompletedProcess[str]:
    """A command an agent's shell tool runs: no terminal, stdin closed."""
    return subprocess.run([*engram_cmd(), *args], capture_output=True, text=True,
                          env=subprocess_env(), timeout=60, check=False,
                          stdin=subprocess.DEVNULL, start_new_session=True)


def _fill_agent_sessions(project: Path) -> None:
    """Every agent bucket full: AGENT_LIMIT proposals from AGENT_LIMIT / MINT_LIMIT sessions
    (what an agent gets by starting `engram-mcp` processes from its shell)."""
    pending = PendingApprovals(resolve(None, project))
    before = origin.current()
    try:
        fill_agent_sessions(pending)
    finally:
        origin._current[0] = before


@pytest.mark.skipif(sys.platform == "win32", reason="pseudo-terminals are POSIX")
def test_an_agent_shell_looping_on_engram_save_never_refuses_the_human_terminal(
        project: Path) -> None:
    import pty

    assert cli(["init"]) == 0
    _fill_agent_sessions(project)
    roots = resolve(None, project)
    full = open_count(roots)
    assert full == AGENT_LIMIT  # every agent bucket is full (same state dir as the CLI)
    for i in range(LOOPS):  # the agent's loop: every way `engram save` runs without a human
        args = ["save", "knowledge", f"Fact number {i} about the build cache."]
        got = _agent_shell(*args, *(["--json"] if i % 2 else []))
        assert got.returncode != 0 and "nothing was saved" in (got.stdout + got.stderr).lower() \
            or '"approval_needed": true' in got.stdout, got.stdout + got.stderr
    assert open_count(roots) == full  # no proposal was minted by the command line
    pid, fd = pty.fork()
    if pid == 0:  # the human at a terminal
        os.execve(sys.executable, [*engram_cmd(), "save", "knowledge",  # noqa: S606
                                   "The human's own fact about the release."], subprocess_env())
    seen = _until(fd, b"Save? [")
    os.write(fd, b"A\r")
    seen += _until(fd, b"\x00", timeout=20)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0, seen.decode()
    assert "written" in seen.decode(), seen.decode()
