"""Special files named like Engram's files never hang or crash a command or the MCP server.

A FIFO named like a memory (`mkfifo rules/pipe.md`) used to block `load`, `verify`, `status`,
the hook and every later MCP tool call on `open()`; a directory standing where the config, the
hashes file or the changelog belongs, or a `--workspace` that is a regular file, ended in a
traceback. Each command runs as a real subprocess under a timeout, so a hang fails the test
instead of hanging the suite.
"""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import engram_cmd, subprocess_env
from tests.helpers import write_memory
from tests.mcp_server.mcp_harness import RawServer

TIMEOUT_S = 30


def _run(project: Path, *args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run([*engram_cmd(), *args], cwd=project, input=stdin, text=True,
                          capture_output=True, timeout=TIMEOUT_S, check=False,
                          env=subprocess_env(HOME=str(project.parent / "home"),
                                             ENGRAM_CONFIG_DIR=str(project.parent / "cfg"),
                                             ENGRAM_NO_AUTO_UPGRADE="1"))


@pytest.fixture
def root(project: Path) -> Path:
    root = project / ".agents" / ".engram"
    write_memory(root, "run-smoke-suite", content="- Run the smoke suite before tagging a release.")
    return root


SPECIAL = ["fifo", "socket"]


def _plant(path: Path, kind: str) -> Iterator[None]:
    if kind == "fifo":
        os.mkfifo(path)
        yield
        return
    import socket

    sock = socket.socket(socket.AF_UNIX)
    sock.bind(str(path))
    try:
        yield
    finally:
        sock.close()


@pytest.mark.parametrize("kind", SPECIAL)
@pytest.mark.parametrize("where", ["rules/pipe.md", "working/pipe.md", "archive/x/pipe.md"])
def test_special_file_named_like_a_memory_never_hangs_a_command(
        project: Path, root: Path, kind: str, where: str) -> None:
    (root / where).parent.mkdir(parents=True, exist_ok=True)
    for _ in _plant(root / where, kind):
        done = _run(project, "load", "smoke suite release")
        assert done.returncode == 0, done.stderr
        assert "Run the smoke suite" in done.stdout
        done = _run(project, "verify")
        assert done.returncode == (4 if not where.startswith("working/") else 0), done.stdout
        assert "Traceback" not in done.stderr
        if not where.startswith("working/"):
            assert f"INVALID      workspace:{where}:1:" in done.stdout
            assert "regular file" in done.stdout
        done = _run(project, "status", "--json")
        assert done.returncode == 0 and "Traceback" not in done.stderr
        done = _run(project, "search", "smoke")
        assert done.returncode == 0 and "run-smoke-suite" in done.stdout
        done = _run(project, "rehash", "--all")
        assert "Traceback" not in done.stderr
        if not where.startswith("working/"):
            assert done.returncode == 4 and f"not approved (invalid): workspace:{where}" \
                in done.stdout
        payload = {"hook_event_name": "UserPromptSubmit", "cwd": str(project),
                   "session_id": f"s-{kind}", "prompt": "tag the release after the smoke suite"}
        done = _run(project, "agent-hook", "--host", "claude", stdin=json.dumps(payload))
        assert done.returncode == 0
        assert "Run the smoke suite" in json.loads(done.stdout)["hookSpecificOutput"][
            "additionalContext"]


def test_fifo_memory_never_blocks_the_mcp_server(project: Path, root: Path) -> None:
    os.mkfifo(root / "rules" / "pipe.md")
    server = RawServer(["--workspace", str(project)], None)  # a hang is a process-level fault
    try:
        server.call("initialize", {"protocolVersion": "2025-11-25", "capabilities": {}})
        for name, args in (("engram_load", {"query": "smoke suite release"}),
                           ("engram_verify", {}), ("engram_status", {}),
                           ("engram_search", {"query": "smoke"})):
            reply = server.call("tools/call", {"name": name, "arguments": args})
            assert "result" in reply, (name, reply)
        assert "pipe.md" in json.dumps(server.call("tools/call", {
            "name": "engram_verify", "arguments": {}})["result"])
        assert server.call("ping")["result"] == {}
    finally:
        assert server.close() == 0


@pytest.mark.parametrize("name", ["engram.config.json", "memory.hashes.json",
                                  "pending-approvals.json", "usage.json", "changelog.md"])
def test_fifo_in_place_of_a_root_file_never_hangs(project: Path, root: Path, name: str) -> None:
    (root / name).unlink(missing_ok=True)
    os.mkfifo(root / name)
    for args in (["load", "smoke suite"], ["status"], ["verify"],
                 ["save", "--force", "Pin the Node version in CI"]):
        done = _run(project, *args)
        assert "Traceback" not in done.stderr, (args, done.stderr)
        assert done.returncode in (0, 1, 4), (args, done.stdout, done.stderr)
        if done.returncode == 1:
            assert "error:" in done.stderr and "fix:" in done.stderr


@pytest.mark.parametrize(("name", "command"), [
    ("engram.config.json", ["status"]),
    ("engram.config.json", ["load", "smoke"]),
    ("memory.hashes.json", ["verify"]),
    ("memory.hashes.json", ["save", "--force", "Pin the Node version in CI"]),
    ("changelog.md", ["save", "--force", "Pin the Node version in CI"]),
])
def test_a_directory_where_a_root_file_belongs_is_a_coded_error(
        project: Path, root: Path, name: str, command: list[str]) -> None:
    (root / name).unlink(missing_ok=True)
    (root / name).mkdir()
    done = _run(project, *command)
    assert done.returncode == 1, (done.stdout, done.stderr)
    assert "Traceback" not in done.stderr
    # Refused up front by the containment check or when the file is read: coded either way.
    assert f"{name} is" in done.stderr and "regular file" in done.stderr
    assert "fix: " in done.stderr
    # Another candidate: the first save wrote its memory and hash before the changelog failed.
    again = [a.replace("Node", "Python") for a in command]
    done = _run(project, *again, "--json")
    envelope = json.loads(done.stdout)
    assert envelope["ok"] is False
    assert envelope["diagnostics"][0]["code"].startswith("storage.")


@pytest.mark.parametrize("command", [["load", "x"], ["status"], ["verify"], ["init"],
                                     ["save", "--force", "Pin the Node version in CI"],
                                     ["config", "list"]])
def test_workspace_that_is_a_regular_file_is_a_usage_error(project: Path,
                                                           command: list[str]) -> None:
    plain = project / "notes.txt"
    plain.write_text("not a project\n")
    done = _run(project, *command, "--workspace", str(plain))
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert "is a file, not a directory" in done.stderr


def test_a_file_where_the_memory_root_belongs_is_a_coded_error(project: Path) -> None:
    (project / ".agents").mkdir()
    (project / ".agents" / ".engram").write_text("oops\n")
    done = _run(project, "init")
    assert done.returncode == 1 and "Traceback" not in done.stderr and "fix: " in done.stderr
    done = _run(project, "save", "--force", "Pin the Node version in CI", "--json")
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert json.loads(done.stdout)["diagnostics"][0]["code"].startswith("storage.")
