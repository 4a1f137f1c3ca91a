"""A loopback HTTP server that plays the model for all four hosts and records every request.

The model is a script: the n-th reply of a conversation calls `script[n]`, where n is the
number of tool results the request already carries (a call with `pick` chooses its arguments
from those results, as a model reading them would); after the script it answers `final_text`.
Requests without tools (titles, routers, quota probes) get a short text. Every request is
appended to a JSONL file as {path, api, body, answered, args} so checks can read what the
model saw and what it called.
"""

from __future__ import annotations

import gzip
import json
import threading
import time
import zlib
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from .wire import Call, api_for

# Gemini's router and next-speaker checks are non-streaming JSON-mode requests without tools.
SIDE_JSON = json.dumps({"reasoning": "mock", "model_choice": "flash", "next_speaker": "user"})


class MockModel:
    """The scripted model; `start()` binds 127.0.0.1 on a free port."""

    def __init__(self) -> None:
        self.script: list[Call] = []
        self.final_text = "E2E done."
        self.record: Path | None = None
        self._lock = threading.Lock()
        self._server: ThreadingHTTPServer | None = None

    @property
    def port(self) -> int:
        if self._server is None:
            raise RuntimeError("the mock model is not started")
        return int(self._server.server_address[1])

    def start(self) -> None:
        model = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: Any) -> None:
                pass

            def do_HEAD(self) -> None:
                self.send_response(200)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def do_GET(self) -> None:
                model.log({"method": "GET", "path": self.path})
                self._send(200, "application/json", b'{"object": "list", "data": []}')

            def do_POST(self) -> None:
                raw = self._body()
                try:
                    body = json.loads(raw or b"{}")
                except ValueError:
                    body = {"unparsed": raw[:2000].decode("utf-8", "replace")}
                ctype, payload = model.answer(self.path, body)
                self._send(200, ctype, payload)

            def _body(self) -> bytes:
                if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
                    data = b""
                    while True:
                        size = int(self.rfile.readline().strip() or b"0", 16)
                        if size == 0:
                            self.rfile.readline()
                            break
                        data += self.rfile.read(size)
                        self.rfile.readline()
                else:
                    data = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                enc = self.headers.get("Content-Encoding", "").lower()
                if enc == "gzip":
                    return gzip.decompress(data)
                if enc == "deflate":
                    return zlib.decompress(data)
                return data

            def _send(self, code: int, ctype: str, payload: bytes) -> None:
                self.send_response(code)
                self.send_header("Content-Type", ctype)
                self.send_header("Content-Length", str(len(payload)))
                self.send_header("Connection", "close")
                self.end_headers()
                self.wfile.write(payload)

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self._server.serve_forever, args=(0.05,), daemon=True).start()

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()

    def log(self, entry: dict[str, Any]) -> None:
        entry["t"] = round(time.time(), 3)
        with self._lock:
            if self.record is not None:
                with self.record.open("a", encoding="utf-8") as out:
                    out.write(json.dumps(entry, ensure_ascii=False) + "\n")

    def answer(self, path: str, body: Any) -> tuple[str, bytes]:
        """Pick the scripted reply for one POST and record the request."""
        entry: dict[str, Any] = {"method": "POST", "path": path, "body": body}
        if "count_tokens" in path or ":countTokens" in path:
            self.log(entry)
            return "application/json", b'{"input_tokens": 100, "totalTokens": 100}'
        api = api_for(path)
        if api is None or not isinstance(body, dict):
            self.log(entry)
            return "application/json", b"{}"
        stream = bool(body.get("stream")) or ":streamGenerateContent" in path
        call: Call | None = None
        text = "Mock reply."
        results = api.results(body)
        if api.listed(body):
            with self._lock:
                call = self.script[len(results)] if len(results) < len(self.script) else None
            call = call.given(results) if call else None
            text = self.final_text
        elif api.name == "gemini" and not stream:
            text = SIDE_JSON
        entry.update(api=api.name, answered=call.tool if call else "text")
        if call is not None:
            entry.update(step=len(results), args=call.args)
        self.log(entry)
        payload = api.reply(call, text, len(results), stream)
        return ("text/event-stream" if stream else "application/json"), payload
