"""A tools/call result as hosts hand it to the model, and the lean views some tools need.

Hosts disagree on what the model sees: Claude Code, Codex and VS Code forward only
`JSON.stringify(structuredContent)`, Gemini CLI and OpenCode only `content[0].text`. So the
model-facing text travels in both: `content[0].text`, and `structuredContent.text` (first in the
envelope, `Outcome.envelope()`). No host we know forwards both; one that did would receive the
text twice, the price of not guessing a host's behaviour from its name (docs/mcp.md).

Whatever only programs need costs tokens in the structured form, so results that can grow with
the store are leaned here: `engram_verify` names only the files with a problem, and a proposal's
`data.items` leave out the candidate texts its `text` already shows. `engram_load` bounds its own
envelope (`search.api.load(fit_json=True)`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from engram.outcome import Outcome

OK_STATUS = "OK"


def tool_result(outcome: Outcome) -> dict[str, Any]:
    return {"content": [{"type": "text", "text": outcome.text}],
            "structuredContent": outcome.envelope(), "isError": not outcome.ok}


def problems_only(outcome: Outcome) -> Outcome:
    """`engram_verify` for a model: files with a problem and the summary, not every OK file.

    `data.checked` keeps the count; `engram verify --json` still lists every file.
    """
    files = outcome.data.get("files")
    if not isinstance(files, list):
        return outcome
    bad = [f for f in files if not (isinstance(f, dict) and f.get("status") == OK_STATUS)]
    lines = [ln for ln in outcome.text.splitlines() if not ln.startswith(OK_STATUS + " ")]
    return outcome.replace(text="\n".join(lines),
                           data={**outcome.data, "files": bad, "checked": len(files)})


def texts_once(outcome: Outcome) -> Outcome:
    """A proposal for a model: each candidate's text once, in the preview (`text`), not again in
    `data.items[].text` (`--json` keeps it; the approval dialog reads the proposal itself)."""
    items = outcome.data.get("items")
    if not isinstance(items, list):
        return outcome
    lean = [{k: v for k, v in i.items() if k != "text"} if isinstance(i, dict) else i
            for i in items]
    return outcome.replace(data={**outcome.data, "items": lean})
