"""The one seam between the server and the engine: what the MCP handlers may ask of the core.

`Core` is the protocol the handlers call; `EngineCore` implements it over the read path
(`engram.search.api`), the write path (`engram.proposals.api`) and integrity/status
(`engram.store`), importing each lazily so `initialize` answers before the engine is loaded.
Tests pass their own `Core` to exercise the protocol layer without the engine.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from engram.outcome import Outcome
    from engram.proposals.effects import Effect
    from engram.proposals.verdicts import Kind
    from engram.search.session import ReadSession
    from engram.workspace import Roots, Scope


class ProposalItem(Protocol):
    """One numbered candidate as the approval dialog shows it."""

    @property
    def number(self) -> int: ...
    @property
    def verdict(self) -> str: ...  # display text: "ADD", "UPDATE x", "workspace: ADD; global: …"
    @property
    def parts(self) -> tuple[tuple[Scope, Kind], ...]: ...  # the verdict as data, per target root
    @property
    def id(self) -> str: ...
    @property
    def writable(self) -> bool: ...
    @property
    def text(self) -> str: ...  # the candidate's text, which the dialog shows whole
    @property
    def type(self) -> str: ...  # the new memory's type (rule, skill, knowledge)
    @property
    def effects(self) -> Sequence[Effect]: ...  # every file approving it writes or changes


class Proposal(Protocol):
    @property
    def token(self) -> str: ...
    @property
    def items(self) -> Sequence[ProposalItem]: ...
    @property
    def data(self) -> dict[str, Any]: ...  # a note's {id, valid_until}

    def outcome(self) -> Outcome: ...


class Core(Protocol):
    """Every engine operation a tool, resource or prompt needs; each returns an Outcome."""

    def workspace_key(self) -> str: ...
    def load(self, args: dict[str, Any]) -> Outcome: ...
    def route(self, task: str) -> Outcome: ...
    def search(self, query: str, limit: int) -> Outcome: ...
    def verify(self) -> Outcome: ...
    def status(self) -> Outcome: ...
    def propose(self, candidates: str, scope: str | None,
                query_level: int | None) -> Proposal: ...
    def propose_one(self, text: str, type_: str | None, role: str | None, context: str | None,
                    scope: str | None) -> Proposal: ...
    def propose_note(self, text: str, objective: str | None, type_: str | None,
                     scope: str | None) -> Proposal: ...
    def commit(self, token: str, approve: str | list[int], scope: str | None) -> Outcome: ...
    def decline(self, token: str) -> None: ...
    def set_role(self, roles: list[str]) -> Outcome: ...
    def set_rule_variant(self, variant: str) -> Outcome: ...
    def index_text(self) -> str: ...
    def memory_text(self, memory_id: str) -> str: ...
    def top_by_usage(self, n: int) -> list[dict[str, Any]]: ...  # {id, title?, type?}
    def resource_limit(self) -> int: ...
    def take_control_pack(self) -> str: ...  # the MCP prompt `take-control`


class EngineCore:
    """The real engine, resolved for one workspace; modules are imported on first use."""

    def __init__(self, workspace: str | None) -> None:
        from engram.proposals.origin import begin_session

        begin_session()  # this server is one host session: its proposals are counted apart
        self._workspace = workspace
        self._roots: Roots | None = None
        self._session: ReadSession | None = None

    @property
    def session(self) -> ReadSession:
        """The server's one read session (search/session.py): made on the first read, used only
        on the engine thread, each read-path call one request of it (freshness checked again,
        connections and caches kept while what they were derived from is unchanged)."""
        roots = self.roots
        if self._session is None:
            from engram.search.session import ReadSession

            self._session = ReadSession(roots, long_lived=True)
        return self._session

    @property
    def roots(self) -> Roots:
        from engram.containment import ensure

        if self._roots is None:
            from engram.workspace import resolve

            self._roots = resolve(workspace=self._workspace, contain=False)
        # Checked on every call: a long-lived server must notice a symlink planted later.
        return ensure(self._roots)

    def workspace_key(self) -> str:
        return str(self.roots.workspace.path)

    def resource_limit(self) -> int:
        return self.roots.settings().int("mcp.resource_limit")

    # Each engine module is imported inside the method that needs it (on first use, so
    # `initialize` answers before the engine loads); mypy checks every call.
    def load(self, args: dict[str, Any]) -> Outcome:
        from engram.search import api

        return api.load(
            self.roots, query=args.get("query"), ids=args.get("id"),
            budget_tokens=args.get("budget_tokens"),
            disclosure=args.get("disclosure", "tiered"),
            full=bool(args.get("full", False)), explain=bool(args.get("explain", False)),
            fit_json=True,  # the budget bounds what a host forwarding structuredContent sends
            session=self.session)

    def route(self, task: str) -> Outcome:
        from engram.search import api

        return api.route(self.roots, task, session=self.session)

    def search(self, query: str, limit: int) -> Outcome:
        from engram.search import api

        return api.search(self.roots, query, limit=limit, session=self.session)

    def verify(self) -> Outcome:
        from engram.store.integrity import verify

        return verify(self.roots)

    def status(self) -> Outcome:
        from engram.status import status

        return status(self.roots)

    def take_control_pack(self) -> str:
        from engram.adopt.agent import pack
        from engram.adopt.discover import discover

        found = discover(self.roots.project)
        return pack([s for s in found.sources if not s.personal])[0]

    def propose(self, candidates: str, scope: str | None, query_level: int | None) -> Proposal:
        from engram.proposals import api

        return api.propose(self.roots, candidates, scope=scope, query_level=query_level)

    def propose_one(self, text: str, type_: str | None, role: str | None, context: str | None,
                    scope: str | None) -> Proposal:
        from engram.proposals import api

        return api.propose(self.roots, text, scope=scope, type=type_, role=role,
                           context=context, single=True)

    def propose_note(self, text: str, objective: str | None, type_: str | None,
                     scope: str | None) -> Proposal:
        from engram.proposals import api

        return api.propose_note(self.roots, text, objective=objective, type=type_, scope=scope)

    def commit(self, token: str, approve: str | list[int], scope: str | None) -> Outcome:
        from engram.proposals import api

        return api.commit(self.roots, token, approve, scope=scope)

    def decline(self, token: str) -> None:
        from engram.proposals import api

        api.decline(self.roots, token)

    def set_role(self, roles: list[str]) -> Outcome:
        from engram.proposals import api

        return api.set_role(self.roots, roles)

    def set_rule_variant(self, variant: str) -> Outcome:
        from engram.proposals import api

        return api.set_rule_variant(self.roots, variant)

    def index_text(self) -> str:
        from engram.search import api

        return api.index_text(self.roots, session=self.session)

    def memory_text(self, memory_id: str) -> str:
        from engram.search import api

        return api.memory_text(self.roots, memory_id, session=self.session)

    def top_by_usage(self, n: int) -> list[dict[str, Any]]:
        from engram.search import api

        return api.top_by_usage(self.roots, n, session=self.session)
