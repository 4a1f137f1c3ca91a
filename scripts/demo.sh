#!/usr/bin/env bash
# The README's first command: install Engram into .venv/ and run the demo (offline after the
# install): a throwaway project where an agent proposes, a human approves, a task loads memory
# and an MCP client talks to engram-mcp.
set -euo pipefail
cd "$(dirname "$0")/.."
[ -x .venv/bin/python ] || python3 -m venv .venv
export PIP_DISABLE_PIP_VERSION_CHECK=1
.venv/bin/python -m pip install --quiet -e .
exec .venv/bin/engram demo "$@"
