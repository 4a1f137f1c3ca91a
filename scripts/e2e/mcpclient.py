"""A minimal stdio client for the Engram server under test (newline-delimited JSON-RPC).

The suite uses it as the reference for what the server itself returns (tools/list, the
`content[0].text` of a call) and to mint an approval token outside any host.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

INIT = {"protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "engram-e2e", "version": "1"}}


class Server:
    """One `engram-mcp` process in a project directory; use as a context manager."""

    def __init__(self, command: list[str], cwd: Path, env: dict[str, str]) -> None:
        self._proc = subprocess.Popen(command, cwd=cwd, env=env, stdin=subprocess.PIPE,
                                      stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                      text=True)
        self._next = 0

    def __enter__(self) -> Server:
        self.request("initialize", INIT)
        self._send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        return self

    def __exit__(self, *exc: object) -> None:
        if self._proc.stdin:
            self._proc.stdin.close()
        try:
            self._proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self._proc.kill()
            self._proc.wait()

    def _send(self, message: dict[str, Any]) -> None:
        if self._proc.stdin is None:
            raise RuntimeError("engram-mcp has no stdin")
        self._proc.stdin.write(json.dumps(message) + "\n")
        self._proc.stdin.flush()

    def request(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        self._next += 1
        self._send({"jsonrpc": "2.0", "id": self._next, "method": method, "params": params})
        if self._proc.stdout is None:
            raise RuntimeError("engram-mcp has no stdout")
        for line in self._proc.stdout:
            message = json.loads(line)
            if message.get("id") == self._next:
                if "error" in message:
                    raise RuntimeError(f"{method}: {message['error']}")
                return message["result"]  # type: ignore[no-any-return]
        raise RuntimeError(f"{method}: the server closed its output")

    def call(self, tool: str, args: dict[str, Any]) -> dict[str, Any]:
        return self.request("tools/call", {"name": tool, "arguments": args})

    def read(self, uri: str) -> str:
        """The text of a resource, its contents joined."""
        contents = self.request("resources/read", {"uri": uri}).get("contents") or []
        return "\n".join(str(c.get("text", "")) for c in contents)

    def tool_names(self) -> list[str]:
        return sorted(t["name"] for t in self.request("tools/list", {})["tools"])


def content_text(result: dict[str, Any]) -> str:
    """The text a `content`-reading host gives the model."""
    return "\n".join(str(b.get("text", "")) for b in result.get("content") or []
                     if b.get("type") == "text")


def approval_token(result: dict[str, Any]) -> str:
    """The token of an engram_save result (structured data first, then the text)."""
    data = (result.get("structuredContent") or {}).get("data") or {}
    token = data.get("approval_token")
    if isinstance(token, str):
        return token
    for line in content_text(result).splitlines():
        if line.startswith("approval_token:"):
            return line.split()[1]
    raise RuntimeError(f"engram_save returned no approval token: {content_text(result)[:300]}")
