"""The 11 Engram tools as data: names, descriptions, strict input schemas, annotations, `_meta`.

Both eras list exactly these definitions (§10.5). Descriptions are short on purpose: the whole
tools/list must stay within 1,500 tokens (ceil(chars/4)), and hosts that defer tool definitions
behind tool search read the server instructions first anyway. Argument checking against these
schemas lives in `arguments.py`; what each tool does lives in `handlers.py`.
"""

from __future__ import annotations

import copy
from typing import Any, Final

from engram.mcp.protocol import META_ALWAYS_LOAD, META_REQUIRES_USER_INTERACTION

READ_ONLY: Final[dict[str, bool]] = {"readOnlyHint": True}
PROPOSE: Final[dict[str, bool]] = {"readOnlyHint": False, "destructiveHint": False}
NOTE: Final[dict[str, bool]] = {"readOnlyHint": False}

_SCOPE = {"type": "string", "enum": ["workspace", "global", "both"],
          "description": "where to save"}
_TYPE = {"type": "string", "enum": ["rule", "skill", "knowledge"],
         "description": "memory type"}


def _obj(props: dict[str, Any], required: tuple[str, ...] = ()) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "object", "properties": props,
                              "additionalProperties": False}
    if required:
        schema["required"] = list(required)
    return schema


def _str(desc: str, max_len: int = 4000) -> dict[str, Any]:
    return {"type": "string", "minLength": 1, "maxLength": max_len, "description": desc}


TOOLS: Final[tuple[dict[str, Any], ...]] = (
    {"name": "engram_load",
     "description": "Route a task to project memory and return the pack (rules, decisions, "
                    "skills) within a token budget. Call before non-trivial work.",
     "inputSchema": _obj({
         "query": _str("the task in a few words"),
         "id": _str("comma-separated ids, loaded whole", 2000),
         "budget_tokens": {"type": "integer", "minimum": 200, "maximum": 16000,
                           "description": "pack size (default 1600)"},
         "disclosure": {"type": "string", "enum": ["tiered", "cards", "bodies"],
                        "description": "tiers to show"},
         "full": {"type": "boolean", "description": "broad legacy output, no budget"},
         "explain": {"type": "boolean", "description": "say why each memory routed"},
     }),
     "annotations": READ_ONLY},
    {"name": "engram_route",
     "description": "Classify a task and list the memories it routes to, in load order.",
     "inputSchema": _obj({"task": _str("the task"), "query": _str("alias of task")}),
     "annotations": READ_ONLY},
    {"name": "engram_search",
     "description": "Search memory by keywords, ranked.",
     "inputSchema": _obj({"query": _str("keywords"),
                          "limit": {"type": "integer", "minimum": 1, "maximum": 100,
                                    "description": "max hits (default 10)"}},
                         ("query",)),
     "annotations": READ_ONLY},
    {"name": "engram_verify",
     "description": "Check every memory file against its approved hash.",
     "inputSchema": _obj({}),
     "annotations": READ_ONLY},
    {"name": "engram_status",
     "description": "Show roots, memory counts, invalid files and config.",
     "inputSchema": _obj({}),
     "annotations": READ_ONLY},
    {"name": "engram_save",
     "description": "Propose one memory. Never writes: returns a numbered preview and an "
                    "approval_token (or asks the human in an approval dialog).",
     "inputSchema": _obj({"text": _str("the memory"), "type": _TYPE, "scope": _SCOPE,
                          "role": _str("role it applies to", 100),
                          "context": _str("why it matters")}, ("text",)),
     "annotations": PROPOSE},
    {"name": "engram_save_session",
     "description": "Propose up to 8 memories, one per line in pipe form (TYPE: rule | TEXT: "
                    "... | CONTEXT: ...). Never writes; like engram_save.",
     "inputSchema": _obj({"candidates": _str("candidate lines", 16000), "scope": _SCOPE,
                          "query_level": {"type": "integer", "minimum": 1, "maximum": 1000,
                                          "description": "mine at most N recent chats"}},
                         ("candidates",)),
     "annotations": PROPOSE},
    {"name": "engram_commit",
     "description": "Write a proposal ONLY after the human approved its exact candidates in "
                    "chat. approve: \"all\" or 1-based numbers.",
     "inputSchema": _obj({"approval_token": _str("token from engram_save", 200),
                          "approve": {"description": "approved numbers", "anyOf": [
                              {"type": "string", "enum": ["all"]},
                              {"type": "array", "minItems": 1, "maxItems": 8,
                               "items": {"type": "integer", "minimum": 1, "maximum": 8}}]}},
                         ("approval_token", "approve")),
     "_meta": {META_REQUIRES_USER_INTERACTION: True}},
    {"name": "engram_set_role",
     "description": "Set the roles whose role-scoped memories load (empty list clears).",
     "inputSchema": _obj({"roles": {"type": "array", "maxItems": 20, "description": "roles",
                                    "items": {"type": "string", "minLength": 1,
                                              "maxLength": 64}}}, ("roles",))},
    {"name": "engram_set_rule_variant",
     "description": "Set the rule variant mode, or report it with status.",
     "inputSchema": _obj({"variant": {"type": "string", "description": "mode", "enum": [
         "off", "light", "balanced", "strict", "status"]}}, ("variant",))},
    {"name": "engram_note",
     "description": "Save a short expiring task note in the working tier after a yes/cancel "
                    "from the human.",
     "inputSchema": _obj({"text": _str("the note", 2000), "objective": _str("task it serves", 200),
                          "type": _TYPE,
                          "scope": {"type": "string", "enum": ["workspace", "global"],
                                    "description": "note target"}},
                         ("text",)),
     "annotations": NOTE},
)

TOOL_NAMES: Final[frozenset[str]] = frozenset(t["name"] for t in TOOLS)
# Tools whose proposal may be answered in the host's approval dialog (§10.6).
DIALOG_TOOLS: Final[frozenset[str]] = frozenset({"engram_save", "engram_save_session",
                                                  "engram_note"})


def tool_list(*, always_load: bool) -> list[dict[str, Any]]:
    """The definitions to send; `--always-load` marks engram_load for up-front loading."""
    tools = copy.deepcopy(list(TOOLS))
    if always_load:
        tools[0]["_meta"] = {META_ALWAYS_LOAD: True}
    return tools


def schema_of(name: str) -> dict[str, Any]:
    for tool in TOOLS:
        if tool["name"] == name:
            return tool["inputSchema"]  # type: ignore[no-any-return]
    raise KeyError(name)
