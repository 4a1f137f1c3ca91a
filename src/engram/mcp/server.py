"""The stdio loop: read lines, route each request to its era on its own thread, write replies.

Owns concurrency and the transport rules (docs/mcp.md) that span messages: notifications get no
reply, `notifications/cancelled` suppresses the reply of a request in flight (and ends its
pending dialog), client responses are handed to the dialog waiting for them, and stdin EOF ends
the server promptly even while a dialog is pending. Each request runs on its own daemon thread
(at most MAX_IN_FLIGHT) so a pending dialog never blocks other requests; every engine call runs
on one engine thread, because engine resources (SQLite connections) are thread-affine.
"""

from __future__ import annotations

import itertools
import queue
import sys
import threading
import time
from collections.abc import Callable
from typing import IO, Any, NamedTuple

from engram.mcp import legacy, modern
from engram.mcp import protocol as p
from engram.mcp.core import Core
from engram.mcp.elicitation import StateBox
from engram.mcp.framing import (
    Fault,
    Notification,
    Request,
    RequestId,
    Response,
    RpcError,
    classify,
    encode,
    error_message,
    read_lines,
    result_message,
    valid_id,
)
from engram.mcp.handlers import Handlers
from engram.mcp.tools import tool_list

POLL_S = 0.05
EXIT_GRACE_S = 2.0


class ServerOptions(NamedTuple):
    always_load: bool = False
    elicitation: bool = True
    dialog_timeout: float = p.DIALOG_TIMEOUT_S
    state_ttl: float = p.REQUEST_STATE_TTL_S
    # Seconds, for dialog timeouts and request-state lifetimes; tests move a fake one.
    clock: Callable[[], float] = time.monotonic


class Flight:
    """One request being served; `cancelled` is set by notifications/cancelled."""

    def __init__(self, id_: RequestId) -> None:
        self.id = id_
        self.cancelled = threading.Event()


class _Waiter:
    def __init__(self) -> None:
        self.done = threading.Event()
        self.result: Any = None
        self.error: Any = None


class _Job:
    def __init__(self, fn: Callable[[], Any]) -> None:
        self.fn = fn
        self.done = threading.Event()
        self.result: Any = None
        self.error: BaseException | None = None


def coded(exc: BaseException) -> BaseException:
    """An engine failure as the tool result should name it (`engram.storage.coded_error`: full
    disk, SQLite "database or disk is full", a directory where a file belongs, runaway
    nesting); anything else unchanged."""
    from engram.storage import coded_error

    return coded_error(exc) or exc


class EngineThread:
    """One thread runs every engine call, in order (thread-affine SQLite, no write races)."""

    def __init__(self) -> None:
        self._jobs: queue.SimpleQueue[_Job | None] = queue.SimpleQueue()
        self._thread = threading.Thread(target=self._loop, name="engram-engine", daemon=True)
        self._thread.start()

    def run(self, fn: Callable[[], Any]) -> Any:
        job = _Job(fn)
        self._jobs.put(job)
        job.done.wait()
        if job.error is not None:
            raise job.error
        return job.result

    def _loop(self) -> None:
        while (job := self._jobs.get()) is not None:
            try:
                job.result = job.fn()
            except BaseException as exc:  # handed back to the caller's thread, coded if we can
                job.error = coded(exc)
            job.done.set()

    def stop(self, timeout: float) -> None:
        """Let queued work finish (a write in progress must complete), then end the thread."""
        self._jobs.put(None)
        self._thread.join(timeout)


class Server:
    def __init__(self, core: Core, options: ServerOptions, out: IO[bytes]) -> None:
        self.options = options
        self.session = legacy.Session()
        self.tools = tool_list(always_load=options.always_load)
        self._engine = EngineThread()
        self.handlers = Handlers(core, self._engine.run,
                                 StateBox(ttl=options.state_ttl, clock=options.clock))
        self._out = out
        self._write_lock = threading.Lock()
        self._lock = threading.Lock()
        self._flights: dict[RequestId, Flight] = {}
        self._threads: set[threading.Thread] = set()
        self._waiters: dict[str, _Waiter] = {}
        self._slots = threading.BoundedSemaphore(p.MAX_IN_FLIGHT)
        self._closed = threading.Event()
        self._ids = itertools.count(1)

    # the loop ------------------------------------------------------------------------------

    def serve(self, stdin: IO[bytes]) -> None:
        try:
            for line in read_lines(stdin):
                message = classify(line)
                if message is not None:
                    self._accept_safely(message)
                if self._closed.is_set():
                    break
        finally:
            self.close()

    def _accept_safely(self, message: Fault | Request | Notification | Response) -> None:
        """Accept one message; a fault in handling it never ends the loop (the next request must
        still be answered)."""
        try:
            self._accept(message)
        except Exception:  # a bug on the reader thread: log it, keep serving
            import traceback

            traceback.print_exc(file=sys.stderr)
            if isinstance(message, Request):
                self.send(error_message(message.id, p.INTERNAL_ERROR, "Internal error"))

    def _accept(self, message: Fault | Request | Notification | Response) -> None:
        if isinstance(message, Fault):
            self.send(message.reply)
        elif isinstance(message, Response):
            self._deliver(message)
        elif isinstance(message, Notification):
            self._notify(message)
        else:
            self._start(message)

    def _start(self, req: Request) -> None:
        flight = Flight(req.id)
        # Never block the reader: it must stay free to deliver the answers pending dialogs wait on.
        if not self._slots.acquire(blocking=False):
            self.send(error_message(req.id, p.INTERNAL_ERROR, "Server busy: "
                                    f"{p.MAX_IN_FLIGHT} requests in flight; retry shortly"))
            return
        thread = threading.Thread(target=self._work, args=(req, flight), daemon=True,
                                  name=f"engram-req-{req.id}")
        with self._lock:
            self._flights[req.id] = flight
            self._threads.add(thread)
        thread.start()

    def _work(self, req: Request, flight: Flight) -> None:
        try:
            reply = result_message(req.id, self._route(req, flight))
        except RpcError as exc:
            reply = error_message(req.id, exc.code, exc.message, exc.data)
        except Exception as exc:  # never let one request take the server down
            import traceback

            traceback.print_exc(file=sys.stderr)
            from engram.storage import fault_text

            reply = error_message(req.id, p.INTERNAL_ERROR, f"Internal error: {fault_text(exc)[0]}")
        finally:
            with self._lock:
                self._flights.pop(req.id, None)
                self._threads.discard(threading.current_thread())
            self._slots.release()
        if not flight.cancelled.is_set():
            self.send(reply)

    def _route(self, req: Request, flight: Flight) -> Any:
        if modern.is_modern(req.params):
            return modern.handle(self, req)
        return legacy.handle(self, req, flight)

    def _notify(self, note: Notification) -> None:
        if note.method == "notifications/cancelled":
            target = note.params.get("requestId")
            if not valid_id(target):  # a list or an object names no request (and is unhashable)
                return
            with self._lock:
                flight = self._flights.get(target)
            if flight is not None:
                flight.cancelled.set()

    # output and server-to-client requests -------------------------------------------------------

    def send(self, message: dict[str, Any]) -> None:
        data = encode(message)
        with self._write_lock:
            if self._closed.is_set() and "id" in message and "method" in message:
                return
            try:
                self._out.write(data)
                self._out.flush()
            except (OSError, ValueError):
                self._closed.set()  # the client is gone; stop reading too

    def ask(self, request: dict[str, Any], flight: Flight) -> tuple[str, Any]:
        """Send elicitation/create and wait: ("answer"|"error"|"timeout"|"gone", payload)."""
        out_id = f"engram-elicit-{next(self._ids)}"
        waiter = _Waiter()
        with self._lock:
            self._waiters[out_id] = waiter
        self.send({"jsonrpc": "2.0", "id": out_id, "method": "elicitation/create",
                   "params": request})
        clock = self.options.clock
        deadline = clock() + self.options.dialog_timeout
        try:
            while not waiter.done.wait(POLL_S):
                if self._closed.is_set() or flight.cancelled.is_set():
                    return "gone", None
                if clock() >= deadline:
                    self.send({"jsonrpc": "2.0", "method": "notifications/cancelled",
                               "params": {"requestId": out_id,
                                          "reason": "approval dialog timed out"}})
                    return "timeout", None
        finally:
            with self._lock:
                self._waiters.pop(out_id, None)
        return ("error", waiter.error) if waiter.error is not None else ("answer", waiter.result)

    def _deliver(self, response: Response) -> None:
        with self._lock:
            waiter = self._waiters.get(str(response.id))
        if waiter is not None:
            waiter.result, waiter.error = response.result, response.error
            waiter.done.set()

    # engine and shutdown ------------------------------------------------------------------

    def close(self) -> None:
        """Stdin closed: end pending dialogs now, give running work a moment, stop the engine."""
        self._closed.set()
        with self._lock:
            threads = list(self._threads)
        for thread in threads:
            thread.join(EXIT_GRACE_S / max(len(threads), 1))
        self._engine.stop(EXIT_GRACE_S)
