"""Fixtures for the MCP tests (the harness itself lives in mcp_harness.py)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.mcp_server.mcp_harness import InProcessServer


@pytest.fixture(scope="module")
def raw_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[InProcessServer]:
    """One long-lived in-process server per module over the fake core, with a 1 s dialog
    timeout and 1.5 s request states (on its injectable clock, `raw_server.time`)."""
    server = InProcessServer(["--dialog-timeout", "1.0", "--state-ttl", "1.5"],
                             tmp_path_factory.mktemp("fake"))
    yield server
    server.close()
