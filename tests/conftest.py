"""Shared fixtures: every test runs with HOME, ENGRAM_CONFIG_DIR and cwd in a temp dir."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import settings

# CI runs the property tests with a fixed seed sequence (`.ci/run` sets HYPOTHESIS_PROFILE=ci),
# so a landing is never refused by an example found at random; runs elsewhere keep exploring.
settings.register_profile("ci", derandomize=True, print_blob=True)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))

REPO = Path(__file__).resolve().parent.parent
FIXTURES = Path(__file__).resolve().parent / "fixtures"


@pytest.fixture(autouse=True)
def isolated_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """Point every environment input of Engram at a temp dir (STYLE habit 4)."""
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("ENGRAM_CONFIG_DIR", str(home / ".engram"))
    monkeypatch.setenv("ENGRAM_NO_AUTO_UPGRADE", "1")
    # CLAUDE_CODE_ENTRYPOINT: a suite run from inside `claude -p` must still see the dialog.
    for var in ("ENGRAM_WORKSPACE", "ENGRAM_GLOBAL_DIR", "ENGRAM_SESSION_OBJECTIVE",
                "CLAUDE_CODE_ENTRYPOINT"):
        monkeypatch.delenv(var, raising=False)
    project = tmp_path / "project"
    project.mkdir()
    monkeypatch.chdir(project)
    yield project


@pytest.fixture
def project(isolated_env: Path) -> Path:
    """An empty project directory that is the cwd."""
    return isolated_env


def engram_cmd() -> list[str]:
    """The CLI as a subprocess, from this checkout, without relying on PATH."""
    return [sys.executable, "-m", "engram"]


def subprocess_env(**extra: str) -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(REPO / "src") + os.pathsep + env.get("PYTHONPATH", "")
    env.update(extra)
    return env


@pytest.fixture
def engram_root(project: Path) -> Path:
    """The project after `engram init`: its workspace memory root (nothing printed)."""
    from engram.store.layout import init_root
    from engram.workspace import Root

    root = project / ".agents" / ".engram"
    init_root(Root(root, "workspace"))
    return root
