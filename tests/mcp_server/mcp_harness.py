"""Test harness for the MCP tests: a raw line client over a real `engram-mcp` subprocess."""

from __future__ import annotations

import json
import os
import queue
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import mcp_types as types
    from mcp import Client

HERE = Path(__file__).resolve().parent
SRC = HERE.parent.parent / "src"
FAKE_SERVER = HERE / "fake_server.py"
MODERN = "2026-07-28"


def server_env() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(SRC) + os.pathsep + env.get("PYTHONPATH", "")
    return env


def modern_meta(version: str = MODERN, caps: dict[str, Any] | None = None) -> dict[str, Any]:
    return {"io.modelcontextprotocol/protocolVersion": version,
            "io.modelcontextprotocol/clientCapabilities": {} if caps is None else caps}


class RawServer:
    """Writes raw lines to the server's stdin and collects every stdout line it prints."""

    def __init__(self, args: list[str], fake_dir: Path | None) -> None:
        """Over the fake core in `fake_dir`, or the real `python -m engram.mcp` when None."""
        self.fake_dir = fake_dir or Path("/nonexistent")
        command = ([sys.executable, "-m", "engram.mcp"] if fake_dir is None
                   else [sys.executable, str(FAKE_SERVER), "--fake-dir", str(fake_dir)])
        self.proc = subprocess.Popen(
            [*command, *args],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            env=server_env())
        self.lines: list[bytes] = []
        self.inbox: queue.Queue[dict[str, Any]] = queue.Queue()
        self.stderr = b""
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()
        self._err_reader = threading.Thread(target=self._read_err, daemon=True)
        self._err_reader.start()
        self._next = 1000

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.append(line)
            try:
                self.inbox.put(json.loads(line))
            except ValueError:
                self.inbox.put({"unparseable": line.decode("utf-8", "replace")})

    def _read_err(self) -> None:
        assert self.proc.stderr is not None
        for line in self.proc.stderr:
            self.stderr += line

    def write(self, raw: bytes) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(raw)
        self.proc.stdin.flush()

    def send(self, message: dict[str, Any]) -> None:
        self.write(json.dumps(message).encode() + b"\n")

    def next_id(self) -> int:
        self._next += 1
        return self._next

    def recv(self, pred: Any, timeout: float = 10.0) -> dict[str, Any]:
        """The next message matching `pred`; others are kept for later calls."""
        deadline = time.monotonic() + timeout
        held: list[dict[str, Any]] = []
        try:
            while True:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    raise AssertionError("no matching message from the server")
                msg = self.inbox.get(timeout=remaining)
                if pred(msg):
                    return msg
                held.append(msg)
        finally:
            for msg in held:
                self.inbox.put(msg)

    def reply_to(self, id_: Any, timeout: float = 10.0) -> dict[str, Any]:
        return self.recv(lambda m: m.get("id") == id_ and "method" not in m, timeout)

    def call(self, method: str, params: dict[str, Any] | None = None,
             id_: Any = None) -> dict[str, Any]:
        id_ = self.next_id() if id_ is None else id_
        message: dict[str, Any] = {"jsonrpc": "2.0", "id": id_, "method": method}
        if params is not None:
            message["params"] = params
        self.send(message)
        return self.reply_to(id_)

    def silent_for(self, seconds: float) -> bool:
        try:
            self.inbox.get(timeout=seconds)
        except queue.Empty:
            return True
        return False

    def written(self) -> list[dict[str, Any]]:
        path = self.fake_dir / "written.json"
        return json.loads(path.read_text())["memories"] if path.exists() else []

    def close(self) -> int:
        if self.proc.stdin and not self.proc.stdin.closed:
            self.proc.stdin.close()
        try:
            return self.proc.wait(timeout=5)
        finally:
            if self.proc.poll() is None:
                self.proc.kill()
            assert self.proc.stdout is not None and self.proc.stderr is not None
            self._reader.join(timeout=2)
            self._err_reader.join(timeout=2)
            self.proc.stdout.close()
            self.proc.stderr.close()


async def checked_call(client: Client, name: str, args: dict[str, Any]) -> types.CallToolResult:
    """An SDK tools/call whose result is validated again for the negotiated version."""
    from mcp_types.methods import validate_server_result

    result = await client.call_tool(name, args)
    version = client.session.protocol_version
    assert version is not None
    validate_server_result("tools/call", version,
                           result.model_dump(by_alias=True, mode="json", exclude_none=True))
    return result
