"""The 11 Engram tools as one table: one `Tool` entry per tool holds its name, description,
strict input schema, annotations, `_meta` and what it does over the `Core` seam.

Both eras list exactly these definitions (docs/mcp.md "Tools") and tools/call dispatches through the
same entries, so adding a tool is one entry here (plus the `Core` method it calls). Descriptions are
short on purpose: the whole tools/list must stay within 1,500 tokens (ceil(chars/4)), and hosts that
defer tool definitions behind tool search read the server instructions first anyway. Argument
checking against the schemas lives in `arguments.py`; the call flow (errors, the approval dialog of
docs/mcp.md "Approval dialog") lives in `handlers.py`.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Final, NamedTuple

from engram.mcp import elicitation as dlg
from engram.mcp.arguments import ArgumentError
from engram.mcp.protocol import META_ALWAYS_LOAD, META_REQUIRES_USER_INTERACTION
from engram.mcp.results import problems_only

if TYPE_CHECKING:
    from engram.mcp.core import Core, Proposal
    from engram.outcome import Outcome

Args = dict[str, Any]


class Dialog(NamedTuple):
    """A proposing tool: what it proposes, and the approval form for that proposal (or None)."""

    propose: Callable[[Core, Args], Proposal]
    form: Callable[[Proposal], dlg.Form | None]


class Tool(NamedTuple):
    """One tool: its wire definition and its handler, a plain `(core, args) -> Outcome` or a
    `Dialog` for the tools whose proposal the human may answer in an approval dialog (docs/mcp.md
    "Approval dialog")."""

    name: str
    description: str
    input_schema: dict[str, Any]
    handler: Callable[[Core, Args], Outcome] | Dialog
    annotations: dict[str, bool] | None = None
    meta: dict[str, bool] | None = None

    def wire(self) -> dict[str, Any]:
        """The definition tools/list sends, keys in the order clients have always seen."""
        out: dict[str, Any] = {"name": self.name, "description": self.description,
                               "inputSchema": self.input_schema}
        if self.annotations is not None:
            out["annotations"] = self.annotations
        if self.meta is not None:
            out["_meta"] = self.meta
        return out

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


def _load(core: Core, args: Args) -> Outcome:
    if not args.get("query") and not args.get("id"):
        raise ArgumentError("query", "give a query (the task) or an id")
    return core.load(args)


def _route(core: Core, args: Args) -> Outcome:
    # `query` too: agents that learned the TypeScript tool use it
    task = args.get("task") or args.get("query")
    if not task:
        raise ArgumentError("task", "give the task (or query)")
    return core.route(task)


def _save_form(proposal: Proposal) -> dlg.Form | None:
    return dlg.save_form(proposal.items)


def _note_form(proposal: Proposal) -> dlg.Form | None:
    until = proposal.data.get("valid_until")
    return dlg.note_form(proposal.items, str(until) if until else None)


SAVE = Dialog(lambda core, a: core.propose_one(a["text"], a.get("type"), a.get("role"),
                                               a.get("context"), a.get("scope")), _save_form)
SAVE_SESSION = Dialog(lambda core, a: core.propose(a["candidates"], a.get("scope"),
                                                   a.get("query_level")), _save_form)
NOTE_DIALOG = Dialog(lambda core, a: core.propose_note(a["text"], a.get("objective"),
                                                       a.get("type"), a.get("scope")),
                     _note_form)


TABLE: Final[tuple[Tool, ...]] = (
    Tool("engram_load",
         "Route a task to project memory and return the pack (rules, decisions, "
         "skills) within a token budget. Call before non-trivial work.",
         _obj({
             "query": _str("the task in a few words"),
             "id": _str("comma-separated ids, loaded whole", 2000),
             "budget_tokens": {"type": "integer", "minimum": 200, "maximum": 16000,
                               "description": "pack size (default 1600)"},
             "disclosure": {"type": "string", "enum": ["tiered", "cards", "bodies"],
                            "description": "tiers to show"},
             "full": {"type": "boolean", "description": "broad legacy output, no budget"},
             "explain": {"type": "boolean", "description": "say why each memory routed"},
         }),
         _load, READ_ONLY),
    Tool("engram_route",
         "Classify a task and list the memories it routes to, in load order.",
         _obj({"task": _str("the task"), "query": _str("alias of task")}),
         _route, READ_ONLY),
    Tool("engram_search",
         "Search memory by keywords, ranked.",
         _obj({"query": _str("keywords"),
               "limit": {"type": "integer", "minimum": 1, "maximum": 100,
                         "description": "max hits (default 10)"}},
              ("query",)),
         lambda core, a: core.search(a["query"], int(a.get("limit", 10))), READ_ONLY),
    Tool("engram_verify",
         "Check every memory file against its approved hash.",
         _obj({}),
         lambda core, a: problems_only(core.verify()), READ_ONLY),
    Tool("engram_status",
         "Show roots, memory counts, invalid files and config.",
         _obj({}),
         lambda core, a: core.status(), READ_ONLY),
    Tool("engram_save",
         "Propose one memory. Never writes: returns a numbered preview and an "
         "approval_token (or asks the human in an approval dialog).",
         _obj({"text": _str("the memory"), "type": _TYPE, "scope": _SCOPE,
               "role": _str("role it applies to", 100),
               "context": _str("why it matters")}, ("text",)),
         SAVE, PROPOSE),
    Tool("engram_save_session",
         "Propose up to 8 memories, one per line in pipe form (TYPE: rule | TEXT: "
         "... | CONTEXT: ...). Never writes; like engram_save.",
         _obj({"candidates": _str("candidate lines", 16000), "scope": _SCOPE,
               "query_level": {"type": "integer", "minimum": 1, "maximum": 1000,
                               "description": "mine at most N recent chats"}},
              ("candidates",)),
         SAVE_SESSION, PROPOSE),
    Tool("engram_commit",
         "Write a proposal ONLY after the human approved its exact candidates in "
         "chat. approve: \"all\" or 1-based numbers.",
         _obj({"approval_token": _str("token from engram_save", 200),
               "approve": {"description": "approved numbers", "anyOf": [
                   {"type": "string", "enum": ["all"]},
                   {"type": "array", "minItems": 1, "maxItems": 8,
                    "items": {"type": "integer", "minimum": 1, "maximum": 8}}]}},
              ("approval_token", "approve")),
         lambda core, a: core.commit(a["approval_token"], a["approve"], None),
         meta={META_REQUIRES_USER_INTERACTION: True}),
    Tool("engram_set_role",
         "Set the roles whose role-scoped memories load (empty list clears).",
         _obj({"roles": {"type": "array", "maxItems": 20, "description": "roles",
                         "items": {"type": "string", "minLength": 1,
                                   "maxLength": 64}}}, ("roles",)),
         lambda core, a: core.set_role(list(a["roles"]))),
    Tool("engram_set_rule_variant",
         "Set the rule variant mode, or report it with status.",
         _obj({"variant": {"type": "string", "description": "mode", "enum": [
             "off", "light", "balanced", "strict", "status"]}}, ("variant",)),
         lambda core, a: core.set_rule_variant(a["variant"])),
    Tool("engram_note",
         "Save a short expiring task note in the working tier after a yes/cancel "
         "from the human.",
         _obj({"text": _str("the note", 2000), "objective": _str("task it serves", 200),
               "type": _TYPE,
               "scope": {"type": "string", "enum": ["workspace", "global"],
                         "description": "note target"}},
              ("text",)),
         NOTE_DIALOG, NOTE),
)
BY_NAME: Final[dict[str, Tool]] = {t.name: t for t in TABLE}
# The wire definitions, derived from the table (tests and tools/list read these).
TOOLS: Final[tuple[dict[str, Any], ...]] = tuple(t.wire() for t in TABLE)

TOOL_NAMES: Final[frozenset[str]] = frozenset(BY_NAME)


def tool_list(*, always_load: bool) -> list[dict[str, Any]]:
    """The definitions to send; `--always-load` marks engram_load for up-front loading."""
    tools = copy.deepcopy(list(TOOLS))
    if always_load:
        tools[0]["_meta"] = {META_ALWAYS_LOAD: True}
    return tools


def schema_of(name: str) -> dict[str, Any]:
    return BY_NAME[name].input_schema
