"""The scenarios, judged only on what the model received (the recorded requests) and the store.

Each check returns (status, evidence): PASS, FAIL, SKIP (could not be exercised: evidence says
why) or n/a (the host has no such feature). Evidence quotes what the model was given.
"""

from __future__ import annotations

import json
import re
from typing import Any

from . import project as proj
from .session import Session, Turn

Result = tuple[str, str]
SCENARIOS = ("tools", "hooks", "load", "save", "budget", "commit", "once", "resume")
TITLES = {
    "tools": "all Engram tools listed to the model",
    "hooks": "hook packs in front of the model (Claude)",
    "load": "engram_load result carries the memory body, once",
    "save": "engram_save result carries candidate text + approval guidance, once",
    "budget": f"engram_load with budget_tokens {proj.BUDGET}: the Engram part of what the model "
              "received fits it (ceil(chars/4))",
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
    """Tool results the model received in the first run, in call order (load, save, budgeted
    load, commit)."""
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


def _call_result(s: Session, index: int, tool: str) -> tuple[str | None, Result | None]:
    results = _results(s)
    if len(results) <= index:
        return None, ("FAIL", f"no result for the scripted {tool} reached the model")
    return results[index], None


def _carries(s: Session, tool: str, got: str, marker: str, what: str,
             extra: bool = True) -> Result:
    sent = s.reference.get(tool, "").count(marker)
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


def check_load(s: Session) -> Result:
    got, bad = _call_result(s, 0, "engram_load")
    if got is None:
        return bad or ("FAIL", "")
    return _carries(s, "engram_load", got, proj.RULE.marker, "the rule's body")


def check_save(s: Session) -> Result:
    got, bad = _call_result(s, 1, "engram_save")
    if got is None:
        return bad or ("FAIL", "")
    guidance = bool(re.search(r"human", got, re.IGNORECASE)) and "engram_commit" in got
    return _carries(s, "engram_save", got, proj.SAVED.marker, "the candidate's text", guidance)


def engram_part(received: str) -> str:
    """What Engram sent inside a host's wrapping: Codex's "Wall time … Output:" header,
    Gemini's {"output": …} object and <untrusted_context> tags are the host's, not Engram's."""
    text = received
    if text.startswith("Wall time:") and "Output:\n" in text:
        text = text.split("Output:\n", 1)[1]
    try:
        value = json.loads(text)
    except ValueError:
        value = None
    if isinstance(value, dict) and set(value) == {"output"} and isinstance(value["output"], str):
        text = value["output"]
    return re.sub(r"</?untrusted_context>\n?", "", text).strip()


def check_budget(s: Session) -> Result:
    got, bad = _call_result(s, 2, "engram_load")
    if got is None:
        return bad or ("FAIL", "")
    part = engram_part(got)
    if proj.RULE_ID not in part:
        return "FAIL", f"no Engram pack came back; model got {quote(got)}"
    tokens = -(-len(part) // 4)
    verdict = "PASS" if tokens <= proj.BUDGET else "FAIL"
    body = "with" if proj.RULE.marker in part else "without"
    return verdict, f"{tokens} tokens received for a budget of {proj.BUDGET} ({body} the body)"


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
    got, bad = _call_result(s, 3, "engram_commit")
    if got is None:
        stopped = _stopped(s, "engram_commit")
        if stopped is None:
            return bad or ("FAIL", "")
        got = stopped
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
          "budget": check_budget, "commit": check_commit, "once": check_once,
          "resume": check_resume}


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
