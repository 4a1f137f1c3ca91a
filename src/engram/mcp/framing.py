"""Line framing of JSON-RPC over stdio: bytes in, classified messages out; one line per message out.

Owns the transport rules (docs/mcp.md) for single lines: a line that is not UTF-8 or not JSON is a
parse error (`-32700`, `id: null`), a batch or a non-object is an invalid request (`-32600`), a
line longer than the cap is drained and answered with `-32700` instead of exhausting memory.
It does not route methods (server.py) and knows nothing about eras.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import IO, Any, NamedTuple, TypeGuard

from engram.mcp.protocol import INVALID_PARAMS, INVALID_REQUEST, MAX_LINE_BYTES, PARSE_ERROR

RequestId = str | int


class Request(NamedTuple):
    id: RequestId
    method: str
    params: dict[str, Any]


class Notification(NamedTuple):
    method: str
    params: dict[str, Any]


class Response(NamedTuple):
    """A client's reply to a request we sent (elicitation/create)."""

    id: RequestId
    result: Any
    error: Any


class Fault(NamedTuple):
    """A line we answer with an error right away; `reply` is the whole JSON-RPC message."""

    reply: dict[str, Any]


Message = Request | Notification | Response | Fault


class RpcError(Exception):
    """A protocol fault answered as a JSON-RPC error (never used for tool failures)."""

    def __init__(self, code: int, message: str, data: Any = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.data = data


def error_message(id_: RequestId | None, code: int, message: str,
                  data: Any = None) -> dict[str, Any]:
    error: dict[str, Any] = {"code": code, "message": message}
    if data is not None:
        error["data"] = data
    return {"jsonrpc": "2.0", "id": id_, "error": error}


def result_message(id_: RequestId, result: Any) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": id_, "result": result}


def encode(message: dict[str, Any]) -> bytes:
    """One message, one line. ensure_ascii keeps U+2028 and friends from splitting a line."""
    return json.dumps(message, separators=(",", ":"), ensure_ascii=True).encode("ascii") + b"\n"


def read_lines(stream: IO[bytes], cap: int = MAX_LINE_BYTES) -> Iterator[bytes | None]:
    """Yield each line without its newline; `None` for a line longer than `cap` (drained)."""
    while True:
        line = stream.readline(cap + 1)
        if not line:
            return
        if len(line) > cap and not line.endswith(b"\n"):
            while True:  # drain the rest of the oversized line in bounded chunks
                rest = stream.readline(cap)
                if not rest or rest.endswith(b"\n"):
                    break
            yield None
            continue
        yield line.rstrip(b"\r\n")


def valid_id(value: Any) -> TypeGuard[RequestId]:
    return isinstance(value, str | int) and not isinstance(value, bool)


def classify(line: bytes | None) -> Message | None:
    """Turn one raw line into a message; `None` for a blank line (ignored, not an error)."""
    if line is None:
        return Fault(error_message(None, PARSE_ERROR, "Parse error: line exceeds 10 MB"))
    if not line.strip():
        return None
    try:
        obj = json.loads(line.decode("utf-8"))
    except UnicodeDecodeError:
        return Fault(error_message(None, PARSE_ERROR, "Parse error: line is not valid UTF-8"))
    except json.JSONDecodeError as exc:
        return Fault(error_message(None, PARSE_ERROR,
                                   f"Parse error: invalid JSON at column {exc.colno}"))
    except ValueError:  # e.g. an integer longer than Python's digit limit
        return Fault(error_message(None, PARSE_ERROR, "Parse error: invalid JSON value"))
    except RecursionError:  # e.g. 100,000 `[`: the decoder recurses once per level
        return Fault(error_message(None, PARSE_ERROR, "Parse error: JSON nested too deeply"))
    if isinstance(obj, list):
        return Fault(error_message(None, INVALID_REQUEST,
                                   "Invalid Request: batches are not supported"))
    if not isinstance(obj, dict):
        return Fault(error_message(None, INVALID_REQUEST,
                                   "Invalid Request: a message must be a JSON object"))
    return _classify_object(obj)


def _classify_object(obj: dict[str, Any]) -> Message:
    raw_id = obj.get("id")
    id_: RequestId | None = raw_id if valid_id(raw_id) else None
    if obj.get("jsonrpc") != "2.0":
        return Fault(error_message(id_, INVALID_REQUEST, 'Invalid Request: jsonrpc must be "2.0"'))
    if "method" not in obj:
        if id_ is not None and ("result" in obj or "error" in obj):
            return Response(id_, obj.get("result"), obj.get("error"))
        return Fault(error_message(id_, INVALID_REQUEST, "Invalid Request: missing method"))
    method = obj["method"]
    if not isinstance(method, str):
        return Fault(error_message(id_, INVALID_REQUEST,
                                   "Invalid Request: method must be a string"))
    params = obj.get("params", {})
    if "id" not in obj:
        return Notification(method, params if isinstance(params, dict) else {})
    if id_ is None:
        return Fault(error_message(None, INVALID_REQUEST,
                                   "Invalid Request: id must be a string or an integer"))
    if params is None:
        params = {}
    if not isinstance(params, dict):
        return Fault(error_message(id_, INVALID_PARAMS, "Invalid params: params must be an object"))
    return Request(id_, method, params)
