"""Text that is not UTF-8 is refused with its position and a fix, never a traceback.

Bytes that are not UTF-8 reach Engram as lone surrogates: on the command line and stdin (Python
decodes them with surrogateescape: Latin-1 `caf\\xe9` becomes `caf\\udce9`) and in MCP JSON
(`"\\udce9"` is a valid JSON escape). `engram save`, `save-session --force`, `--context` and MCP
`engram_save` used to crash on writing them (`UnicodeEncodeError: surrogates not allowed`)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from tests.conftest import engram_cmd, subprocess_env
from tests.helpers import run_cli
from tests.mcp_server.mcp_harness import InProcessServer

LATIN = "Keep the caf\udce9 menu in sync with the till"


@pytest.fixture
def root(engram_root: Path) -> Path:
    return engram_root


def _nothing_written(root: Path) -> None:
    assert not list(root.glob("*/*.md"))


@pytest.mark.parametrize("args", [["save", "rule", LATIN, "--answer", "A"],
                                  ["save", "rule", LATIN, "--force"],
                                  ["save", "rule", "Keep the menu in sync", "--context",
                                   "caf\udce9", "--answer", "A"]])
def test_cli_arguments_that_are_not_utf8_are_refused(
        root: Path, args: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run_cli(*args, capsys=capsys)
    assert code in (1, 2), out + err
    assert "byte 0xE9, which is not UTF-8" in out + err
    _nothing_written(root)


@pytest.mark.parametrize("extra", [["--force"], []])
def test_stdin_that_is_not_utf8_is_refused(root: Path, project: Path, extra: list[str]) -> None:
    done = subprocess.run([*engram_cmd(), "save-session", *extra],
                          input=b"TYPE: rule | TEXT: Keep the caf\xe9 menu in sync\n",
                          cwd=project, capture_output=True, timeout=30, check=False,
                          env=subprocess_env())
    err = done.stdout.decode("utf-8", "replace") + done.stderr.decode("utf-8", "replace")
    assert b"Traceback" not in done.stderr, err
    assert done.returncode in (1, 2), err
    assert "UTF-8" in err
    _nothing_written(root)


@pytest.mark.parametrize(("tool", "arguments"), [
    ("engram_save", {"text": LATIN, "type": "rule"}),
    ("engram_save", {"text": "Keep the menu in sync", "context": "caf\udce9"}),
    ("engram_note", {"text": "caf\udce9 note"}),
])
def test_mcp_strings_that_are_not_utf8_are_refused(root: Path, project: Path, tool: str,
                                                   arguments: dict[str, str]) -> None:
    server = InProcessServer(["--workspace", str(project), "--no-elicitation"], None)
    try:
        server.call("initialize", {"protocolVersion": "2025-06-18", "capabilities": {}})
        reply = server.call("tools/call", {"name": tool, "arguments": arguments})
        text = json.dumps(reply)
        assert "UnicodeEncodeError" not in text and "failed" not in text, text
        assert "UTF-8" in text, text
    finally:
        assert server.close() == 0
    _nothing_written(root)
