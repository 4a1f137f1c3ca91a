"""The approval dialog (docs/mcp.md): the form, the reading of the human's answer, sealed request
states.

A form lists the writable candidates by number, verdict, type and id with one boolean each, and
shows everything each candidate writes (its text and every other field, proposals/shown.py,
escaped) and every file approving it writes or changes (its effects, proposals/effects.py: the
new memory, a memory it updates or retires, a note it removes, each with scope, type and text)
in the message and in the boolean's description: a human approves what they read, never an id
alone, and never a cut: a proposal too long to show whole in a dialog gets no dialog (the
preview with its token goes back instead, as for a host without dialogs). A save-scope choice
appears only when the proposal targets `both` (narrowing only).
`interpret` maps an answer to a `Decision`: accept exactly the ticked numbers, decline (also for
an invalid answer), or fall back to the token flow (cancel, timeout, client error).
`StateBox` seals MCP 2026-07-28 `requestState` values with HMAC-SHA256 under a per-process key,
bound to tool, workspace and argument digest, expiring after 15 minutes; the approval token stays
in this process, never in the state the client holds. Sending and waiting is server.py's job.
"""

from __future__ import annotations

import json
import os
import threading
import time
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, Literal, NamedTuple

from engram import jsontext
from engram.mcp.protocol import REQUEST_STATE_TTL_S

if TYPE_CHECKING:
    from engram.mcp.core import ProposalItem
    from engram.outcome import Outcome

TITLE_MAX = 80
TEXT_MAX = 2000  # characters of a candidate a dialog shows whole; longer: no dialog
MESSAGE_MAX = 8000


class Form(NamedTuple):
    kind: Literal["save", "note"]
    message: str
    schema: dict[str, Any]
    numbers: tuple[int, ...]
    scopes: tuple[str, ...] = ()


class Decision(NamedTuple):
    action: Literal["accept", "decline", "fallback"]
    reason: str
    numbers: tuple[int, ...] = ()
    scope: str | None = None


def verdict_kinds(item: ProposalItem) -> str:
    """The kinds of an item's verdict parts, each once: 'ADD', 'UPDATE/ADD' (no ids, no text)."""
    kinds = dict.fromkeys(kind for _scope, kind in item.parts)
    return "/".join(kinds) or "?"


GLOBAL_WORDS = "your global memory, which every project reads"


def _where(scopes: set[str]) -> str:
    """Where the approved text goes, said whenever it leaves this repository: the global root
    is the user's, read by every project (a dialog that said nothing let a repository's
    config or an agent's `scope` argument send text there unseen)."""
    if scopes <= {"workspace"}:
        return ""
    if scopes == {"global"}:
        return f" to {GLOBAL_WORDS}"
    return f" to both the workspace and {GLOBAL_WORDS}"


def _item_where(item: ProposalItem) -> str:
    scopes = {scope for scope, _kind in item.parts}
    return "" if scopes <= {"workspace"} else \
        " (global)" if scopes == {"global"} else " (workspace + global)"


def targets_both(items: Sequence[ProposalItem]) -> bool:
    """Whether the proposal was planned for both roots (some item has a part in each)."""
    return any({scope for scope, _kind in i.parts} >= {"workspace", "global"} for i in items)


def save_form(items: Sequence[ProposalItem]) -> Form | None:
    """The candidates form; None when nothing is writable (all NOOP: there is nothing to ask) or
    when a candidate is too long to show whole."""
    writable = [i for i in items if i.writable]
    if not writable or any(shown_text(i.text) is None for i in writable):
        return None
    props: dict[str, Any] = {}
    shown: list[str] = []
    for item in writable:
        dest = _item_where(item)  # never cut: only the id may be shortened
        kind = " ".join(x for x in (verdict_kinds(item), item.type) if x)
        title = _clip(f"{item.number} {kind} {item.id}", TITLE_MAX - len(dest)) + dest
        text = shown_text(item.text) or ""
        # Every file approving it writes or changes, from the commit plan (effects.py): the
        # memory it retires or rewrites is named here, never left to the verdict's kind.
        changes = effect_lines(item)
        props[f"c{item.number}"] = {"type": "boolean", "title": _clip(title),
                                    "description": " / ".join([text, *changes]),
                                    "default": True}
        shown.append(f"{_clip(title)}: {text}" + "".join(f"\n  {ln}" for ln in changes))
    scopes = ("both", "workspace", "global") if targets_both(items) else ()
    if scopes:
        props["scope"] = {"type": "string", "title": "Save to", "enum": list(scopes),
                          "default": "both"}
    noop = [i for i in items if not i.writable]
    where = _where({scope for i in writable for scope, _kind in i.parts})
    message = (f"Engram: approve saving {len(writable)} memory candidate(s){where}? "
               "Untick any you do not want saved.")
    if noop:
        message += " Not shown, already known: " + ", ".join(f"{i.number} {i.verdict}"
                                                             for i in noop)
    message += "\n\n" + "\n".join(shown)
    if len(message) > MESSAGE_MAX:
        return None  # never cut what the human approves
    schema = {"type": "object", "properties": props}
    return Form("save", message, schema, tuple(i.number for i in writable), scopes)


def note_form(items: Sequence[ProposalItem], valid_until: str | None) -> Form | None:
    if not items or not items[0].writable:
        return None
    note_id = items[0].id
    until = f" until {valid_until}" if valid_until else ""
    until += _where({scope for scope, _kind in items[0].parts})
    text = shown_text(items[0].text)
    if text is None:
        return None
    changes = effect_lines(items[0])
    schema = {"type": "object", "properties": {
        "save": {"type": "boolean", "title": _clip(f"Save working note {note_id}"),
                 "description": " / ".join([text, *changes]), "default": True}}}
    message = f"Engram: keep the task note {note_id}{until}?\n\n{text}" + "".join(
        f"\n  {ln}" for ln in changes)
    return Form("note", message, schema, (items[0].number,))


def effect_lines(item: ProposalItem) -> list[str]:
    """The item's effects as the preview words them (one function renders both)."""
    from engram.proposals.effects import describe

    return [describe(e) for e in item.effects]


def interpret(form: Form, answer: Any) -> Decision:
    """Read an elicitation result (`{action, content}`) against the form it answers."""
    if not isinstance(answer, dict) or answer.get("action") not in {"accept", "decline", "cancel"}:
        return Decision("decline", "the dialog answer was not valid")
    if answer["action"] == "decline":
        return Decision("decline", "the human declined in the approval dialog")
    if answer["action"] == "cancel":
        return Decision("fallback", "the approval dialog was cancelled")
    content = answer.get("content") or {}
    if not isinstance(content, dict):
        return Decision("decline", "the dialog answer was not valid")
    allowed = set(form.schema["properties"])
    if set(content) - allowed or not all(
            isinstance(content[k], bool) for k in content if k != "scope"):
        return Decision("decline", "the dialog answer was not valid")
    scope = content.get("scope")
    if scope is not None and scope not in form.scopes:
        return Decision("decline", "the dialog answer chose a scope that was not offered")
    if form.kind == "note":
        if content.get("save", True) is not True:
            return Decision("decline", "the human said no in the approval dialog")
        return Decision("accept", "approved in the dialog", form.numbers)
    chosen = tuple(n for n in form.numbers if content.get(f"c{n}", True) is True)
    if not chosen:
        return Decision("decline", "no candidate was selected in the approval dialog")
    narrowed = scope if isinstance(scope, str) and scope != "both" else None
    return Decision("accept", "approved in the dialog", chosen, narrowed)


def args_digest(arguments: dict[str, Any]) -> str:
    import hashlib

    canonical = json.dumps(arguments, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


class StateError(ValueError):
    """A requestState that is forged, expired, reused or bound to something else."""


class Pending(NamedTuple):
    """What an open dialog needs on the retry: the proposal's token, its form, its token text."""

    token: str
    form: Form
    fallback: Outcome


class _Open(NamedTuple):
    pending: Pending
    expires: float


class StateBox:
    """Seals and opens request states; holds the token of each open dialog by nonce."""

    def __init__(self, ttl: float = REQUEST_STATE_TTL_S,
                 clock: Callable[[], float] = time.time, key: bytes | None = None) -> None:
        self.ttl = ttl
        self.clock = clock
        self.key = key or os.urandom(32)  # per process: a restart invalidates open states
        self._open: dict[str, _Open] = {}
        self._lock = threading.Lock()

    def seal(self, tool: str, workspace: str, digest: str, pending: Pending) -> str:
        nonce = _b64(os.urandom(16))
        expires = self.clock() + self.ttl
        with self._lock:
            self._prune()
            self._open[nonce] = _Open(pending, expires)
        payload = {"v": 1, "tool": tool, "ws": workspace, "args": digest, "n": nonce,
                   "exp": round(expires, 3)}
        body = _b64(json.dumps(payload, sort_keys=True, separators=(",", ":")).encode())
        return f"{body}.{_b64(self._mac(body))}"

    def open(self, state: Any, tool: str, workspace: str, digest: str) -> Pending:
        """Return the pending dialog of a valid state and consume it; raise StateError if not."""
        payload = self._verified(state)
        if payload.get("exp", 0) < self.clock():
            raise StateError("requestState has expired; call the tool again to re-propose")
        if (payload.get("tool"), payload.get("ws"), payload.get("args")) != \
                (tool, workspace, digest):
            raise StateError("requestState does not match this tool, workspace and arguments")
        with self._lock:
            entry = self._open.pop(str(payload.get("n")), None)
        if entry is None:
            raise StateError("requestState was already used or belongs to another server run")
        return entry.pending

    def _verified(self, state: Any) -> dict[str, Any]:
        import base64
        import hmac

        if not isinstance(state, str) or state.count(".") != 1:
            raise StateError("requestState is malformed")
        body, mac = state.split(".")
        try:
            given = base64.urlsafe_b64decode(mac + "=" * (-len(mac) % 4))
        except ValueError as exc:
            raise StateError("requestState is malformed") from exc
        if not hmac.compare_digest(given, self._mac(body)):
            raise StateError("requestState failed its integrity check")
        try:
            payload = jsontext.loads(base64.urlsafe_b64decode(body + "=" * (-len(body) % 4)))
        except ValueError as exc:
            raise StateError("requestState is malformed") from exc
        if not isinstance(payload, dict):
            raise StateError("requestState is malformed")
        return payload

    def _mac(self, body: str) -> bytes:
        import hashlib
        import hmac

        return hmac.new(self.key, body.encode("utf-8"), hashlib.sha256).digest()

    def _prune(self) -> None:
        now = self.clock()
        for nonce in [n for n, e in self._open.items() if e.expires < now]:
            del self._open[nonce]


def _b64(raw: bytes) -> str:
    import base64

    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode("ascii")


def shown_text(text: str) -> str | None:
    """A candidate as a dialog shows it: one line, every invisible or control character
    escaped (proposals holding them are refused anyway); None when it is longer than TEXT_MAX
    (it is never cut: the human would approve what they did not read)."""
    from engram.safety import printable

    shown = printable(" / ".join(ln.strip() for ln in text.splitlines() if ln.strip()))
    return shown if len(shown) <= TEXT_MAX else None


def _clip(text: str, limit: int = TITLE_MAX) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"
