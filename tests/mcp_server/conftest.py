"""Fixtures for the MCP tests (the harness itself lives in mcp_harness.py)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from mcp_harness import RawServer


@pytest.fixture(scope="module")
def raw_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RawServer]:
    """One long-lived server per module, initialized at 2025-06-18 with form elicitation."""
    server = RawServer(["--dialog-timeout", "1.0", "--state-ttl", "1.5"],
                       tmp_path_factory.mktemp("fake"))
    yield server
    server.close()
