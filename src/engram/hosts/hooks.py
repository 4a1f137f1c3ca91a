"""The hook runtime behind `engram agent-hook --host claude`
(docs/hosts.md "Claude Code: /engram and hooks").

Claude Code sends one JSON payload on stdin per event; we answer with
`{"hookSpecificOutput": {"hookEventName": …, "additionalContext": <routed pack>}}` or `{}`.
SessionStart routes `ENGRAM_SESSION_OBJECTIVE`, else the branch name and the last commit subject,
and falls back to one-line cards of rule memories; a prompt turn routes the prompt and, in the
default `auto` mode, leaves out the memories whose bodies this session already received (named on
one line) and injects only when something new remains. SessionStart after `/clear` or a
compaction starts the session's record afresh; on a resume it leaves out what the record holds.
The cache (`<workspace>/.cache/hooks.json`, pruned to recent sessions) holds hashes of session
ids and packs and the keys of injected memories, never prompt text. Without a usable
`session_id` a prompt turn only skips a pack identical to the last one. Any failure yields `{}`:
a hook must never break its host.

Routing itself is the read path's (`engram.search.api`); it is injected as a `Router` so this
module can be tested and timed on its own. This module never writes memories.
"""

from __future__ import annotations

import hashlib
import json
import re
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, NamedTuple

from engram import jsontext
from engram.config import Env
from engram.store.fileio import atomic_write
from engram.workspace import Roots, resolve

EVENTS = ("SessionStart", "UserPromptSubmit")
CACHE_FILE = "hooks.json"
CACHE_SESSIONS = 64
CACHE_MAX_AGE_S = 3 * 24 * 3600
CACHE_KEYS_PER_SESSION = 256
MAX_SESSION_ID = 200
GIT_TIMEOUT_S = 0.5
_WORD = re.compile(r"[a-z0-9]+")
_STOP = frozenset({"the", "and", "for", "with", "from", "into", "are", "this", "that", "task",
                   "work", "working"})


class Pack(NamedTuple):
    """A routed pack: the text to inject, the routed keys it shows, the ids shown as cards and
    the keys shown as whole bodies."""

    text: str
    keys: tuple[str, ...] = ()
    card_ids: tuple[str, ...] = ()
    body_keys: tuple[str, ...] = ()


# router(roots, query, in_context): a pack without the memories whose keys are in_context
Router = Callable[[Roots, str, frozenset[str]], Pack]
Cards = Callable[[Roots, int], str]


def search_router(roots: Roots, query: str, in_context: frozenset[str] = frozenset()) -> Pack:
    """The read path's `load` (tiered pack within `load.max_tokens`)."""
    from engram.search import api  # the costly import: only when something routes

    out = api.load(roots, query=query, in_context=in_context)
    data = out.data
    return Pack(out.text if data.get("selected_keys") else "",
                tuple(data.get("selected_keys", ())), tuple(data.get("card_ids", ())),
                tuple(data.get("body_keys", ())))


def rule_cards(roots: Roots, budget_tokens: int) -> str:
    """One-line cards of rule memories, by id, as many as fit the budget (each card from a
    guarded read, so only the files that fit are read)."""
    from engram.search import api

    lines: list[str] = []
    used = 0
    for line in api.card_lines(roots, types={"rule"}, approved_first=True):
        cost = -(-(len(line) + 1) // 4)
        if used + cost > budget_tokens:
            break
        lines.append(line)
        used += cost
    return "\n".join(lines)


def _words(text: str) -> set[str]:
    return {w for w in _WORD.findall(text.lower()) if len(w) > 2 and w not in _STOP}


def _note_objective(path: Path) -> str | None:
    try:
        head = path.read_text(encoding="utf-8")[:4000]
    except OSError:
        return None
    match = re.search(r"^objective:\s*(.+)$", head, re.MULTILINE)
    return match.group(1).strip().strip("'\"") if match else None


def filter_notes(roots: Roots, pack: Pack, objective: str | None) -> Pack:
    """SessionStart shows a note card only when the session objective matches its objective."""
    wanted = _words(objective or "")
    text = pack.text
    hidden: set[str] = set()
    for card in pack.card_ids:
        note = next((r.working_dir / f"{card}.md" for r in roots.existing()
                     if (r.working_dir / f"{card}.md").is_file()), None)
        if note is None:
            continue
        own = _words(_note_objective(note) or "")
        if wanted and own and wanted <= own:
            continue
        hidden.add(card)
        text = "\n".join(ln for ln in text.splitlines() if not ln.startswith(f"- {card} ("))
    if hidden and all(key.split(":", 1)[-1] in hidden for key in pack.keys):
        return Pack("")  # only notes routed, all hidden: a bare header would say nothing
    return pack._replace(text=text)


def _git_dir(project: Path) -> Path:
    """`.git`, or where a worktree's `.git` file points (`gitdir: …`)."""
    dot = project / ".git"
    if dot.is_file():
        line = dot.read_text(encoding="utf-8").strip()
        if line.startswith("gitdir:"):
            target = Path(line.removeprefix("gitdir:").strip())
            return target if target.is_absolute() else project / target
    return dot


def session_query(env: Env, project: Path) -> str:
    """ENGRAM_SESSION_OBJECTIVE, else the branch name plus the last commit subject."""
    if env.session_objective:
        return env.session_objective
    parts: list[str] = []
    try:
        head = (_git_dir(project) / "HEAD").read_text(encoding="utf-8").strip()
    except OSError:
        return ""
    if head.startswith("ref: refs/heads/"):
        parts.append(re.sub(r"[-_/.]+", " ", head.removeprefix("ref: refs/heads/")))
    import subprocess  # only SessionStart without an objective pays for it

    from engram.gitrun import git_argv

    try:
        done = subprocess.run(git_argv(project, "log", "-1", "--format=%s"),
                              capture_output=True, text=True, timeout=GIT_TIMEOUT_S, check=False)
        if done.returncode == 0:
            parts.append(done.stdout.strip())
    except (OSError, subprocess.TimeoutExpired):
        pass  # no git or a slow repository: the branch name alone still routes
    return " ".join(p for p in parts if p)


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def usable_session(value: Any) -> bool:
    """A session id we can key per-memory state on (a host's UUID-like string)."""
    return (isinstance(value, str) and 0 < len(value) <= MAX_SESSION_ID
            and value.isprintable() and bool(value.strip()))


class Cache:
    """Per session (its id hashed): the hash of the last injected pack and the keys of the
    memories whose bodies were injected. Pruned to recent sessions on every write."""

    def __init__(self, roots: Roots) -> None:
        self.path = roots.workspace.cache_dir / CACHE_FILE
        try:
            loaded = jsontext.loads(self.path.read_text(encoding="utf-8"))
            self.sessions: dict[str, Any] = {
                k: v for k, v in dict(loaded.get("sessions", {})).items() if isinstance(v, dict)}
        except (OSError, ValueError, AttributeError, TypeError):
            self.sessions = {}

    def _entry(self, session: str) -> dict[str, Any]:
        return self.sessions.get(_digest(session)[:32]) or {}

    def last(self, session: str) -> str | None:
        pack = self._entry(session).get("pack")
        return pack if isinstance(pack, str) else None

    def _keys(self, session: str) -> list[str]:
        keys = self._entry(session).get("in")
        return [k for k in keys if isinstance(k, str)] if isinstance(keys, list) else []

    def injected(self, session: str) -> frozenset[str]:
        return frozenset(self._keys(session))

    def remember(self, session: str, pack_hash: str, injected: tuple[str, ...] = (), *,
                 fresh: bool = False) -> None:
        """Record a pack; `injected` keys join the session's record (replace it if `fresh`)."""
        now = int(time.time())
        keys = [] if fresh else [k for k in self._keys(session) if k not in injected]
        keys = (keys + list(injected))[-CACHE_KEYS_PER_SESSION:]
        entry: dict[str, Any] = {"pack": pack_hash, "t": now}
        if keys:
            entry["in"] = keys
        self.sessions[_digest(session)[:32]] = entry
        recent = [(k, v) for k, v in self.sessions.items()
                  if isinstance(v.get("t"), int) and now - v["t"] <= CACHE_MAX_AGE_S]
        recent.sort(key=lambda kv: kv[1]["t"], reverse=True)
        self.sessions = dict(recent[:CACHE_SESSIONS])
        if self.path.parent.parent.is_dir():  # only inside an existing root
            atomic_write(self.path, json.dumps({"sessions": self.sessions}, sort_keys=True))


def _output(event: str, text: str) -> dict[str, Any]:
    if not text.strip():
        return {}
    return {"hookSpecificOutput": {"hookEventName": event, "additionalContext": text}}


def respond(raw: str, env: Env, router: Router = search_router,
            cards: Cards = rule_cards) -> dict[str, Any]:
    """Answer one hook payload. Never raises for bad input (the CLI adds a last guard)."""
    try:
        payload = jsontext.loads(raw)
    except ValueError:
        return {}
    if not isinstance(payload, dict) or payload.get("hook_event_name") not in EVENTS:
        return {}
    event = str(payload["hook_event_name"])
    session = str(payload.get("session_id") or "")
    per_memory = usable_session(payload.get("session_id"))
    cwd = payload.get("cwd")
    if isinstance(cwd, str) and Path(cwd).is_dir():
        env = env._replace(cwd=Path(cwd))
    roots = resolve(env)
    if not roots.existing():
        return {}
    mode = roots.settings().get("read")
    if mode in ("manual", "off") or (mode == "startup" and event != "SessionStart"):
        return {}
    cache = Cache(roots)
    if event == "SessionStart":
        query = session_query(env, roots.project)
        # A resumed session still holds what it was given; a new, cleared or compacted context
        # holds only what this SessionStart injects.
        resumed = per_memory and payload.get("source") == "resume"
        seen = cache.injected(session) if resumed else frozenset()
        pack = filter_notes(roots, router(roots, query, seen), env.session_objective) \
            if query else Pack("")
        text = pack.text or ("" if seen else
                             cards(roots, roots.settings().int("load.max_tokens")))
        cache.remember(session, _digest(text), pack.body_keys if pack.text else (),
                       fresh=not resumed)
        return _output(event, text)
    prompt = payload.get("prompt")
    if not isinstance(prompt, str) or not prompt.strip():
        return {}
    seen = cache.injected(session) if per_memory and mode == "auto" else frozenset()
    pack = router(roots, prompt, seen)
    if not pack.text.strip():
        return {}  # nothing routed, or every routed memory is already in context
    digest = _digest(pack.text)
    if mode == "auto" and cache.last(session) == digest:
        return {}
    cache.remember(session, digest, pack.body_keys if per_memory else ())
    return _output(event, pack.text)
