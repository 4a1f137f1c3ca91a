"""Protocol data, tool definitions, argument checking, forms and sealed states, in-process."""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from typing import Any

import pytest

from engram.mcp import elicitation as dlg
from engram.mcp import protocol as p
from engram.mcp.arguments import ArgumentError, validate
from engram.mcp.main import parse
from engram.mcp.tools import TOOLS, schema_of, tool_list
from engram.outcome import Outcome
from engram.proposals.effects import Effect
from engram.proposals.verdicts import Kind
from engram.workspace import Scope

# -- protocol data ----------------------------------------------------------------------------


def test_instructions_fit_512_characters_and_name_the_tools() -> None:
    assert len(p.INSTRUCTIONS) <= p.MAX_INSTRUCTIONS_CHARS
    for tool in ("engram_load", "engram_save", "engram_commit"):
        assert tool in p.INSTRUCTIONS


@pytest.mark.parametrize(("asked", "answered"), [
    ("2024-11-05", "2024-11-05"), ("2025-11-25", "2025-11-25"), ("2026-07-28", "2025-11-25"),
    ("garbage", "2025-11-25"), (None, "2025-11-25"), (20250618, "2025-11-25")])
def test_negotiation_never_answers_an_unknown_version(asked: Any, answered: str) -> None:
    assert p.negotiate_legacy(asked) == answered


@pytest.mark.parametrize(("caps", "form"), [
    ({"elicitation": {}}, True), ({"elicitation": {"form": {}}}, True),
    ({"elicitation": {"url": {}}}, False), ({}, False), (None, False),
    ({"elicitation": True}, False)])
def test_form_elicitation_is_declared_by_empty_object_or_form(caps: Any, form: bool) -> None:
    assert p.form_elicitation_declared(caps) is form


# -- tool definitions -------------------------------------------------------------------------

def _tokens(obj: Any) -> int:
    return math.ceil(len(json.dumps(obj, separators=(",", ":"))) / 4)


def test_whole_tools_list_stays_within_1500_tokens_in_both_eras() -> None:
    legacy = {"tools": tool_list(always_load=True)}
    modern = {**legacy, "resultType": "complete", "ttlMs": p.TTL_STATIC_MS,
              "cacheScope": p.CACHE_SCOPE, "_meta": {p.META_SERVER_INFO: p.SERVER_INFO}}
    assert _tokens(legacy) <= p.MAX_TOOLS_LIST_TOKENS
    assert _tokens(modern) <= p.MAX_TOOLS_LIST_TOKENS


def _walk(schema: dict[str, Any], path: str) -> None:
    if "anyOf" in schema:
        for option in schema["anyOf"]:
            _walk(option, path)
        return
    assert "type" in schema, path
    if schema["type"] == "object":
        assert schema["additionalProperties"] is False, path
        for name, prop in schema["properties"].items():
            assert prop.get("description"), f"{path}.{name} has no description"
            _walk(prop, f"{path}.{name}")
    if schema["type"] == "array":
        _walk(schema["items"], path + "[]")


def test_every_tool_and_property_has_a_description_and_a_strict_schema() -> None:
    assert len(TOOLS) == 11
    for tool in TOOLS:
        assert tool["description"], tool["name"]
        _walk(tool["inputSchema"], tool["name"])


def test_annotations_and_meta_follow_the_spec_table() -> None:
    tools = {t["name"]: t for t in tool_list(always_load=False)}
    for name in ("engram_load", "engram_route", "engram_search", "engram_verify",
                 "engram_status"):
        assert tools[name]["annotations"] == {"readOnlyHint": True}
    for name in ("engram_save", "engram_save_session"):
        assert tools[name]["annotations"] == {"readOnlyHint": False, "destructiveHint": False}
    assert tools["engram_note"]["annotations"] == {"readOnlyHint": False}
    assert tools["engram_commit"]["_meta"] == {"anthropic/requiresUserInteraction": True}
    assert "_meta" not in tools["engram_load"]
    assert tool_list(always_load=True)[0]["_meta"] == {"anthropic/alwaysLoad": True}
    assert "_meta" not in TOOLS[0]  # the flag never leaks into the shared table


# -- argument checking ------------------------------------------------------------------------

@pytest.mark.parametrize(("tool", "args", "field"), [
    ("engram_load", {"budget_tokens": 100}, "budget_tokens"),
    ("engram_load", {"budget_tokens": True}, "budget_tokens"),
    ("engram_load", {"disclosure": "all"}, "disclosure"),
    ("engram_load", {"query": ""}, "query"),
    ("engram_search", {}, "query"),
    ("engram_commit", {"approval_token": "t", "approve": "some"}, "approve"),
    ("engram_commit", {"approval_token": "t", "approve": [0]}, "approve[0]"),
    ("engram_commit", {"approval_token": "t", "approve": []}, "approve"),
    ("engram_set_role", {"roles": "backend"}, "roles"),
    ("engram_status", {"verbose": True}, "verbose"),
])
def test_schema_violations_name_the_field(tool: str, args: dict[str, Any], field: str) -> None:
    with pytest.raises(ArgumentError) as exc:
        validate(schema_of(tool), args)
    assert exc.value.field == field
    assert field in str(exc.value)


def test_valid_arguments_pass() -> None:
    validate(schema_of("engram_commit"), {"approval_token": "t", "approve": [1, 3]})
    validate(schema_of("engram_commit"), {"approval_token": "t", "approve": "all"})
    validate(schema_of("engram_load"), {"query": "x", "budget_tokens": 200, "full": False})


# -- forms and answers ------------------------------------------------------------------------

@dataclass
class _Item:
    number: int
    verdict: str  # display text only: the dialog reads `parts`
    id: str
    writable: bool
    parts: tuple[tuple[Scope, Kind], ...]
    text: str = "Candidate text."
    type: str = ""
    effects: tuple[Effect, ...] = ()


BOTH_ADD: tuple[tuple[Scope, Kind], ...] = (("workspace", "ADD"), ("global", "ADD"))
ITEMS = [_Item(1, "workspace: ADD; global: ADD", "run-smoke-suite", True, BOTH_ADD),
         _Item(2, "workspace: UPDATE release; global: ADD", "release", True,
               (("workspace", "UPDATE"), ("global", "ADD"))),
         _Item(3, "NOOP duplicate of alpha", "alpha-2", False,
               (("workspace", "NOOP"), ("global", "NOOP")))]
SINGLE = [_Item(1, "ADD", "run-smoke-suite", True, (("workspace", "ADD"),)),
          _Item(2, "SUPERSEDE old", "new", True, (("workspace", "SUPERSEDE"),))]


def test_save_form_offers_narrowing_only_from_both() -> None:
    both = dlg.save_form(ITEMS)
    assert both is not None and both.scopes == ("both", "workspace", "global")
    assert both.numbers == (1, 2)
    titles = [p["title"] for k, p in both.schema["properties"].items() if k != "scope"]
    assert titles == ["1 ADD run-smoke-suite (workspace + global)",
                      "2 UPDATE/ADD release (workspace + global)"]
    single = dlg.save_form(SINGLE)
    assert single is not None and "scope" not in single.schema["properties"]
    assert single.schema["properties"]["c2"]["title"] == "2 SUPERSEDE new"
    assert dlg.save_form(ITEMS[2:]) is None


@pytest.mark.parametrize(("answer", "action", "numbers", "scope"), [
    ({"action": "accept", "content": {"c1": True, "c2": False}}, "accept", (1,), None),
    ({"action": "accept", "content": {}}, "accept", (1, 2), None),
    ({"action": "accept", "content": {"scope": "global"}}, "accept", (1, 2), "global"),
    ({"action": "accept", "content": {"scope": "both"}}, "accept", (1, 2), None),
    ({"action": "accept", "content": {"c1": False, "c2": False}}, "decline", (), None),
    ({"action": "accept", "content": {"c3": True}}, "decline", (), None),
    ({"action": "accept", "content": {"c1": 1}}, "decline", (), None),
    ({"action": "accept", "content": "yes"}, "decline", (), None),
    ({"action": "maybe"}, "decline", (), None),
    ({"action": "decline"}, "decline", (), None),
    ({"action": "cancel"}, "fallback", (), None),
])
def test_answers_map_to_decisions(answer: Any, action: str, numbers: tuple[int, ...],
                                  scope: str | None) -> None:
    form = dlg.save_form(ITEMS)
    assert form is not None
    decision = dlg.interpret(form, answer)
    assert (decision.action, decision.numbers, decision.scope) == (action, numbers, scope)


def test_the_dialog_reads_verdict_parts_not_verdict_text() -> None:
    # Texts a string parser would misread: a single-root verdict whose target id contains
    # "workspace:" and "global:", and a both-roots verdict whose text names neither scope.
    misleading = [_Item(1, "UPDATE workspace:global:ids; global: NOOP", "ids", True,
                        (("workspace", "UPDATE"),))]
    form = dlg.save_form(misleading)
    assert form is not None and form.scopes == ()
    assert form.schema["properties"]["c1"]["title"] == "1 UPDATE ids"
    plain = [_Item(1, "ADD", "fresh", True, (("workspace", "ADD"), ("global", "SUPERSEDE")))]
    form = dlg.save_form(plain)
    assert form is not None and form.scopes == ("both", "workspace", "global")
    assert form.schema["properties"]["c1"]["title"] == "1 ADD/SUPERSEDE fresh (workspace + global)"


def test_a_scope_choice_can_never_widen() -> None:
    form = dlg.save_form(SINGLE)
    assert form is not None
    decision = dlg.interpret(form, {"action": "accept", "content": {"scope": "both"}})
    assert decision.action == "decline"


# -- sealed request states --------------------------------------------------------------------

def _pending() -> dlg.Pending:
    form = dlg.save_form(ITEMS)
    assert form is not None
    return dlg.Pending("tok", form, Outcome(text="token text"))


def test_state_round_trips_once_and_is_bound_to_tool_workspace_and_args() -> None:
    box = dlg.StateBox()
    digest = dlg.args_digest({"text": "a"})
    state = box.seal("engram_save", "/ws", digest, _pending())
    for tool, ws, dig in (("engram_note", "/ws", digest), ("engram_save", "/other", digest),
                          ("engram_save", "/ws", dlg.args_digest({"text": "b"}))):
        with pytest.raises(dlg.StateError):
            box.open(state, tool, ws, dig)
    assert box.open(state, "engram_save", "/ws", digest).token == "tok"
    with pytest.raises(dlg.StateError, match="already used"):
        box.open(state, "engram_save", "/ws", digest)


def test_forged_foreign_and_expired_states_are_refused() -> None:
    now = [1000.0]
    box = dlg.StateBox(ttl=10, clock=lambda: now[0])
    state = box.seal("engram_save", "/ws", "d", _pending())
    for bad in ("", "x", 42, state + "x", "a.b.c", "é." + state.split(".")[1]):
        with pytest.raises(dlg.StateError):
            box.open(bad, "engram_save", "/ws", "d")
    with pytest.raises(dlg.StateError, match="integrity"):
        dlg.StateBox().open(state, "engram_save", "/ws", "d")  # another process's key
    now[0] += 11
    with pytest.raises(dlg.StateError, match="expired"):
        box.open(state, "engram_save", "/ws", "d")


def test_argument_digest_ignores_key_order() -> None:
    assert dlg.args_digest({"a": 1, "b": 2}) == dlg.args_digest({"b": 2, "a": 1})


# -- flags ------------------------------------------------------------------------------------

def test_flags_parse_and_unknown_options_are_collected() -> None:
    flags = parse(["--always-load", "--workspace", "/tmp/x", "--no-elicitation", "--weird", "z"])
    assert (flags.always_load, flags.no_elicitation, flags.workspace) == (True, True, "/tmp/x")
    assert flags.ignored == ["--weird", "z"]
    assert parse(["--workspace=/a"]).workspace == "/a"
    assert parse(["--version"]).info is not None


def test_starting_the_server_imports_no_engine_module() -> None:
    import subprocess
    import sys

    from tests.mcp_server.mcp_harness import server_env

    probe = ("import sys, engram.mcp.main; print(sorted(m for m in sys.modules if m.startswith("
             "('engram.search', 'engram.proposals', 'engram.store', 'engram.safety', "
             "'dataclasses', 'sqlite3'))))")
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                         env=server_env(), check=True).stdout
    assert out.strip() == "[]"
