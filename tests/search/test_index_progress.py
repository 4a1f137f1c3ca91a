"""Building the index of thousands of files shows a progress line on a terminal's stderr, and
nothing when stderr is piped, when few files change, on stdout, or in `--json` output."""

from __future__ import annotations

import io
import json
import os
import pty
import subprocess
from pathlib import Path

import pytest

from engram.bench.synth import generate
from engram.progress import Progress
from tests.conftest import engram_cmd, subprocess_env


def _run_with_tty_stderr(argv: list[str], cwd: Path) -> tuple[int, str, str]:
    """Run argv with stderr on a pseudo-terminal and stdout on a pipe."""
    master, slave = pty.openpty()
    try:
        proc = subprocess.Popen(argv, cwd=cwd, env=subprocess_env(), stdout=subprocess.PIPE,
                                stderr=slave, stdin=subprocess.DEVNULL)
        os.close(slave)
        out, _ = proc.communicate(timeout=120)
        chunks = []
        while True:
            try:
                chunk = os.read(master, 1 << 16)
            except OSError:  # EIO: the child closed the terminal
                break
            if not chunk:
                break
            chunks.append(chunk)
    finally:
        os.close(master)
    return proc.returncode, out.decode(), b"".join(chunks).decode(errors="replace")


@pytest.fixture
def big_store(project: Path) -> Path:
    generate(project / ".agents" / ".engram", 600)
    return project


def test_index_build_of_600_files_shows_progress_on_a_terminal_only_on_stderr(
        big_store: Path) -> None:
    code, out, err = _run_with_tty_stderr([*engram_cmd(), "search", "--json", "release"],
                                          big_store)
    assert code == 0
    assert "engram: indexing memory files" in err and "600/600" in err
    assert json.loads(out)["ok"] is True  # stdout stays pure JSON
    # The index is built now: the next command has nothing to report.
    code, out, err = _run_with_tty_stderr([*engram_cmd(), "search", "release"], big_store)
    assert code == 0 and "indexing" not in err and "indexing" not in out


def test_index_build_is_silent_when_stderr_is_piped(big_store: Path) -> None:
    done = subprocess.run([*engram_cmd(), "search", "release"], cwd=big_store,
                          env=subprocess_env(), capture_output=True, text=True, check=False)
    assert done.returncode == 0
    assert "indexing" not in done.stderr and "indexing" not in done.stdout


def test_a_small_build_is_silent_even_on_a_terminal(project: Path) -> None:
    generate(project / ".agents" / ".engram", 50)
    code, out, err = _run_with_tty_stderr([*engram_cmd(), "search", "release"], project)
    assert code == 0 and "indexing" not in err


class _Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_progress_counts_to_the_total_and_ends_with_one_newline() -> None:
    stream = _Tty()
    progress = Progress("work", 1000, stream=stream)
    for _ in range(1000):
        progress.advance()
    progress.close()
    text = stream.getvalue()
    assert text.endswith("\n") and text.count("\n") == 1
    assert "work 1,000/1,000" in text
    silent = io.StringIO()
    Progress("work", 1000, stream=silent).advance()
    assert silent.getvalue() == ""


def test_mcp_server_keeps_progress_off_its_json_rpc_stdout(big_store: Path) -> None:
    lines = [{"jsonrpc": "2.0", "id": 1, "method": "initialize",
              "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                         "clientInfo": {"name": "t", "version": "1"}}},
             {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
              "params": {"name": "engram_search", "arguments": {"query": "release"}}}]
    master, slave = pty.openpty()
    try:
        proc = subprocess.Popen([*engram_cmd()[:1], "-m", "engram.mcp", "--workspace",
                                 str(big_store)], env=subprocess_env(), stdin=subprocess.PIPE,
                                stdout=subprocess.PIPE, stderr=slave)
        os.close(slave)
        out, _ = proc.communicate(b"".join(json.dumps(m).encode() + b"\n" for m in lines),
                                  timeout=120)
        err = os.read(master, 1 << 16).decode(errors="replace")
    finally:
        os.close(master)
    replies = [json.loads(line) for line in out.splitlines()]
    assert [r["id"] for r in replies] == [1, 2]
    assert replies[1]["result"]["isError"] is False
    assert "indexing" in err
