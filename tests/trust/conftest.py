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
