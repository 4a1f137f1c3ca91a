"""Who is proposing, for the proposal caps (approvals.py): the command line, or one MCP session.

One `engram-mcp` process is one host session; the server marks it at start. Kept apart from
approvals.py so the server's cold start imports nothing else.
"""

from __future__ import annotations

import os

CLI = "cli"
_current = [CLI]


def begin_session() -> None:
    """Count this process's proposals as one MCP session of their own."""
    _current[0] = f"mcp:{os.getpid()}:{os.urandom(4).hex()}"


def current() -> str:
    return _current[0]
