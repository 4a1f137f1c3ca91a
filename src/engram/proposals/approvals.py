"""Pending approvals (docs/saving.md): hashed single-use tokens in the git-ignored
`pending-approvals.json`.

A token is `secrets.token_urlsafe(24)` (192 bits) and is returned to the caller once; the file
keeps only its SHA-256, with the canonical candidates, pinned verdicts, target scopes, expiry
(30 minutes) and an integrity hash over all of that, so an edit on disk fails the commit. Entries
live in the workspace root that minted them, so a token from workspace A is unknown in B.

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

from engram.clock import Clock, utcnow
from engram.errors import ApprovalError, IntegrityError, StorageError
from engram.storage import read_text
from engram.store.fileio import atomic_write, root_lock
from engram.workspace import IGNORED_LINES, Root

TTL = timedelta(minutes=30)
CLAIM_TTL = timedelta(minutes=2)  # a claim older than this belongs to a crashed commit
TOKEN_BYTES = 24
FILE_VERSION = 1
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
    integrity: str = ""

    def seal(self) -> str:
        body = {"kind": self.kind, "workspace": self.workspace, "scopes": self.scopes,
                "candidates": self.candidates, "pins": self.pins, "expires": self.expires,
                "extra": self.extra}
        canonical = json.dumps(body, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
        import hashlib

        return hashlib.sha256(canonical.encode("utf-8")).hexdigest()

    def as_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "workspace": self.workspace, "scopes": self.scopes,
                "candidates": self.candidates, "pins": self.pins, "expires": self.expires,
                "extra": self.extra, "state": self.state, "claimed_at": self.claimed_at,
                "integrity": self.integrity}


class PendingApprovals:
    """The pending-approvals file of one workspace root."""

    def __init__(self, root: Root, clock: Clock | None = None) -> None:
        self.root = root
        self.clock = clock or utcnow

    @property
    def path(self) -> Any:
        return self.root.pending_file

    def mint(self, kind: str, scopes: list[str], candidates: list[dict[str, Any]],
             pins: list[dict[str, Any]], extra: dict[str, Any] | None = None) -> str:
        import secrets

        token = secrets.token_urlsafe(TOKEN_BYTES)
        entry = PendingEntry(kind=kind, workspace=str(self.root.path), scopes=list(scopes),
                        candidates=candidates, pins=pins, extra=dict(extra or {}),
                        expires=_iso(self.clock() + TTL))
        entry.integrity = entry.seal()
        with self._update() as entries:
            entries[digest(token)] = entry.as_json()
        return token

    def claim(self, token: str) -> PendingEntry:
        """Validate a token and mark it claimed; every failure is an error naming the fix."""
        key = digest(_check_token(token))
        with self._update() as entries:
            raw = entries.get(key)
            if raw is None:
                raise ApprovalError("unknown approval token", code="approval.unknown",
                                    hint="tokens are single use, expire after 30 minutes and only "
                                    "work in the workspace that issued them; " + _PROPOSE_AGAIN)
            entry = _load(raw)
            self._check(entry)
            entry.state, entry.claimed_at = "claimed", _iso(self.clock())
            entries[key] = entry.as_json()
        return entry

    def settle(self, token: str, *, used: bool) -> None:
        key = digest(token)
        with self._update() as entries:
            raw = entries.get(key)
            if raw is None:
                return
            if used:
                entries[key] = {"state": "used", "expires": raw.get("expires", "")}
            else:
                raw["state"], raw["claimed_at"] = "pending", None
                entries[key] = raw

    def decline(self, token: str) -> None:
        """Dialog decline: the proposal stays only to explain why a later commit fails."""
        key = digest(_check_token(token))
        with self._update() as entries:
            raw = entries.get(key)
            if raw is not None and raw.get("state") in {"pending", "claimed"}:
                raw["state"] = "declined"

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
        if entry.integrity != entry.seal():
            raise IntegrityError("the pending proposal was changed on disk after it was proposed",
                                 code="integrity.approval",
                                 hint="nothing was written; " + _PROPOSE_AGAIN)

    @contextmanager
    def _update(self) -> Iterator[dict[str, Any]]:
        with root_lock(self.root.path):
            entries = self._read()
            yield entries
            self._prune(entries)
            ensure_ignored(self.root)
            text = json.dumps({"version": FILE_VERSION, "entries": entries},
                              indent=2, sort_keys=True, ensure_ascii=False)
            atomic_write(self.path, text + "\n", mode=0o600)

    def _read(self) -> dict[str, Any]:
        try:
            data = json.loads(read_text(self.path))
        except FileNotFoundError:
            return {}
        except (OSError, StorageError, ValueError, RecursionError) as exc:
            raise IntegrityError(f"{self.path} cannot be read: {exc}", code="integrity.approval",
                                 hint="delete pending-approvals.json (it only holds open "
                                 "proposals) and propose again") from exc
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


def open_count(root: Root, clock: Clock | None = None) -> int:
    """Proposals still waiting for an answer (for `engram status`); never raises, never locks."""
    try:
        data = json.loads(read_text(root.pending_file))
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


def _check_token(token: str) -> str:
    if not isinstance(token, str) or not token.strip() or len(token) > 200:
        raise ApprovalError("missing or malformed approval token", code="approval.unknown",
                            hint="pass the approval_token exactly as the proposal returned it")
    return token.strip()


def _load(raw: dict[str, Any]) -> PendingEntry:
    if raw.get("state") == "used":
        return PendingEntry("", "", [], [], [], str(raw.get("expires", "")), state="used")
    try:
        return PendingEntry(
            kind=str(raw["kind"]), workspace=str(raw["workspace"]), scopes=list(raw["scopes"]),
            candidates=list(raw["candidates"]), pins=list(raw["pins"]),
            expires=str(raw["expires"]), extra=dict(raw.get("extra") or {}),
            state=str(raw.get("state", "pending")), claimed_at=raw.get("claimed_at"),
            integrity=str(raw.get("integrity", "")),
        )
    except (KeyError, TypeError, ValueError) as exc:
        raise IntegrityError("a pending proposal is malformed", code="integrity.approval",
                             hint="nothing was written; " + _PROPOSE_AGAIN) from exc


def _iso(moment: datetime) -> str:
    return moment.astimezone(UTC).isoformat(timespec="seconds")


def _parse(value: str) -> datetime:
    moment = datetime.fromisoformat(value)
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)
