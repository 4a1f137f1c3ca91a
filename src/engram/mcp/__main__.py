"""`python -m engram.mcp` runs the MCP server (tests and the pinned fallback use it)."""

from engram.mcp.main import main

raise SystemExit(main())
