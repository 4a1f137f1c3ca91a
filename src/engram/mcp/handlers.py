"""What every tool, resource and prompt does, in either era, over the `Core` seam.

Owns argument checking (a bad argument is an `isError` result naming the field), the mapping of
engine outcomes and `EngramError`s to tool results, and the approval-dialog flow (docs/mcp.md
"Approval dialog"): a legacy call asks through a blocking `ask` callback, a 2026-07-28 call returns
`InputRequired` and finishes on the retry. It does not frame or route JSON-RPC (server.py,
legacy.py, modern.py).
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, NamedTuple, TypeVar

from engram.errors import EngramError, InvalidIdError, NotFoundError
from engram.mcp import elicitation as dlg
from engram.mcp.arguments import ArgumentError, validate
from engram.mcp.core import Core
from engram.mcp.framing import RpcError
from engram.mcp.protocol import (
    INDEX_URI,
    INTERNAL_ERROR,
    INVALID_PARAMS,
    MARKDOWN,
    MEMORY_URI_PREFIX,
    MEMORY_URI_TEMPLATE,
    PROMPT_DESCRIPTION,
    PROMPT_NAME,
    PROPOSE_PROTOCOL,
    TAKE_CONTROL_DESCRIPTION,
    TAKE_CONTROL_NAME,
    clipped,
    quoted,
)
from engram.mcp.results import texts_once
from engram.mcp.tools import BY_NAME, Dialog, Tool

if TYPE_CHECKING:
    from engram.outcome import Outcome

T = TypeVar("T")
# ask(params) -> ("answer", result) | ("error", error) | ("timeout", None) | ("gone", None)
Ask = Callable[[dict[str, Any]], tuple[str, Any]]
Runner = Callable[[Callable[[], Any]], Any]


class CallContext(NamedTuple):
    """How one tools/call may reach the human: a legacy `ask`, a modern retry, or not at all."""

    dialog: bool = False
    ask: Ask | None = None
    request_state: Any = None
    input_responses: Any = None
    elicit_mode: bool = True  # include `mode: "form"` (legacy >= 2025-11-25 and modern)


class InputRequired(NamedTuple):
    input_requests: dict[str, Any]
    request_state: str


class NotFound(Exception):
    """An unknown resource; each era maps it to its own error code."""


class Handlers:
    def __init__(self, core: Core, run: Runner, box: dlg.StateBox) -> None:
        self.core = core
        self._run = run
        self.box = box

    def engine(self, fn: Callable[[], T]) -> T:
        """Run one engine call on the engine thread (serialised, thread-affine resources)."""
        return self._run(fn)  # type: ignore[no-any-return]

    # tools -------------------------------------------------------------------------------

    def call_tool(self, name: Any, arguments: Any, ctx: CallContext) -> Outcome | InputRequired:
        if not isinstance(name, str):
            raise RpcError(INVALID_PARAMS, "Invalid params: `name` (the tool to call) must be a "
                           f"string, got {quoted(name)}")
        tool = BY_NAME.get(name)
        if tool is None:
            raise RpcError(INVALID_PARAMS, f"Unknown tool: {clipped(name)!r}")
        if arguments is None:
            arguments = {}
        if not isinstance(arguments, dict):
            raise RpcError(INVALID_PARAMS, "Invalid params: arguments must be an object")
        try:
            if ctx.request_state is not None:
                return self._resume(tool, arguments, ctx)
            validate(tool.input_schema, arguments)
            handler = tool.handler
            if isinstance(handler, Dialog):
                return self._propose_flow(tool.name, handler, arguments, ctx)
            return self.engine(lambda: handler(self.core, arguments))
        except ArgumentError as exc:
            return _failure("args.invalid", str(exc), hint="fix the argument and call again")
        except EngramError as exc:
            return _failure(exc.code, exc.message, hint=exc.hint)
        except RpcError:
            raise
        except Exception as exc:  # a bug in the engine must still reach the model as a result
            import traceback

            traceback.print_exc(file=sys.stderr)
            from engram.storage import fault_text

            return _failure("internal", f"{name} failed: {fault_text(exc)[0]}",
                           hint="see the server's stderr; report it if it repeats")

    def plain(self, name: str, params: dict[str, Any]) -> str:
        """A legacy method named after a tool: its plain text, never a dialog."""
        arguments = {k: v for k, v in params.items() if k != "_meta"}
        try:
            validate(BY_NAME[name].input_schema, arguments)
        except ArgumentError as exc:
            raise RpcError(INVALID_PARAMS, f"Invalid params: {exc}") from exc
        outcome = self.call_tool(name, arguments, CallContext())
        return "" if isinstance(outcome, InputRequired) else outcome.text

    def _propose_flow(self, name: str, dialog: Dialog, args: dict[str, Any],
                      ctx: CallContext) -> Outcome | InputRequired:
        proposal = self.engine(lambda: dialog.propose(self.core, args))
        fallback = texts_once(proposal.outcome())
        if not ctx.dialog:
            return fallback
        form = dialog.form(proposal)
        if form is None:
            return fallback
        pending = dlg.Pending(proposal.token, form, fallback)
        request = _elicit_params(form, ctx.elicit_mode)
        if ctx.ask is None:
            digest = dlg.args_digest(args)
            workspace = self.engine(self.core.workspace_key)
            state = self.box.seal(name, workspace, digest, pending)
            return InputRequired({"approve": {"method": "elicitation/create",
                                              "params": request}}, state)
        kind, answer = ctx.ask(request)
        if kind == "answer":
            return self._finish(pending, dlg.interpret(form, answer))
        reason = {"timeout": "the approval dialog timed out",
                  "error": "the client could not show the approval dialog"}.get(
                      kind, "the request was cancelled")
        return self._finish(pending, dlg.Decision("fallback", reason))

    def _resume(self, tool: Tool, args: dict[str, Any], ctx: CallContext) -> Outcome:
        if not isinstance(tool.handler, Dialog):
            raise RpcError(INVALID_PARAMS,
                           f"Invalid params: {tool.name} takes no requestState")
        workspace = self.engine(self.core.workspace_key)
        try:
            pending = self.box.open(ctx.request_state, tool.name, workspace, dlg.args_digest(args))
        except dlg.StateError as exc:
            raise RpcError(INVALID_PARAMS, f"Invalid params: {exc}") from exc
        responses = ctx.input_responses
        if not isinstance(responses, dict) or "approve" not in responses:
            return self._finish(pending, dlg.Decision("decline", "the dialog answer was missing"))
        return self._finish(pending, dlg.interpret(pending.form, responses["approve"]))

    def _finish(self, pending: dlg.Pending, decision: dlg.Decision) -> Outcome:
        try:
            if decision.action == "accept":
                done = self.engine(lambda: self.core.commit(
                    pending.token, list(decision.numbers), decision.scope))
                return _amend(done, text=f"{decision.reason}.\n{done.text}")
            if decision.action == "decline":
                self.engine(lambda: self.core.decline(pending.token))
                from engram import outcome

                return outcome.Outcome(
                    text=f"nothing was saved: {decision.reason}; the proposal was revoked and "
                         "its approval_token will not commit.",
                    data={"approval_token": pending.token, "revoked": True,
                          "reason": decision.reason})
        except EngramError as exc:
            return _failure(exc.code, exc.message, hint=exc.hint)
        fb = pending.fallback
        return _amend(fb, text=f"nothing was saved ({decision.reason}).\n{fb.text}",
                       data={**fb.data, "dialog": decision.reason})

    # resources and prompts -----------------------------------------------------------------

    def resources(self) -> list[dict[str, Any]]:
        index = {"uri": INDEX_URI, "name": "index", "title": "Engram memory index",
                 "description": "One-line cards of all visible memories.", "mimeType": MARKDOWN}

        def top() -> list[dict[str, Any]]:
            n = self.core.resource_limit()
            return self.core.top_by_usage(n) if n > 0 else []

        return [index] + [_memory_resource(m) for m in self.engine(top)]

    @staticmethod
    def templates() -> list[dict[str, Any]]:
        return [{"uriTemplate": MEMORY_URI_TEMPLATE, "name": "memory",
                 "description": "One memory by id, as `engram load --id` prints it.",
                 "mimeType": MARKDOWN}]

    def read(self, uri: Any) -> list[dict[str, Any]]:
        if not isinstance(uri, str):
            raise RpcError(INVALID_PARAMS, "Invalid params: uri must be a string")
        if uri == INDEX_URI:
            read: Callable[[], str] = self.core.index_text
        elif uri.startswith(MEMORY_URI_PREFIX) and len(uri) > len(MEMORY_URI_PREFIX):
            memory_id = uri[len(MEMORY_URI_PREFIX):]
            read = lambda: self.core.memory_text(memory_id)  # noqa: E731
        else:
            raise NotFound(f"Resource not found: {clipped(uri)}")
        try:
            text = self.engine(read)
        except (NotFoundError, InvalidIdError) as exc:
            raise NotFound(f"Resource not found: {clipped(uri)} ({clipped(str(exc), 200)})") \
                from exc
        except EngramError as exc:
            # Anything else (a refused root, a storage fault) is not "not found": say what.
            fix = f" (fix: {exc.hint})" if exc.hint else ""
            raise RpcError(INTERNAL_ERROR,
                           f"Resource {clipped(uri)} cannot be read: {exc.message}{fix}",
                           {"uri": clipped(uri), "code": exc.code}) from exc
        return [{"uri": uri, "mimeType": MARKDOWN, "text": text}]

    @staticmethod
    def prompts() -> list[dict[str, Any]]:
        return [{"name": PROMPT_NAME, "description": PROMPT_DESCRIPTION},
                {"name": TAKE_CONTROL_NAME, "description": TAKE_CONTROL_DESCRIPTION}]

    def prompt(self, name: Any) -> dict[str, Any]:
        if name == TAKE_CONTROL_NAME:
            # The project's guidance files, sanitized, as data (docs/adopting.md "With an agent")
            text = self.engine(self.core.take_control_pack)
            return {"description": TAKE_CONTROL_DESCRIPTION,
                    "messages": [{"role": "user", "content": {"type": "text", "text": text}}]}
        if name != PROMPT_NAME:
            shown = repr(clipped(name)) if isinstance(name, str) else quoted(name)
            raise RpcError(INVALID_PARAMS, f"Invalid params: unknown prompt {shown}")
        return {"description": PROMPT_DESCRIPTION,
                "messages": [{"role": "user",
                              "content": {"type": "text", "text": PROPOSE_PROTOCOL}}]}


def _failure(code: str, message: str, *, hint: str = "") -> Outcome:
    from engram.outcome import failure  # lazily: the server starts without the core

    return failure(code, message, hint=hint)


def _amend(outcome: Outcome, **changes: Any) -> Outcome:
    return outcome.replace(**changes)


def _memory_resource(memory: dict[str, Any]) -> dict[str, Any]:
    entry = {"uri": MEMORY_URI_PREFIX + str(memory["id"]), "name": str(memory["id"]),
             "mimeType": MARKDOWN}
    if memory.get("title"):
        entry["title"] = str(memory["title"])
    if memory.get("type"):
        entry["description"] = f"{memory['type']} memory ({memory.get('scope', 'workspace')})"
    return entry


def _elicit_params(form: dlg.Form, with_mode: bool) -> dict[str, Any]:
    params: dict[str, Any] = {"message": form.message, "requestedSchema": form.schema}
    if with_mode:
        params["mode"] = "form"
    return params
