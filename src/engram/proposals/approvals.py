"""Pending approvals (docs/saving.md): hashed single-use tokens, sealed, in the user's state
directory.

A token is three words naming it for a human (codewords.py) and `secrets.token_urlsafe(24)`
(192 bits); it is returned to the caller once; the file
keeps only its SHA-256, with the canonical candidates, pinned verdicts (and target hashes),
target scopes, expiry (30 minutes) and state, all sealed with an HMAC under the user's key
(store/seal.py) bound to the token's hash: an entry edited, written by hand, moved under another
token or flipped from declined back to pending fails the commit with `integrity.approval`. The
file lives outside the workspace (`Roots.pending_file`, one per workspace, mode 0600), so an
agent that can write the workspace can neither see, delete nor replay an older copy of it
(docs/safety.md); the workspace binding stays in every entry.

A commit first *claims* its entry (two processes cannot commit one token), then *settles* it:
used when anything was written, back to pending when nothing was. Used entries shrink to a
tombstone (so reuse says "already used"), expired entries are pruned on every update. Every
update happens under the workspace root lock through `atomic_write`. This module does not know
what a candidate means; commit.py and api.py do.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

from engram import jsontext
from engram.clock import Clock, utcnow
from engram.errors import ApprovalError, IntegrityError, StorageError
from engram.proposals import origin
from engram.storage import fault_text, read_text, shown_path
from engram.store.fileio import atomic_write, root_lock
from engram.store.seal import seal, user_key, verify
from engram.workspace import IGNORED_LINES, Root, Roots

TTL = timedelta(minutes=30)
CLAIM_TTL = timedelta(minutes=2)  # a claim older than this belongs to a crashed commit
TOKEN_BYTES = 24
# Proposals minted per `TTL` window: far more than a human reviews, and few enough that an agent
# grinding for a token whose words match another proposal's (codewords.py) stops at once: 64
# draws match all three words with a chance of about 4 in a million, 256 about 16 in a million.
# One MCP server process is one host session (origin.py): each may mint MINT_LIMIT, all agent
# sessions of a workspace together AGENT_LIMIT, so a looping session locks out neither a fresh
# session nor the human; the command line (`engram save` at a terminal) has a bucket of its own.
MINT_LIMIT = 64  # per MCP session, and for the command line
AGENT_LIMIT = 256  # all MCP sessions of one workspace
FILE_VERSION = 2
_PROPOSE_AGAIN = "propose the candidates again to get a new approval token"


def digest(token: str) -> str:
    import hashlib  # lazy: OpenSSL start-up costs ~15 ms that `engram status` need not pay

    return hashlib.sha256(token.encode("utf-8")).hexdigest()


@dataclass
class PendingEntry:
    """One pending proposal as stored (minus the token itself)."""

    kind: str  # "save" | "note"
    workspace: str
    scopes: list[str]
    candidates: list[dict[str, Any]]
    pins: list[dict[str, Any]]  # [{number, scope, kind, target}]
    expires: str
    extra: dict[str, Any] = field(default_factory=dict)
    state: str = "pending"  # pending | claimed | used | declined
    claimed_at: str | None = None
    seal: str = ""

    def body(self) -> dict[str, Any]:
        return {"kind": self.kind, "workspace": self.workspace, "scopes": self.scopes,
                "candidates": self.candidates, "pins": self.pins, "expires": self.expires,
                "extra": self.extra, "state": self.state, "claimed_at": self.claimed_at}

    def canonical(self, token_hash: str) -> str:
        body = {**self.body(), "token": token_hash, "version": FILE_VERSION}
        return json.dumps(body, sort_keys=True, ensure_ascii=False, separators=(",", ":"))

    def as_json(self) -> dict[str, Any]:
        return {**self.body(), "seal": self.seal}


class PendingApprovals:
    """The pending approvals of one workspace, kept in the user's state directory."""

    def __init__(self, roots: Roots, clock: Clock | None = None) -> None:
        self.root = roots.workspace
        self.path = roots.pending_file
        self.key = user_key(roots.state_dir, roots.project)
        self.clock = clock or utcnow

    def _store(self, entries: dict[str, Any], key: str, entry: PendingEntry) -> None:
        entry.seal = seal(self.key, "pending-approval", entry.canonical(key))
        entries[key] = entry.as_json()

    def mint(self, kind: str, scopes: list[str], candidates: list[dict[str, Any]],
             pins: list[dict[str, Any]], extra: dict[str, Any] | None = None) -> str:
        import secrets

        from engram.proposals.codewords import new_code

        token = f"{new_code()}-{secrets.token_urlsafe(TOKEN_BYTES)}"
        entry = PendingEntry(kind=kind, workspace=str(self.root.path), scopes=list(scopes),
                        candidates=candidates, pins=pins, extra=dict(extra or {}),
                        expires=_iso(self.clock() + TTL))
        entry.extra["origin"] = origin.current()
        with self._update() as entries:
            self._prune(entries)  # every entry left was minted within the last TTL
            self._check_room(entries)
            self._store(entries, digest(token), entry)
        return token

    def _check_room(self, entries: dict[str, Any]) -> None:
        """Refuse a proposal past this origin's cap, saying how the human gets going again."""
        origins = [str((raw.get("extra") or {}).get("origin") or "mcp:unknown")
                   if isinstance(raw, dict) else "mcp:unknown" for raw in entries.values()]
        oldest = min((_parse(str(r.get("expires"))) for r in entries.values()
                      if isinstance(r, dict)), default=self.clock() + TTL)
        until = f"wait until {oldest:%H:%M} UTC, when the oldest expires"
        grind = "so many proposals is also how an agent would try for a token whose words " \
                "match another proposal's"
        mine = origin.current()
        if mine == origin.CLI:
            if origins.count(origin.CLI) >= MINT_LIMIT:
                raise ApprovalError(
                    f"{MINT_LIMIT} proposals were made from the command line in this workspace "
                    "in the last 30 minutes; no more are taken for now", code="approval.too_many",
                    hint=f"commit or decline the open ones, or {until}; {grind}")
            return
        if origins.count(mine) >= MINT_LIMIT:
            raise ApprovalError(
                f"this session made {MINT_LIMIT} proposals in the last 30 minutes; no more are "
                "taken from it for now", code="approval.too_many",
                hint=f"start a fresh session (restart the host or its Engram server), save from "
                f"a terminal with `engram save`, or {until}; {grind}")
        if sum(o != origin.CLI for o in origins) >= AGENT_LIMIT:
            raise ApprovalError(
                f"agent sessions made {AGENT_LIMIT} proposals in this workspace in the last 30 "
                "minutes; no more are taken from them for now", code="approval.too_many",
                hint=f"save from a terminal with `engram save` (counted apart), or {until}; "
                f"{grind}")

    def claim(self, token: str) -> PendingEntry:
        """Validate a token and mark it claimed; every failure is an error naming the fix."""
        key = digest(_check_token(token))
        with self._update() as entries:
            raw = entries.get(key)
            if raw is None:
                raise ApprovalError("unknown approval token", code="approval.unknown",
                                    hint="tokens are single use, expire after 30 minutes and only "
                                    "work in the workspace that issued them; " + _PROPOSE_AGAIN)
            entry = self._open(key, raw)
            self._check(entry)
            entry.state, entry.claimed_at = "claimed", _iso(self.clock())
            self._store(entries, key, entry)
        return entry

    def settle(self, token: str, *, used: bool) -> None:
        key = digest(token)
        with self._update() as entries:
            raw = entries.get(key)
            if raw is None:
                return
            if used:
                entries[key] = {"state": "used", "expires": raw.get("expires", "")}
                return
            entry = self._open(key, raw)
            entry.state, entry.claimed_at = "pending", None
            self._store(entries, key, entry)

    def decline(self, token: str) -> None:
        """Dialog decline: the proposal stays only to explain why a later commit fails."""
        key = digest(_check_token(token))
        with self._update() as entries:
            raw = entries.get(key)
            if raw is None or raw.get("state") not in {"pending", "claimed"}:
                return
            try:
                entry = self._open(key, raw)
            except IntegrityError:
                entries[key] = {"state": "used", "expires": raw.get("expires", "")}
                return  # a forged entry is never made valid by a decline: block it
            entry.state = "declined"
            self._store(entries, key, entry)

    def _open(self, key: str, raw: Any) -> PendingEntry:
        """The entry if its seal verifies under the user's key (tombstones carry none)."""
        entry = _load(raw)
        if entry.state == "used":
            return entry
        if not verify(self.key, entry.seal, "pending-approval", entry.canonical(key)):
            raise IntegrityError("the pending proposal was not written by Engram as it is now "
                                 "(changed, forged or copied after it was proposed)",
                                 code="integrity.approval",
                                 hint="nothing was written; " + _PROPOSE_AGAIN)
        return entry

    def _check(self, entry: PendingEntry) -> None:
        now = self.clock()
        if entry.state == "used":
            raise ApprovalError("approval token was already used", code="approval.used",
                                hint=_PROPOSE_AGAIN)
        if entry.state == "declined":
            raise ApprovalError("approval was declined in the approval dialog",
                                code="approval.declined", hint=_PROPOSE_AGAIN)
        if _parse(entry.expires) <= now:
            raise ApprovalError("approval token expired (tokens live 30 minutes)",
                                code="approval.expired", hint=_PROPOSE_AGAIN)
        if entry.state == "claimed" and entry.claimed_at \
                and _parse(entry.claimed_at) + CLAIM_TTL > now:
            raise ApprovalError("another process is committing this proposal right now",
                                code="approval.busy", hint="wait for it and check engram status")
        if entry.workspace != str(self.root.path):
            raise ApprovalError("approval token belongs to another workspace",
                                code="approval.workspace", hint=_PROPOSE_AGAIN)

    @contextmanager
    def _update(self) -> Iterator[dict[str, Any]]:
        _private_dir(self.path.parent)
        with root_lock(self.path.parent):
            entries = self._read()
            yield entries
            self._prune(entries)
            text = json.dumps({"version": FILE_VERSION, "entries": entries},
                              indent=2, sort_keys=True, ensure_ascii=False)
            atomic_write(self.path, text + "\n", mode=0o600)

    def _read(self) -> dict[str, Any]:
        try:
            data = jsontext.loads(read_text(self.path))
        except FileNotFoundError:
            return {}
        except (OSError, StorageError, ValueError, RecursionError) as exc:
            raise IntegrityError(f"{shown_path(self.path)} cannot be read: {fault_text(exc)[0]}",
                                 code="integrity.approval",
                                 hint=f"delete {self.path} (it only holds open proposals) "
                                 "and propose again") from exc
        entries = data.get("entries") if isinstance(data, dict) else None
        return entries if isinstance(entries, dict) else {}

    def _prune(self, entries: dict[str, Any]) -> None:
        now = self.clock()
        for key in list(entries):
            raw = entries[key]
            try:
                expired = _parse(str(raw.get("expires"))) <= now
            except (ValueError, AttributeError):
                expired = True
            if expired:
                del entries[key]


def open_count(roots: Roots, clock: Clock | None = None) -> int:
    """Proposals still waiting for an answer (for `engram status`); never raises, never locks."""
    try:
        data = jsontext.loads(read_text(roots.pending_file))
        now = (clock or utcnow)()
        return sum(1 for e in data["entries"].values()
                   if e.get("state") in {"pending", "claimed"} and _parse(e["expires"]) > now)
    except (OSError, StorageError, ValueError, KeyError, TypeError, AttributeError, RecursionError):
        return 0


def ensure_ignored(root: Root) -> None:
    """Keep the git-ignore lines present before an ignored file is written (never drop lines)."""
    path = root.gitignore_file
    try:
        text = read_text(path)
    except FileNotFoundError:
        text = ""
    present = {ln.strip() for ln in text.splitlines()}
    missing = [ln for ln in IGNORED_LINES if ln not in present]
    if missing:
        sep = "" if not text or text.endswith("\n") else "\n"
        atomic_write(path, text + sep + "\n".join(missing) + "\n")


def _private_dir(path: Any) -> None:
    """The pending directory, created 0700 like the state dir that holds the key."""
    try:
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        path.mkdir(mode=0o700, exist_ok=True)
    except OSError:
        return  # atomic_write reports the failure with a coded error
    if path.is_symlink():
        raise IntegrityError(f"{path} is a symlink", code="integrity.approval",
                             hint="remove it; Engram keeps pending approvals in a real "
                             "directory of its state dir")
    path.chmod(0o700)


def _check_token(token: str) -> str:
    if not isinstance(token, str) or not token.strip() or len(token) > 200:
        raise ApprovalError("missing or malformed approval token", code="approval.unknown",
                            hint="pass the approval_token exactly as the proposal returned it")
    return token.strip()


def _load(raw: Any) -> PendingEntry:
    if not isinstance(raw, dict):
        raise IntegrityError("a pending proposal is malformed", code="integrity.approval",
                             hint="nothing was written; " + _PROPOSE_AGAIN)
    if raw.get("state") == "used":
        return PendingEntry("", "", [], [], [], str(raw.get("expires", "")), state="used")
    try:
        return PendingEntry(
            kind=str(raw["kind"]), workspace=str(raw["workspace"]), scopes=list(raw["scopes"]),
            candidates=list(raw["candidates"]), pins=list(raw["pins"]),
            expires=str(raw["expires"]), extra=dict(raw.get("extra") or {}),
            state=str(raw.get("state", "pending")), claimed_at=raw.get("claimed_at"),
            seal=str(raw.get("seal", "")),
        )
    except (KeyError, TypeError, ValueError) as exc:
        raise IntegrityError("a pending proposal is malformed", code="integrity.approval",
                             hint="nothing was written; " + _PROPOSE_AGAIN) from exc


def _iso(moment: datetime) -> str:
    return moment.astimezone(UTC).isoformat(timespec="seconds")


def _parse(value: str) -> datetime:
    moment = datetime.fromisoformat(value)
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)
