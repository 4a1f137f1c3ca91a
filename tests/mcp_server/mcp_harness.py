"""Test harness for the MCP tests: a raw line client over the server, in this process over
in-memory streams (`InProcessServer`: the `Server` takes any `IO[bytes]`) or over a real
`engram-mcp` subprocess (`RawServer`, for what only a process shows: the fd-1 guard, exit on
stdin EOF, start-up imports)."""

from __future__ import annotations

import contextlib
import io
import json
import os
import queue
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import mcp_types as types
    from mcp import Client

from engram.mcp.server import ServerOptions

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


class LineClient:
    """What every test client does with the server's lines: send, wait for replies, inspect."""

    fake_dir: Path
    lines: list[bytes]
    inbox: queue.Queue[dict[str, Any]]
    _next: int

    def write(self, raw: bytes) -> None:
        raise NotImplementedError

    def _received(self, line: bytes) -> None:
        self.lines.append(line)
        try:
            self.inbox.put(json.loads(line))
        except ValueError:
            self.inbox.put({"unparseable": line.decode("utf-8", "replace")})

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


class FakeTime:
    """The server's clock in tests: real monotonic time plus an offset a test moves forward
    (`advance`) to expire a dialog or a request state at once, instead of sleeping. Backed by
    a file when given one, so a test can move the clock of a server in another process."""

    def __init__(self, path: Path | None = None) -> None:
        self.path = path
        self.offset = 0.0

    def __call__(self) -> float:
        if self.path is not None:
            with contextlib.suppress(OSError, ValueError):
                self.offset = float(self.path.read_text() or 0)
        return time.monotonic() + self.offset

    def advance(self, seconds: float) -> None:
        self.offset += seconds
        if self.path is not None:
            self.path.write_text(repr(self.offset))


class Stdin(io.BytesIO):
    """The server's stdin: lines fed by the test, `readline` blocks until one arrives."""

    def __init__(self) -> None:
        super().__init__()
        self._buf = bytearray()
        self._eof = False
        self._cond = threading.Condition()

    def feed(self, data: bytes) -> None:
        with self._cond:
            self._buf += data
            self._cond.notify_all()

    def end(self) -> None:
        with self._cond:
            self._eof = True
            self._cond.notify_all()

    def readline(self, size: int | None = -1, /) -> bytes:
        limit = -1 if size is None else size
        with self._cond:
            while True:
                newline = self._buf.find(b"\n")
                if newline >= 0 and (limit < 0 or newline < limit):
                    n = newline + 1
                elif 0 <= limit <= len(self._buf) or self._eof:
                    n = limit if 0 <= limit <= len(self._buf) else len(self._buf)
                else:
                    self._cond.wait()
                    continue
                out = bytes(self._buf[:n])
                del self._buf[:n]
                return out


class Stdout(io.BytesIO):
    """The server's protocol output: each complete line goes to `sink`."""

    def __init__(self, sink: Callable[[bytes], None]) -> None:
        super().__init__()
        self._sink = sink
        self._partial = b""

    def write(self, data: Any, /) -> int:
        chunk = bytes(data)
        *whole, self._partial = (self._partial + chunk).split(b"\n")
        for line in whole:
            self._sink(line + b"\n")
        return len(chunk)

    def flush(self) -> None:
        pass


def server_options(args: list[str], clock: FakeTime | None = None
                   ) -> tuple[list[str], ServerOptions, bool]:
    """Split test-only options off `args` (`--dialog-timeout S`, `--state-ttl S`,
    `--real-core`, `--clock-file PATH`): (engram-mcp args, server options, real core?)."""
    from engram.mcp.main import parse

    rest: list[str] = []
    timeout, ttl, real = 60.0, 900.0, False
    it = iter(args)
    for arg in it:
        if arg == "--dialog-timeout":
            timeout = float(next(it))
        elif arg == "--state-ttl":
            ttl = float(next(it))
        elif arg == "--real-core":
            real = True
        elif arg == "--clock-file":
            clock = FakeTime(Path(next(it)))
        else:
            rest.append(arg)
    flags = parse(rest)
    options = ServerOptions(always_load=flags.always_load, elicitation=not flags.no_elicitation,
                      dialog_timeout=timeout, state_ttl=ttl)
    return rest, options if clock is None else options._replace(clock=clock), real


class InProcessServer(LineClient):
    """The real `Server` on a thread of this process, over in-memory stdin/stdout: the same
    protocol code as `engram-mcp` (framing, eras, handlers, dialog) without a subprocess, so
    coverage sees it and a test can inject a clock (`time`) into the request-state box."""

    def __init__(self, args: list[str], fake_dir: Path | None) -> None:
        from engram.mcp.core import Core, EngineCore
        from engram.mcp.main import parse
        from engram.mcp.server import Server
        from tests.mcp_server.fake_core import FakeCore

        self.time = FakeTime()
        rest, options, real = server_options(args, self.time)
        self.fake_dir = fake_dir or Path("/nonexistent")
        workspace = parse(rest).workspace
        core: Core = (EngineCore(workspace) if real or fake_dir is None
                      else FakeCore(fake_dir))
        self.lines = []
        self.inbox = queue.Queue()
        self.stderr = b""
        self._next = 1000
        self.stdin = Stdin()
        self.server = Server(core, options, Stdout(self._received))
        self._thread = threading.Thread(target=self.server.serve, args=(self.stdin,),
                                        daemon=True, name="engram-mcp-test")
        self._thread.start()

    def write(self, raw: bytes) -> None:
        self.stdin.feed(raw)

    def close(self) -> int:
        self.stdin.end()
        self._thread.join(timeout=10)
        assert not self._thread.is_alive(), "the server did not stop at stdin EOF"
        return 0


class RawServer(LineClient):
    """Writes raw lines to a real `engram-mcp` process's stdin; collects its stdout lines."""

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
            self._received(line)

    def _read_err(self) -> None:
        assert self.proc.stderr is not None
        for line in self.proc.stderr:
            self.stderr += line

    def write(self, raw: bytes) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(raw)
        self.proc.stdin.flush()

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
