"""Fixtures for the attack tests: an empty workspace root with its folders."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture
def layout(project: Path) -> Path:
    """`.agents/.engram` with its folders and nothing else (no hashes file yet)."""
    root = project / ".agents" / ".engram"
    for d in ("rules", "skills", "knowledge", "archive", "working"):
        (root / d).mkdir(parents=True, exist_ok=True)
    return root


SECRET = "ssh-rsa AAAA private stuff\n"


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    """A directory outside the repository that a symlink may point to; it must stay as it is."""
    d = tmp_path / "outside"
    d.mkdir()
    (d / "keep.txt").write_text(SECRET)
    return d
