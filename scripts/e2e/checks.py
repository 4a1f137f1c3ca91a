"""The scenarios, judged only on what the model received (the recorded requests) and the store.

Each check returns (status, evidence): PASS, FAIL, SKIP (could not be exercised: evidence says
why) or n/a (the host has no such feature). Evidence quotes what the model was given.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

from . import project as proj
from .received import NO_MAP_ID, engram_part, named, read_map
from .session import Session, Turn

Result = tuple[str, str]
SCENARIOS = ("tools", "hooks", "load", "save", "words", "budget", "search", "error", "note",
             "map", "resource", "commit", "once", "resume")
TITLES = {
    "tools": "all Engram tools listed to the model",
    "hooks": "hook packs in front of the model (Claude)",
    "load": "engram_load result carries the memory body, once",
    "save": "engram_save result carries candidate text + approval guidance, once",
    "words": "engram_save result carries the approval token and the sentence naming its three "
             "words, which start that token",
    "budget": f"engram_load with budget_tokens {proj.BUDGET}: the Engram part of what the model "
              "received fits it (ceil(chars/4))",
    "search": "engram_search result carries each hit's id and a snippet of its text",
    "error": f"engram_load of an unknown id ({proj.BAD_ID}): the error and its fix: line reach "
             "the model",
    "note": "engram_note result carries the note's text, its approval token and words, once",
    "map": "an engram_load result ends with the map; the model fetches a map id the pack does "
           "not hold (engram_load with id) and gets that memory's body, once",
    "resource": "the host's own resource reader, given the rule's engram://memory/<id>, "
                "carries the rule's body, once",
    "commit": "headless engram_commit refused, nothing written",
    "once": "hooks inject a memory body once per session: two prompts, one process (Claude)",
    "resume": "… and still once after `claude --resume` of that session (Claude)",
}
HOOK_BLOCK = re.compile(r"(\w+) hook additional context:")


def quote(text: str, limit: int = 220) -> str:
    flat = " ".join(text.split())
    return repr(flat if len(flat) <= limit else flat[:limit] + "…")


def _main_requests(s: Session, turn: Turn) -> list[dict[str, Any]]:
    """Conversation requests (they list tools); side requests (titles, routers) have none."""
    return [r for r in turn.requests
            if r.get("api") == s.host.api.name and s.host.api.listed(r.get("body") or {})]


def _results(s: Session) -> list[str]:
    """Tool results the model received in the first run, in call order (`s.steps`)."""
    main = _main_requests(s, s.turns[0]) if s.turns else []
    return s.host.api.results(main[-1]["body"]) if main else []


def _no_conversation(s: Session) -> Result | None:
    if s.error:
        return "FAIL", s.error
    if not s.turns or not _main_requests(s, s.turns[0]):
        tail = s.turns[0].output[-600:] if s.turns else ""
        exit_code = s.turns[0].exit_code if s.turns else "-"
        return "FAIL", f"the host sent no conversation request (exit {exit_code}): {quote(tail)}"
    return None


# Tools that change settings (not memory) keep the host's default, ask. Headless Gemini CLI
# withholds every tool that would ask (documented host behaviour), so these two may be missing
# there; every tool that reads or only proposes must be listed.
ASKING = frozenset({"engram_set_role", "engram_set_rule_variant"})
WITHHOLDS_ASKING = frozenset({"gemini"})


def check_tools(s: Session) -> Result:
    main = _main_requests(s, s.turns[0])
    listed = set(s.host.api.engram_tools(main[0]["body"]))
    missing = sorted(set(s.server_tools) - listed)
    if missing and s.host.name in WITHHOLDS_ASKING and set(missing) <= ASKING:
        return "PASS", (f"{len(listed)}/{len(s.server_tools)} listed; withheld headless because "
                        f"they ask: {', '.join(missing)}")
    if missing:
        return "FAIL", (f"{len(listed)}/{len(s.server_tools)} listed; missing: "
                        f"{', '.join(missing)}")
    return "PASS", f"{len(listed)}/{len(s.server_tools)} tools listed"


def _received(s: Session, step: str) -> str | None:
    """What the model received for the scripted call named `step` (None: nothing)."""
    results = _results(s)
    index = s.steps.index(step)
    return results[index] if len(results) > index else None


def _missing(step: str) -> Result:
    return "FAIL", f"no result for the scripted {step} call reached the model"


Check = Callable[[Session], Result]


def on_result(step: str) -> Callable[[Callable[[Session, str], Result]], Check]:
    """A check of what the model received for the scripted call `step`: FAIL when nothing."""
    def wrap(check: Callable[[Session, str], Result]) -> Check:
        def run(s: Session) -> Result:
            got = _received(s, step)
            return _missing(step) if got is None else check(s, got)
        return run
    return wrap


def _carries(s: Session, step: str, got: str, marker: str, what: str,
             extra: bool = True) -> Result:
    sent = s.reference.get(step, "").count(marker)
    seen = got.count(marker)
    if seen == 0:
        return "FAIL", f"{what} ({marker}) not received; model got {quote(got)}"
    if not extra:
        return "FAIL", f"approval guidance not received; model got {quote(got)}"
    if sent and seen > sent:
        return "FAIL", (f"received more than once: {marker} {seen}× in the result, {sent}× in "
                        "the server's own text (both forms forwarded, or the structured data "
                        f"repeats it); model got {quote(got, 160)}")
    return "PASS", f"model got {quote(got, 120)}"


@on_result("load")
def check_load(s: Session, got: str) -> Result:
    return _carries(s, "load", got, proj.RULE.marker, "the rule's body")


@on_result("save")
def check_save(s: Session, got: str) -> Result:
    guidance = bool(re.search(r"human", got, re.IGNORECASE)) and "engram_commit" in got
    return _carries(s, "save", got, proj.SAVED.marker, "the candidate's text", guidance)


@on_result("budget")
def check_budget(s: Session, got: str) -> Result:
    part = engram_part(got)
    if proj.RULE_ID not in part:
        return "FAIL", f"no Engram pack came back; model got {quote(got)}"
    tokens = -(-len(part) // 4)
    verdict = "PASS" if tokens <= proj.BUDGET else "FAIL"
    body = "with" if proj.RULE.marker in part else "without"
    return verdict, f"{tokens} tokens received for a budget of {proj.BUDGET} ({body} the body)"


# Gemini CLI reports a tool error as {"error": "MCP tool '…' reported tool error for function
# call: {…} with response: [<the MCP result as JSON>]"}.
GEMINI_ERROR = " with response: "


def readable(received: str) -> str:
    """The Engram part as text the checks can search: a JSON result (structuredContent, or a
    host's error object, and the MCP result a Gemini error embeds) becomes its strings, one per
    line, unescaped."""
    part = engram_part(received)
    try:
        value = json.loads(part)
    except ValueError:
        return part

    def strings(v: Any) -> list[str]:
        if isinstance(v, str) and GEMINI_ERROR in v:
            try:
                return [v, *strings(json.loads(v.split(GEMINI_ERROR, 1)[1]))]
            except ValueError:
                return [v]
        if isinstance(v, str):
            return [v]
        if isinstance(v, dict):
            return [t for x in v.values() for t in strings(x)]
        if isinstance(v, list):
            return [t for x in v for t in strings(x)]
        return []

    return "\n".join(strings(value)) if isinstance(value, (dict, list)) else part


# A search hit's snippet: this many consecutive words of the memory's text, verbatim. More than
# the ten words of a title, so an id or a title alone does not pass; less than Engram's
# 100-character snippet holds.
SNIPPET_WORDS = 12


def _snippet_of(text: str, got: str) -> bool:
    words = text.split()
    runs = (" ".join(words[i:i + SNIPPET_WORDS]) for i in range(len(words) - SNIPPET_WORDS + 1))
    return any(run in got for run in runs)


@on_result("search")
def check_search(s: Session, got: str) -> Result:
    if len(s.search_ids) != len(proj.STORED):
        return "FAIL", (f"inconclusive: the server's own engram_search found {s.search_ids}, "
                        f"expected the {len(proj.STORED)} stored memories")
    text = readable(got)
    no_id = [i for i in s.search_ids if i not in text]
    no_snippet = [m.marker for m in proj.STORED if not _snippet_of(m.text, text)]
    if no_id or no_snippet:
        return "FAIL", (f"missing ids {no_id}, missing a {SNIPPET_WORDS}-word snippet of "
                        f"{no_snippet}; model got {quote(got)}")
    return "PASS", f"{len(s.search_ids)} ids with snippets; model got {quote(got, 120)}"


@on_result("error")
def check_error(s: Session, got: str) -> Result:
    text = readable(got)
    error = re.search(rf"^error: .*{re.escape(proj.BAD_ID)}.*$", text, re.MULTILINE)
    fix = re.search(r"^fix: \S.*$", text, re.MULTILINE)
    if error is None or fix is None:
        lacks = " and ".join(w for w, m in ((f"error: line naming {proj.BAD_ID}", error),
                                           ("fix: line", fix)) if m is None)
        return "FAIL", f"no {lacks}; model got {quote(got)}"
    return "PASS", f"model got {quote(error.group(0), 90)} + {quote(fix.group(0), 90)}"


def proposal_words(got: str) -> tuple[bool, str]:
    """Does a proposal result give the model one approval token and the sentence naming the
    proposal's three words, the token's first three? (ok, evidence)"""
    tokens = set(re.findall(r"approval_token\W{1,4}([A-Za-z0-9_-]{16,})", engram_part(got)))
    named = re.search(r"this proposal's words, ([a-z]+) ([a-z]+) ([a-z]+)\b", readable(got))
    if len(tokens) != 1:
        return False, f"expected one approval token, found {sorted(tokens)}; model got " \
                      f"{quote(got)}"
    token = tokens.pop()
    if named is None:
        return False, f"no sentence naming the proposal's words; model got {quote(got)}"
    words = named.groups()
    if not token.startswith("-".join(words) + "-"):
        return False, f"the words {' '.join(words)} do not start the token {token}"
    return True, f"words {' '.join(words)}, token {token[:len('-'.join(words)) + 6]}…"


@on_result("save")
def check_words(s: Session, got: str) -> Result:
    ok, evidence = proposal_words(got)
    return ("PASS" if ok else "FAIL"), evidence


@on_result("note")
def check_note(s: Session, got: str) -> Result:
    ok, evidence = proposal_words(got)
    if not ok:
        return "FAIL", evidence
    return _carries(s, "note", got, proj.NOTED.marker, "the note's text")


def _fetched_id(s: Session) -> str | None:
    """The id the scripted model asked for at the `fetch` step (what it read off the map)."""
    step = s.steps.index("fetch")
    asked = [r.get("args") or {} for r in s.turns[0].requests
             if r.get("step") == step and r.get("answered") == "engram_load"]
    return str(asked[-1].get("id", "")) if asked else None


def check_map(s: Session) -> Result:
    got = _received(s, "map")
    if got is None:
        return _missing("map")
    if not s.map_ids:
        return "FAIL", f"the server's own engram_load of {proj.MAP_QUERY!r} listed no map " \
                       f"(pack: {s.map_pack}); model got …{quote(got[-300:])}"
    pack, ids = read_map(got)
    if not ids:
        return "FAIL", f"the engram_load result's text does not end with a map (`- id: title` " \
                       f"lines, then the fetch line); model got …{quote(got[-300:])}"
    if ids != s.map_ids:
        return "FAIL", f"the map the model got lists {ids}, the server's own {s.map_ids}"
    picked = _fetched_id(s)
    if picked is None or picked == NO_MAP_ID:
        return "FAIL", f"the model made no fetch of a map id (asked for {picked}); map: {ids}"
    memory = proj.mapped(picked)
    if picked in s.map_pack or named(pack, picked) or memory is None:
        return "FAIL", f"inconclusive: the model fetched {picked}, which the pack holds or no " \
                       f"MAPPED memory has (pack: {s.map_pack})"
    if memory.marker in got:
        return "FAIL", f"inconclusive: {memory.marker} ({picked}) was already in the map's " \
                       "load result"
    fetched = _received(s, "fetch")
    if fetched is None:
        return _missing("fetch")
    seen = fetched.count(memory.marker)
    if seen != 1:
        return "FAIL", (f"the body of {picked} ({memory.marker}) reached the model {seen}× for "
                        f"engram_load {{\"id\": \"{picked}\"}}; model got {quote(fetched)}")
    return "PASS", (f"map of {len(ids)} after a pack of {len(s.map_pack)}; fetched map id "
                    f"{picked}, model got {memory.marker} once: {quote(fetched, 100)}")


@on_result("resource")
def check_resource(s: Session, got: str) -> Result:
    return _carries(s, "resource", got, proj.RULE.marker, "the rule's body")


def _stopped(s: Session, tool: str) -> str | None:
    """The host's own words when it ended the turn at `tool` instead of returning a result."""
    called = any(r.get("answered") == tool for r in s.turns[0].requests)
    if not called:
        return None
    output = re.sub(r"\x1b\[[0-9;]*m", "", s.turns[0].output)  # terminal colours
    said = re.findall(r"[^\n]*(?:reject|denied|declin|permission)[^\n]*", output, re.IGNORECASE)
    return "the host ended the turn without sending a result" + (
        f"; it said {quote(said[-1], 160)}" if said else "")


def check_commit(s: Session) -> Result:
    got = _received(s, "commit")
    if got is None:
        got = _stopped(s, "engram_commit")
        if got is None:
            return _missing("commit")
    written = sorted(k for k in s.store_after if s.store_before.get(k) != s.store_after[k])
    if written:
        return "FAIL", f"commit ran without a human and wrote {', '.join(written)}; " \
                       f"model got {quote(got, 120)}"
    if "engram_commit" not in s.host.api.engram_tools(_main_requests(s, s.turns[0])[0]["body"]):
        return "SKIP", f"engram_commit was not offered to the model; model got {quote(got, 120)}"
    if not s.token_valid:
        return "FAIL", f"inconclusive: the minted token did not commit afterwards either " \
                       f"({s.token_note})"
    return "PASS", f"nothing written (token still valid afterwards); model got {quote(got, 120)}"


def hook_blocks(body: dict[str, Any]) -> list[tuple[str, str]]:
    """(event, text) of every hook-context block in a Claude request, outside tool results."""
    texts: list[str] = []
    system = body.get("system")
    if isinstance(system, str):
        texts.append(system)
    elif isinstance(system, list):
        texts += [str(b.get("text", "")) for b in system if isinstance(b, dict)]
    for msg in body.get("messages") or []:
        content = msg.get("content")
        if isinstance(content, str):
            texts.append(content)
        elif isinstance(content, list):
            texts += [str(b.get("text", "")) for b in content
                      if isinstance(b, dict) and b.get("type") == "text"]
    blocks = []
    for text in texts:
        marks = list(HOOK_BLOCK.finditer(text))
        for i, m in enumerate(marks):
            end = marks[i + 1].start() if i + 1 < len(marks) else len(text)
            blocks.append((m.group(1), text[m.end():end]))
    return blocks


def check_hooks(s: Session) -> Result:
    if not s.host.hooks:
        return "n/a", ""
    blocks = hook_blocks(_main_requests(s, s.turns[0])[0]["body"])
    if not blocks:
        return "FAIL", "no hook context reached the model"
    missing = [m.marker for m in proj.STORED
               if not any(m.marker in text for _, text in blocks)]
    events = ", ".join(sorted({event for event, _ in blocks}))
    if missing:
        return "FAIL", f"hook context from {events} lacks {', '.join(missing)}: " \
                       f"{quote(' / '.join(t for _, t in blocks))}"
    return "PASS", f"{events} context carries {', '.join(m.marker for m in proj.STORED)}"


def _last_blocks(s: Session, turn: int, prompt: str) -> list[tuple[str, str]] | Result:
    """Hook blocks the model had in front of it at the end of a run (the whole history)."""
    main = _main_requests(s, s.turns[turn]) if len(s.turns) > turn else []
    if not main or prompt not in json.dumps(main[-1]["body"], ensure_ascii=False):
        return "FAIL", f"the prompt {quote(prompt, 60)} never reached the model"
    return hook_blocks(main[-1]["body"])


def _repeats(old: list[tuple[str, str]], new: list[tuple[str, str]]) -> Result:
    """FAIL when a block in `new` carries a memory body already in `old` or earlier in `new`."""
    seen = {m.marker: [e for e, text in old if m.marker in text] for m in proj.STORED}
    again: dict[str, list[str]] = {}
    for event, text in new:
        for marker, events in seen.items():
            if marker in text:
                if events:
                    again.setdefault(marker, list(events)).append(event)
                events.append(event)
    if again:
        return "FAIL", "; ".join(f"{k} injected {len(v)}× ({' + '.join(v)})"
                                 for k, v in again.items())
    if not seen[proj.RULE.marker]:
        return "FAIL", "the rule was never injected by a hook"
    return "PASS", "; ".join(f"{k} once ({v[0]})" for k, v in seen.items() if v)


def check_once(s: Session) -> Result:
    blocks = _last_blocks(s, 0, proj.PROMPT_2)
    return _repeats([], blocks) if isinstance(blocks, list) else blocks


def check_resume(s: Session) -> Result:
    """Only what the resumed run added counts: a body injected again after --resume."""
    before = _last_blocks(s, 0, proj.PROMPT_2)
    after = _last_blocks(s, 1, proj.PROMPT_3)
    if not isinstance(after, list):
        return after
    if not isinstance(before, list):
        return before
    return _repeats(before, after[len(before):])


CHECKS = {"tools": check_tools, "hooks": check_hooks, "load": check_load, "save": check_save,
          "words": check_words, "budget": check_budget, "search": check_search,
          "error": check_error, "note": check_note, "map": check_map,
          "resource": check_resource,
          "commit": check_commit, "once": check_once, "resume": check_resume}


def judge(s: Session) -> dict[str, Result]:
    """Every scenario's outcome for one host session."""
    broken = _no_conversation(s)
    out: dict[str, Result] = {}
    for name in SCENARIOS:
        if name in ("hooks", "once", "resume") and not s.host.hooks:
            out[name] = ("n/a", "")
        else:
            out[name] = broken or CHECKS[name](s)
    return out
