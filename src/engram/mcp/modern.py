"""The MCP 2026-07-28 era (docs/mcp.md): stateless requests routed by `params._meta`.

Owns the envelope checks (`-32022` for a version we do not serve, `-32602` without client
capabilities), `server/discover`, the `resultType` / `serverInfo` stamp on every result, the
SEP-2549 cache hints on list methods, `-32602` for an unknown resource, and `input_required`
results for the approval dialog. Capabilities come only from the request itself: this module
never reads the legacy session.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from engram.mcp import protocol as p
from engram.mcp.framing import Request, RpcError
from engram.mcp.handlers import CallContext, InputRequired, NotFound
from engram.mcp.results import tool_result

if TYPE_CHECKING:
    from engram.mcp.server import Server

SERVED = frozenset({"server/discover", "tools/list", "tools/call", "resources/list",
                    "resources/templates/list", "resources/read", "prompts/list", "prompts/get"})


def is_modern(params: dict[str, Any]) -> bool:
    meta = params.get("_meta")
    return isinstance(meta, dict) and p.META_PROTOCOL_VERSION in meta


def handle(server: Server, req: Request) -> dict[str, Any]:
    meta: dict[str, Any] = req.params["_meta"]
    version = meta[p.META_PROTOCOL_VERSION]
    if version not in p.MODERN_VERSIONS:
        raise RpcError(p.UNSUPPORTED_PROTOCOL_VERSION, "Unsupported protocol version",
                       {"supported": list(p.MODERN_VERSIONS), "requested": p.echoed(version)})
    caps = meta.get(p.META_CLIENT_CAPABILITIES)
    if not isinstance(caps, dict):
        raise RpcError(p.INVALID_PARAMS, f"Invalid params: _meta.{p.META_CLIENT_CAPABILITIES} "
                       "is required in MCP 2026-07-28")
    if req.method not in SERVED:
        raise RpcError(p.METHOD_NOT_FOUND, f"Method not found: {p.echoed(req.method)} (not "
                       f"served in MCP {version})")
    result, ttl = _dispatch(server, req, caps)
    result["_meta"] = {p.META_SERVER_INFO: dict(p.SERVER_INFO)}
    result.setdefault("resultType", "complete")
    if ttl is not None:
        result["ttlMs"] = ttl
        result["cacheScope"] = p.CACHE_SCOPE
    return result


def _dispatch(server: Server, req: Request,
              caps: dict[str, Any]) -> tuple[dict[str, Any], int | None]:
    method, params, h = req.method, req.params, server.handlers
    if method == "server/discover":
        return {"supportedVersions": list(p.MODERN_VERSIONS), "capabilities": p.CAPABILITIES,
                "instructions": p.INSTRUCTIONS}, p.TTL_STATIC_MS
    if method == "tools/list":
        return {"tools": server.tools}, p.TTL_STATIC_MS
    if method == "tools/call":
        dialog = server.options.elicitation and p.form_elicitation_declared(caps)
        ctx = CallContext(dialog=dialog, request_state=params.get("requestState"),
                          input_responses=params.get("inputResponses"))
        outcome = h.call_tool(params.get("name"), params.get("arguments"), ctx)
        if isinstance(outcome, InputRequired):
            return {"resultType": "input_required", "inputRequests": outcome.input_requests,
                    "requestState": outcome.request_state}, None
        return tool_result(outcome), None
    if method == "resources/list":
        return {"resources": h.resources()}, p.TTL_VOLATILE_MS
    if method == "resources/templates/list":
        return {"resourceTemplates": h.templates()}, p.TTL_STATIC_MS
    if method == "resources/read":
        try:
            return {"contents": h.read(params.get("uri"))}, p.TTL_VOLATILE_MS
        except NotFound as exc:
            raise RpcError(p.INVALID_PARAMS, str(exc),
                           {"uri": p.echoed(params.get("uri"))}) from exc
    if method == "prompts/list":
        return {"prompts": h.prompts()}, p.TTL_STATIC_MS
    return h.prompt(params.get("name")), None
