"""A file-backed stand-in for the engine, so the protocol layer is tested without the cores.

It keeps proposals and written memories in JSON files under its directory, so a test can check
from outside the server process that "nothing was written". `engram_status` deliberately writes
to stdout (print and raw fd 1) to prove the fd-1 guard keeps the protocol stream clean.
"""

from __future__ import annotations

import json
import os
import re
import secrets
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from engram.errors import ApprovalError, NotFoundError
from engram.outcome import Outcome
from engram.proposals.effects import Effect
from engram.proposals.verdicts import Kind
from engram.workspace import Scope

MEMORIES = {"alpha": "# alpha\nAlways run the smoke suite.", "beta": "# beta\nUse uv."}


@dataclass
class Item:
    number: int
    verdict: str
    id: str
    title: str
    writable: bool
    text: str = ""
    parts: tuple[tuple[Scope, Kind], ...] = ()  # the verdict as data, one per target root
    type: str = ""
    effects: tuple[Effect, ...] = ()


@dataclass
class FakeProposal:
    token: str
    items: list[Item]
    scope: str
    texts: list[str]
    data: dict[str, Any] = field(default_factory=dict)

    def outcome(self) -> Outcome:
        lines = [f"Candidate {i.number}: Verdict: {i.verdict} ({i.id})\n  {t}"
                 for i, t in zip(self.items, self.texts, strict=True)]
        text = "\n".join(lines) + f"\napproval_token: {self.token}\nShow these to the human."
        return Outcome(text=text, data={"approval_token": self.token,
                                        "candidates": [i.id for i in self.items]})


class FakeCore:
    def __init__(self, directory: Path) -> None:
        self.dir = directory
        self.dir.mkdir(parents=True, exist_ok=True)

    # persistence -----------------------------------------------------------------------
    def _read(self, name: str) -> Any:
        path = self.dir / name
        return json.loads(path.read_text()) if path.exists() else {}

    def _write(self, name: str, data: Any) -> None:
        (self.dir / name).write_text(json.dumps(data))

    def workspace_key(self) -> str:
        return str(self.dir)

    def resource_limit(self) -> int:
        return 20

    def take_control_pack(self) -> str:
        return "Engram take-control: (no sources in the fake core)"

    # read path ---------------------------------------------------------------------------
    def load(self, args: dict[str, Any]) -> Outcome:
        return Outcome(text=f"engram: loaded 1 of 1 routed memories for {args.get('query')}",
                       data={"selected_keys": ["workspace:alpha"], "body_keys": ["workspace:alpha"],
                             "card_ids": [], "omitted_ids": [], "tokens": 12})

    def route(self, task: str) -> Outcome:
        return Outcome(text=f"bugfix (high): alpha for {task}",
                       data={"entries": [{"id": "alpha", "type": "rule", "scope": "workspace",
                                          "score": 1.0}], "task_type": "bugfix",
                             "confidence": "high"})

    def search(self, query: str, limit: int) -> Outcome:
        return Outcome(text=f"alpha (rule): smoke suite [{query}, {limit}]",
                       data={"entries": [{"id": "alpha", "type": "rule", "scope": "workspace",
                                          "score": 2.5}]})

    def verify(self) -> Outcome:
        return Outcome(text="OK rules/alpha.md", data={"files": [{"file": "rules/alpha.md",
                                                                 "status": "OK"}]})

    def status(self) -> Outcome:
        print("a library printing to stdout")  # noqa: T201 - the point of the test
        os.write(1, b"raw bytes on fd 1\n")
        return Outcome(text="workspace: 2 memories", data={"counts": {"workspace": 2}})

    # write path --------------------------------------------------------------------------
    def propose(self, candidates: str, scope: str | None,
                query_level: int | None) -> FakeProposal:
        texts = [_text_of(ln) for ln in candidates.splitlines() if ln.strip()]
        scope = scope or "both"
        roots: tuple[Scope, ...] = (("workspace", "global") if scope == "both"
                                    else ("global",) if scope == "global" else ("workspace",))
        add = "; ".join(f"{root}: ADD" for root in roots) if len(roots) > 1 else "ADD"
        items = []
        for n, text in enumerate(texts, 1):
            slug = "-".join(re.findall(r"[a-z0-9]+", text.lower())[:4]) or f"c{n}"
            kind: Kind = "NOOP" if "duplicate" in text else "ADD"
            verdict = "NOOP duplicate of alpha" if kind == "NOOP" else add
            items.append(Item(n, verdict, slug, slug, kind != "NOOP", text,
                              tuple((root, kind) for root in roots)))
        return self._pending(FakeProposal(secrets.token_hex(16), items, scope, texts))

    def propose_one(self, text: str, type_: str | None, role: str | None, context: str | None,
                    scope: str | None) -> FakeProposal:
        return self.propose(text.replace("\n", " "), scope, None)

    def propose_note(self, text: str, objective: str | None, type_: str | None,
                     scope: str | None) -> FakeProposal:
        where: Scope = "global" if scope == "global" else "workspace"
        item = Item(1, "ADD", "note-" + "-".join(re.findall(r"[a-z0-9]+", text.lower())[:3]),
                    "note", True, text, ((where, "ADD"),))
        proposal = FakeProposal(secrets.token_hex(16), [item], scope or "workspace", [text],
                                {"id": item.id, "valid_until": "2099-01-01"})
        return self._pending(proposal, note=True)

    def _pending(self, proposal: FakeProposal, note: bool = False) -> FakeProposal:
        pending = self._read("pending.json")
        pending[proposal.token] = {"items": [i.__dict__ for i in proposal.items],
                                   "scope": proposal.scope, "state": "open", "note": note}
        self._write("pending.json", pending)
        return proposal

    def commit(self, token: str, approve: str | list[int], scope: str | None) -> Outcome:
        pending = self._read("pending.json")
        entry = pending.get(token)
        if entry is None:
            raise ApprovalError("unknown approval token", hint="propose again")
        if entry["state"] == "declined":
            raise ApprovalError("approval was declined in the approval dialog",
                                hint="propose again")
        if entry["state"] == "used":
            raise ApprovalError("approval token was already used", hint="propose again")
        if scope is not None and entry["scope"] != "both" and scope != entry["scope"]:
            raise ApprovalError("scope may only narrow", hint="use the proposal's scope")
        numbers = [i["number"] for i in entry["items"]] if approve == "all" else approve
        chosen = [i for i in entry["items"] if i["number"] in numbers and i["writable"]]
        written = self._read("written.json") or {"memories": []}
        for item in chosen:
            written["memories"].append({"id": item["id"], "scope": scope or entry["scope"]})
        self._write("written.json", written)
        entry["state"] = "used"
        self._write("pending.json", pending)
        data: dict[str, Any] = {"written": [i["id"] for i in chosen]}
        if entry["note"] and chosen:
            data.update(id=chosen[0]["id"], file=f"working/{chosen[0]['id']}.md",
                        valid_until="2099-01-01")
        return Outcome(text="wrote " + ", ".join(data["written"]), data=data)

    def decline(self, token: str) -> None:
        pending = self._read("pending.json")
        if token in pending:
            pending[token]["state"] = "declined"
            self._write("pending.json", pending)

    def set_role(self, roles: list[str]) -> Outcome:
        return Outcome(text=f"roles: {', '.join(roles) or '(none)'}", data={"roles": roles})

    def set_rule_variant(self, variant: str) -> Outcome:
        return Outcome(text=f"rule variant: {variant}", data={"variant": variant})

    # resources ---------------------------------------------------------------------------
    def index_text(self) -> str:
        return "\n".join(f"- {i} (rule, workspace): {t.splitlines()[1]}"
                         for i, t in MEMORIES.items())

    def memory_text(self, memory_id: str) -> str:
        if memory_id not in MEMORIES:
            raise NotFoundError(f"no memory with id {memory_id!r}", hint="run engram search")
        return MEMORIES[memory_id]

    def top_by_usage(self, n: int) -> list[dict[str, Any]]:
        return [{"id": i, "type": "rule", "scope": "workspace", "title": i.title()}
                for i in list(MEMORIES)[:n]]


def _text_of(line: str) -> str:
    """The TEXT field of a pipe-form candidate line, or the line itself."""
    if "TEXT:" not in line:
        return line.strip()
    return line.split("TEXT:", 1)[1].split("|", 1)[0].strip()
