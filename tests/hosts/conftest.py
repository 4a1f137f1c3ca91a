"""Fixtures for host tests: a PATH with (or without) fake `engram-mcp`/`engram`, a fixed version."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

import engram
from engram.cli.main import main
from engram.hosts import command, jsonc

VERSION = "1.2.3"


@pytest.fixture(autouse=True)
def fixed_version(monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setattr(engram, "__version__", VERSION)
    return VERSION


@pytest.fixture
def bin_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """PATH holds only a dir with fake engram and engram-mcp (so entries use the bare form)."""
    d = tmp_path / "bin"
    d.mkdir()
    fake(d / "engram")
    fake(d / "engram-mcp", answers_initialize=True)
    monkeypatch.setenv("PATH", str(d))
    install_at(monkeypatch, d)
    return d


ANSWER = ('{"jsonrpc": "2.0", "id": 1, "result": {"protocolVersion": "2025-06-18", '
          '"capabilities": {}, "serverInfo": {"name": "engram", "version": "fake"}}}')


def fake(path: Path, *, answers_initialize: bool = False, fails: str = "") -> Path:
    """An executable stand-in: exits 0, or answers one MCP initialize, or fails with a message."""
    if fails:
        body = f"echo '{fails}' >&2\nexit 1\n"
    elif answers_initialize:
        body = f"read line\necho '{ANSWER}'\n"
    else:
        body = "exit 0\n"
    path.write_text("#!/bin/sh\n" + body)
    path.chmod(0o755)
    return path


def install_at(monkeypatch: pytest.MonkeyPatch, scripts: Path | None, *, isolated: bool = False,
               under_uvx: bool = False) -> None:
    """Make the running Engram look installed with its console scripts in `scripts`."""
    found = command.Install(scripts, isolated, under_uvx)
    monkeypatch.setattr(command, "this_install", lambda: found)


@pytest.fixture
def empty_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Engram running under `uvx`, nothing on PATH: entries take the pinned uvx form."""
    d = tmp_path / "nobin"
    d.mkdir()
    monkeypatch.setenv("PATH", str(d))
    install_at(monkeypatch, None, under_uvx=True)
    return d


@pytest.fixture
def home(isolated_env: Path) -> Path:
    return isolated_env.parent / "home"


FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "hosts"


class Kit:
    """Helpers handed to tests as a fixture (test modules do not import each other)."""

    fixtures = FIXTURES

    @staticmethod
    def copy_tree(src: Path, dst: Path) -> None:
        copy_tree(src, dst)

    @staticmethod
    def snapshot(base: Path) -> dict[str, bytes]:
        return snapshot(base)

    @staticmethod
    def doctor(capsys: pytest.CaptureFixture[str]) -> tuple[int, list[dict[str, Any]]]:
        """Run `engram doctor --json`; its exit code and findings."""
        capsys.readouterr()
        code = main(["doctor", "--json"])
        return code, json.loads(capsys.readouterr().out)["data"]["findings"]

    @staticmethod
    def json(path: Path) -> Any:
        return jsonc.loads(path.read_text())

    @staticmethod
    def fake(path: Path, *, answers_initialize: bool = False, fails: str = "") -> Path:
        return fake(path, answers_initialize=answers_initialize, fails=fails)

    @staticmethod
    def install_at(monkeypatch: pytest.MonkeyPatch, scripts: Path | None, *,
                   isolated: bool = False, under_uvx: bool = False) -> None:
        install_at(monkeypatch, scripts, isolated=isolated, under_uvx=under_uvx)


@pytest.fixture
def kit() -> type[Kit]:
    return Kit


def copy_tree(src: Path, dst: Path) -> None:
    if src.is_dir():
        shutil.copytree(src, dst, dirs_exist_ok=True)


def snapshot(base: Path, skip: tuple[str, ...] = (".engram",)) -> dict[str, bytes]:
    """Every file under base (relative posix path → bytes), minus Engram's own config dir."""
    out = {}
    for p in sorted(base.rglob("*")):
        rel = p.relative_to(base).as_posix()
        if p.is_file() and not any(rel == s or rel.startswith(s + "/") for s in skip):
            out[rel] = p.read_bytes()
    return out
