"""The four model wire formats the hosts speak, reduced to what the e2e suite needs.

For each API: which tools a request lists (as the host spells them), which tool results the
request carries (the text the model receives, in call order), and how to answer with one
scripted tool call or a final text, as SSE or plain JSON. Pure functions over parsed JSON.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

JSON = dict[str, Any]


@dataclass(frozen=True)
class Call:
    """One scripted model action: call an Engram tool (unprefixed name) with arguments, or with
    `host=True` one of the host's own tools (its name as the host lists it). With `pick`, the
    arguments are chosen from what the model received: `pick(tool results so far)`."""

    tool: str
    args: JSON
    host: bool = False
    pick: Callable[[list[str]], JSON] | None = field(default=None, compare=False)

    def given(self, results: list[str]) -> Call:
        """The call as the model makes it after reading `results` (its tool results so far)."""
        if self.pick is None:
            return self
        return Call(self.tool, self.pick(results), self.host)


def _text_of(value: Any) -> str:
    """What a tool-result payload reads as to the model: strings as is, blocks joined, else JSON."""
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        parts = [_text_of(v.get("text", v) if isinstance(v, dict) else v) for v in value]
        return "\n".join(parts)
    if isinstance(value, dict) and set(value) <= {"type", "text"} and "text" in value:
        return str(value["text"])
    return json.dumps(value, ensure_ascii=False)


def sse(events: list[tuple[str | None, Any]]) -> bytes:
    """Encode (event name, data) pairs as a server-sent event stream."""
    out = []
    for name, data in events:
        payload = data if isinstance(data, str) else json.dumps(data)
        out.append((f"event: {name}\n" if name else "") + f"data: {payload}\n\n")
    return "".join(out).encode()


class Api:
    """One wire format. Subclasses say how tools are listed, results read and replies built."""

    name = "api"
    prefix = ""

    def listed(self, body: JSON) -> list[str]:
        raise NotImplementedError

    def results(self, body: JSON) -> list[str]:
        raise NotImplementedError

    def reply(self, call: Call | None, text: str, n: int, stream: bool) -> bytes:
        raise NotImplementedError

    def named(self, call: Call) -> str:
        """The tool name as this host lists it."""
        return call.tool if call.host else self.prefix + call.tool

    def read_resource(self, uri: str) -> Call:
        """The host's own tool that reads a resource of the `engram` server."""
        return Call("read_mcp_resource", {"server": "engram", "uri": uri}, host=True)

    def engram_tools(self, body: JSON) -> list[str]:
        """Listed Engram tools, unprefixed (engram_load, …)."""
        return sorted(t[len(self.prefix):] for t in self.listed(body) if t.startswith(self.prefix))


DEFERRED = "deferred tools are now available via ToolSearch"


def _deferred(body: JSON) -> list[str]:
    names: list[str] = []
    for msg in body.get("messages") or []:
        content = msg.get("content")
        blocks = content if isinstance(content, list) else [{"text": content}]
        for block in blocks:
            text = block.get("text") if isinstance(block, dict) else None
            if not isinstance(text, str) or DEFERRED not in text:
                continue
            lines = text.split(DEFERRED, 1)[1].splitlines()[1:]
            for line in lines:
                if not line.strip():
                    break
                names.append(line.strip())
    return names


class Anthropic(Api):
    """Claude Code: POST /v1/messages."""

    name = "anthropic"
    prefix = "mcp__engram__"

    def read_resource(self, uri: str) -> Call:
        return Call("ReadMcpResourceTool", {"server": "engram", "uri": uri}, host=True)

    def listed(self, body: JSON) -> list[str]:
        """Tool definitions, plus the tools Claude Code (2.1.332: tool search on by default)
        defers: named in a message after "deferred tools are now available via ToolSearch",
        one a line, their schemas loaded on the model's request."""
        return [str(t.get("name", "")) for t in body.get("tools") or []] + _deferred(body)

    def results(self, body: JSON) -> list[str]:
        out = []
        for msg in body.get("messages") or []:
            content = msg.get("content")
            if isinstance(content, list):
                out += [_text_of(b.get("content", "")) for b in content
                        if isinstance(b, dict) and b.get("type") == "tool_result"]
        return out

    def reply(self, call: Call | None, text: str, n: int, stream: bool) -> bytes:
        msg_id = f"msg_mock_{n}"
        if call is None:
            block: JSON = {"type": "text", "text": text}
            stop = "end_turn"
        else:
            block = {"type": "tool_use", "id": f"toolu_mock_{n}", "name": self.named(call),
                     "input": call.args}
            stop = "tool_use"
        usage = {"input_tokens": 10, "output_tokens": 5}
        if not stream:
            return json.dumps({"id": msg_id, "type": "message", "role": "assistant",
                               "model": "mock", "content": [block], "stop_reason": stop,
                               "stop_sequence": None, "usage": usage}).encode()
        start = dict(block, input={}) if call else dict(block, text="")
        delta = ({"type": "input_json_delta", "partial_json": json.dumps(call.args)} if call
                 else {"type": "text_delta", "text": text})
        return sse([
            ("message_start", {"type": "message_start", "message": {
                "id": msg_id, "type": "message", "role": "assistant", "model": "mock",
                "content": [], "stop_reason": None, "stop_sequence": None, "usage": usage}}),
            ("content_block_start", {"type": "content_block_start", "index": 0,
                                     "content_block": start}),
            ("content_block_delta", {"type": "content_block_delta", "index": 0, "delta": delta}),
            ("content_block_stop", {"type": "content_block_stop", "index": 0}),
            ("message_delta", {"type": "message_delta",
                               "delta": {"stop_reason": stop, "stop_sequence": None},
                               "usage": {"output_tokens": 5}}),
            ("message_stop", {"type": "message_stop"}),
        ])


class Responses(Api):
    """Codex: POST /v1/responses; MCP tools come as a namespace `mcp__engram`."""

    name = "responses"
    prefix = "mcp__engram/"

    def listed(self, body: JSON) -> list[str]:
        names = []
        for tool in body.get("tools") or []:
            if tool.get("type") == "namespace":
                names += [f"{tool.get('name')}/{t.get('name')}" for t in tool.get("tools") or []]
            else:
                names.append(str(tool.get("name", tool.get("type", ""))))
        return names

    def results(self, body: JSON) -> list[str]:
        items = body.get("input")
        if not isinstance(items, list):
            return []
        return [_text_of(i.get("output", "")) for i in items
                if isinstance(i, dict) and i.get("type") == "function_call_output"]

    def reply(self, call: Call | None, text: str, n: int, stream: bool) -> bytes:
        if call is None:
            item: JSON = {"type": "message", "role": "assistant", "id": f"msg_mock_{n}",
                          "status": "completed",
                          "content": [{"type": "output_text", "text": text, "annotations": []}]}
        else:
            item = {"type": "function_call", "id": f"fc_mock_{n}", "call_id": f"call_mock_{n}",
                    "name": call.tool, "arguments": json.dumps(call.args), "status": "completed"}
            if not call.host:
                item["namespace"] = "mcp__engram"
        resp = {"id": f"resp_mock_{n}", "object": "response", "status": "completed",
                "model": "mock-model", "output": [item],
                "usage": {"input_tokens": 10, "output_tokens": 5, "total_tokens": 15,
                          "input_tokens_details": {"cached_tokens": 0},
                          "output_tokens_details": {"reasoning_tokens": 0}}}
        if not stream:
            return json.dumps(resp).encode()
        events: list[tuple[str | None, Any]] = [
            ("response.created", {"type": "response.created",
                                  "response": dict(resp, status="in_progress", output=[])}),
            ("response.output_item.added", {"type": "response.output_item.added",
                                            "output_index": 0, "item": item}),
        ]
        if call is None:
            events.append(("response.output_text.delta", {
                "type": "response.output_text.delta", "item_id": item["id"], "output_index": 0,
                "content_index": 0, "delta": text}))
        events += [
            ("response.output_item.done", {"type": "response.output_item.done",
                                           "output_index": 0, "item": item}),
            ("response.completed", {"type": "response.completed", "response": resp}),
        ]
        return sse(events)


class Gemini(Api):
    """Gemini CLI: POST /v1beta/models/<model>:streamGenerateContent?alt=sse."""

    name = "gemini"
    prefix = "mcp_engram_"

    def read_resource(self, uri: str) -> Call:
        return Call("read_mcp_resource", {"uri": uri}, host=True)  # no server argument

    def listed(self, body: JSON) -> list[str]:
        return [str(d.get("name", "")) for t in body.get("tools") or []
                for d in t.get("functionDeclarations") or []]

    def results(self, body: JSON) -> list[str]:
        return [_text_of(p["functionResponse"].get("response", {}))
                for c in body.get("contents") or [] for p in c.get("parts") or []
                if isinstance(p, dict) and "functionResponse" in p]

    def reply(self, call: Call | None, text: str, n: int, stream: bool) -> bytes:
        part: JSON = ({"text": text} if call is None else
                      {"functionCall": {"name": self.named(call), "args": call.args}})
        chunk = {"candidates": [{"content": {"role": "model", "parts": [part]},
                                 "finishReason": "STOP", "index": 0}],
                 "usageMetadata": {"promptTokenCount": 10, "candidatesTokenCount": 5,
                                   "totalTokenCount": 15},
                 "modelVersion": "gemini-2.5-pro", "responseId": f"mock_{n}"}
        return sse([(None, chunk)]) if stream else json.dumps(chunk).encode()


class Chat(Api):
    """OpenCode (OpenAI-compatible): POST /v1/chat/completions."""

    name = "chat"
    prefix = "engram_"

    def listed(self, body: JSON) -> list[str]:
        return [str((t.get("function") or {}).get("name", "")) for t in body.get("tools") or []]

    def results(self, body: JSON) -> list[str]:
        return [_text_of(m.get("content", "")) for m in body.get("messages") or []
                if isinstance(m, dict) and m.get("role") == "tool"]

    def reply(self, call: Call | None, text: str, n: int, stream: bool) -> bytes:
        base = {"id": f"chatcmpl-mock-{n}", "object": "chat.completion.chunk", "created": 0,
                "model": "mock-model"}
        usage = {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}
        if call is None:
            delta: JSON = {"role": "assistant", "content": text}
            finish = "stop"
        else:
            delta = {"role": "assistant", "content": None, "tool_calls": [{
                "index": 0, "id": f"call_mock_{n}", "type": "function",
                "function": {"name": self.named(call), "arguments": json.dumps(call.args)}}]}
            finish = "tool_calls"
        if not stream:
            message = {k: v for k, v in delta.items() if k != "tool_calls"}
            if call is not None:
                message["tool_calls"] = [{k: v for k, v in tc.items() if k != "index"}
                                         for tc in delta["tool_calls"]]
            return json.dumps(dict(base, object="chat.completion", usage=usage, choices=[
                {"index": 0, "message": message, "finish_reason": finish}])).encode()
        return sse([
            (None, dict(base, choices=[{"index": 0, "delta": delta, "finish_reason": None}])),
            (None, dict(base, choices=[{"index": 0, "delta": {}, "finish_reason": finish}])),
            (None, dict(base, choices=[], usage=usage)),
            (None, "[DONE]"),
        ])


API_BY_NAME: dict[str, Api] = {a.name: a for a in (Anthropic(), Responses(), Gemini(), Chat())}


def api_for(path: str) -> Api | None:
    """Which wire format a POST path belongs to (None: not a generation endpoint)."""
    path = path.split("?", 1)[0]
    if path.endswith("/v1/messages"):
        return API_BY_NAME["anthropic"]
    if path.endswith("/responses"):
        return API_BY_NAME["responses"]
    if ":streamGenerateContent" in path or ":generateContent" in path:
        return API_BY_NAME["gemini"]
    if path.endswith("/chat/completions"):
        return API_BY_NAME["chat"]
    return None
