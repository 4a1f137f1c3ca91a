"""The legacy era (docs/mcp.md): the `initialize` handshake and the methods served after it.

Owns version negotiation, the session's declared client capabilities (the only state the
legacy era has), plain tool-name methods that return the tool's text, and `-32002` for an
unknown resource. Requests that carry the MCP 2026-07-28 envelope never reach this module.
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Any

from engram.mcp import protocol as p
from engram.mcp.framing import Request, RpcError
from engram.mcp.handlers import CallContext, NotFound
from engram.mcp.results import tool_result
from engram.mcp.tools import TOOL_NAMES

if TYPE_CHECKING:
    from engram.mcp.server import Flight, Server


class Session:
    """What `initialize` told us; shared by all worker threads of this connection."""

    def __init__(self) -> None:
        self.version: str | None = None
        self.capabilities: dict[str, Any] = {}
        self.lock = threading.Lock()

    def dialog(self) -> tuple[bool, bool]:
        """(form elicitation usable, include `mode: "form"`) for this session."""
        with self.lock:
            version, caps = self.version, self.capabilities
        if version is None or not p.legacy_at_least(version, p.ELICITATION_SINCE):
            return False, False
        return (p.form_elicitation_declared(caps),
                p.legacy_at_least(version, p.ELICITATION_MODE_SINCE))


def initialize(session: Session, params: dict[str, Any]) -> dict[str, Any]:
    version = p.negotiate_legacy(params.get("protocolVersion"))
    caps = params.get("capabilities")
    with session.lock:
        session.version = version
        session.capabilities = caps if isinstance(caps, dict) else {}
    return {"protocolVersion": version, "capabilities": p.CAPABILITIES,
            "serverInfo": dict(p.SERVER_INFO), "instructions": p.INSTRUCTIONS}


def handle(server: Server, req: Request, flight: Flight) -> Any:
    method, params = req.method, req.params
    h = server.handlers
    if method == "initialize":
        return initialize(server.session, params)
    if method == "ping":
        return {}
    if method == "tools/list":
        return {"tools": server.tools}
    if method == "tools/call":
        dialog, with_mode = server.session.dialog()
        ctx = CallContext(dialog=dialog and server.options.elicitation,
                          ask=lambda request: server.ask(request, flight), elicit_mode=with_mode)
        outcome = h.call_tool(params.get("name"), params.get("arguments"), ctx)
        return tool_result(outcome)  # type: ignore[arg-type]  # legacy never gets InputRequired
    if method == "resources/list":
        return {"resources": h.resources()}
    if method == "resources/templates/list":
        return {"resourceTemplates": h.templates()}
    if method == "resources/read":
        try:
            return {"contents": h.read(params.get("uri"))}
        except NotFound as exc:
            raise RpcError(p.RESOURCE_NOT_FOUND, str(exc),
                           {"uri": p.echoed(params.get("uri"))}) from exc
    if method == "prompts/list":
        return {"prompts": h.prompts()}
    if method == "prompts/get":
        return h.prompt(params.get("name"))
    if method in TOOL_NAMES:
        return h.plain(method, params)
    if method == "server/discover":
        raise RpcError(p.INVALID_PARAMS, "Invalid params: server/discover needs params._meta "
                       f"with {p.META_PROTOCOL_VERSION} and {p.META_CLIENT_CAPABILITIES}")
    raise RpcError(p.METHOD_NOT_FOUND, f"Method not found: {p.echoed(method)}")
