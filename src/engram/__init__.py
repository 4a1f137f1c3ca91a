"""Engram: human-owned, file-first memory for AI coding agents.

The version lives here and only here: `engram --version`, the MCP `serverInfo.version` and the
pinned launch command all read `engram.__version__`.
"""

__version__ = "0.1.0"
