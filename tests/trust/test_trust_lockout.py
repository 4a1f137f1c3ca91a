"""Attack (issue 27 class 8): lockout. The 64-proposals-per-30-minutes cap was one bucket per
workspace, so an agent looping on `engram_save` locked the human out of `engram_save`,
`engram_note` and `engram save` for 30 minutes. Now each MCP session (one server process) has
its own 64, all agent sessions together 256, and the command line its own 64: a fresh session
and the human's terminal still work, and the refusal says how to go on."""

from __future__ import annotations

import subprocess
from pathlib import Path

from mcp import Client

from engram.cli.main import main as cli
from engram.proposals import origin
from engram.proposals.approvals import AGENT_LIMIT, MINT_LIMIT, PendingApprovals
from engram.workspace import resolve
from tests.conftest import engram_cmd, subprocess_env
from tests.mcp_server.mcp_harness import checked_call
from tests.trust.test_trust_commit_words import _run


def _fill_one_session(project: Path) -> list[str]:
    refusals: list[str] = []

    async def body(client: Client) -> None:
        for i in range(MINT_LIMIT):
            await checked_call(client, "engram_save", {"text": f"Fact number {i} about the "
                                                       "build.", "type": "knowledge"})
        for tool, args in (("engram_save", {"text": "One more fact.", "type": "knowledge"}),
                           ("engram_note", {"text": "Working on the build cache."})):
            got = await client.call_tool(tool, args)
            assert got.is_error is True
            refusals.append(got.content[0].text)  # type: ignore[union-attr]

    _run(project, body)
    return refusals


def test_a_looping_session_locks_out_neither_a_fresh_session_nor_the_terminal(
        project: Path) -> None:
    assert cli(["init"]) == 0
    refusals = _fill_one_session(project)
    for text in refusals:  # the refusal says how to go on
        assert "fresh session" in text and "engram save" in text and "wait until" in text, text

    async def fresh(client: Client) -> None:
        got = await checked_call(client, "engram_save", {"text": "A fact from a new session.",
                                                         "type": "knowledge"})
        assert got.structured_content["data"]["approval_token"]

    _run(project, fresh)
    done = subprocess.run([*engram_cmd(), "save", "knowledge", "The human's own fact.",
                           "--answer", "A"], capture_output=True, text=True, cwd=project,
                          env=subprocess_env(), timeout=60, check=False,
                          stdin=subprocess.DEVNULL)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "written" in done.stdout


def fill_agent_sessions(pending: PendingApprovals) -> None:
    """AGENT_LIMIT proposals from AGENT_LIMIT / MINT_LIMIT sessions (what an agent gets by
    starting `engram-mcp` processes from its shell); the caller restores the origin."""
    for _ in range(AGENT_LIMIT // MINT_LIMIT):
        origin.begin_session()
        for _ in range(MINT_LIMIT):
            pending.mint("save", ["workspace"], [], [])


def test_all_agent_sessions_together_stop_at_the_workspace_cap(project: Path) -> None:
    """The grind bound stays: many sessions cannot mint without end (the terminal still can)."""
    assert cli(["init"]) == 0
    roots = resolve(None, project)
    pending = PendingApprovals(roots)
    before = origin.current()
    try:
        fill_agent_sessions(pending)
        origin.begin_session()
        try:
            pending.mint("save", ["workspace"], [], [])
        except Exception as exc:  # noqa: BLE001 - the type is checked below
            assert getattr(exc, "code", "") == "approval.too_many", exc
            assert "engram save" in str(getattr(exc, "hint", "")), exc
        else:
            raise AssertionError("a session past the workspace cap could still propose")
        origin._current[0] = origin.CLI
        assert pending.mint("save", ["workspace"], [], [])  # the command line: its own bucket
    finally:
        origin._current[0] = before
