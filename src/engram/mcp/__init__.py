"""The stdio MCP server: framing, both protocol eras, dispatch, tool tables, elicitation."""
