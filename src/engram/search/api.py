"""The read path's public API (docs/ARCHITECTURE.md): load, route, search and the resource texts.

Each function takes resolved `Roots`, opens the index once, and returns an `Outcome` whose text
is what a human or agent reads and whose data is the structure in docs/reading.md. Expected
results (no anchors, nothing matched, a skipped file) are values; bad arguments raise
`UsageError` and an unknown id `NotFoundError`. Nothing here writes a memory; only `usage.json`
is touched, by loads by id and resource reads (docs/reading.md).
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from typing import Any

from engram.anchors.notes import demote_gone, load_notes
from engram.config import Settings
from engram.errors import UsageError
from engram.outcome import Diagnostic, Outcome, json_text_length, model_json
from engram.search import explain as explain_mod
from engram.search.classify import classify
from engram.search.guard import Skip
from engram.search.map_section import MAP_DEPTH, map_memories
from engram.search.pack import (
    DISCLOSURES,
    Pack,
    add_map,
    in_context_line,
    refined_line,
    render_full,
    render_tiered,
)
from engram.search.reader import Reader, default_scanner
from engram.search.resources import card_lines, index_text, load_ids, memory_text, top_by_usage
from engram.search.route import Routed, Router, active_variant, open_router
from engram.search.session import ReadSession, reading
from engram.search.vouch import Vouch
from engram.store.ids import split_ids
from engram.store.model import Memory
from engram.workspace import Roots

__all__ = ("ReadSession", "card_lines", "index_text", "load", "memory_text", "route", "search",
           "top_by_usage")
BUDGET_MIN, BUDGET_MAX = 200, 16000


def _check_args(budget_tokens: int | None, disclosure: str) -> None:
    if budget_tokens is not None and not BUDGET_MIN <= budget_tokens <= BUDGET_MAX:
        raise UsageError(f"budget_tokens {budget_tokens} is out of range",
                         hint=f"use {BUDGET_MIN} to {BUDGET_MAX} tokens", code="usage.budget")
    if disclosure not in DISCLOSURES:
        raise UsageError(f"disclosure {disclosure!r} is not allowed",
                         hint=f"use one of: {', '.join(DISCLOSURES)}", code="usage.disclosure")


def load(roots: Roots, *, query: str | None = None, ids: str | Sequence[str] | None = None,
         budget_tokens: int | None = None, disclosure: str = "tiered", full: bool = False,
         explain: bool = False, dry_run: bool = False, include_all: bool = False,
         fit_json: bool = False, in_context: Collection[str] = (),
         session: ReadSession | None = None) -> Outcome:
    """Route a task to a pack (docs/reading.md), or load memories by id.

    `fit_json`: the budget bounds the whole JSON envelope (text JSON-escaped, data and
    diagnostics), as a host that forwards MCP `structuredContent` hands it to the model.
    `in_context`: keys whose bodies the reader already has; they are left out of the pack and
    named on one line (`data.in_context`). `session`: a long-lived caller's read session
    (session.py); without one, this call makes its own.
    """
    _check_args(budget_tokens, disclosure)
    with reading(roots, session) as rs:
        return _load(rs, query=query, ids=ids, budget_tokens=budget_tokens,
                     disclosure=disclosure, full=full, explain=explain, dry_run=dry_run,
                     include_all=include_all, fit_json=fit_json, in_context=in_context)


def _load(session: ReadSession, *, query: str | None, ids: str | Sequence[str] | None,
          budget_tokens: int | None, disclosure: str, full: bool, explain: bool,
          dry_run: bool, include_all: bool, fit_json: bool,
          in_context: Collection[str]) -> Outcome:
    router, settings = open_router(session)
    reader = Reader(session, default_scanner())
    if ids:
        wanted = split_ids(ids) if isinstance(ids, str) else split_ids(",".join(ids))
        return _noted(session, load_ids(router, reader, wanted, active_variant(settings),
                                        full=full, count=not dry_run))
    if include_all:
        routed = router.route_all()
    elif query and query.strip():
        routed = router.route(query, settings.int("load.limit"), want_hidden=explain,
                              deeper=MAP_DEPTH)
    else:
        raise empty_query("load")
    budget = budget_tokens or settings.int("load.max_tokens")
    return _noted(session, _render_route(
        router, reader, routed, settings, budget=budget, disclosure=disclosure, full=full,
        explain=explain, dry_run=dry_run, fit_json=fit_json, in_context=frozenset(in_context)))


def _noted(session: ReadSession, outcome: Outcome) -> Outcome:
    """The outcome with the request's `cache.unusable` warnings: in its diagnostics, and as
    the first lines of its text (a cache Engram could not use never blocks a read)."""
    notes = session.cache_diagnostics()
    if not notes:
        return outcome
    head = "".join(f"{d.message}\n" for d in notes)
    return outcome.replace(text=head + outcome.text, diagnostics=[*notes, *outcome.diagnostics])


def _render_route(router: Router, reader: Reader, routed: Routed, settings: Settings, *,
                  budget: int, disclosure: str, full: bool, explain: bool,
                  dry_run: bool, fit_json: bool, in_context: frozenset[str]) -> Outcome:
    limit = settings.int("load.limit")
    memories: list[Memory] = []
    raws: list[str] = []
    skips: list[Skip | None] = []
    vouch = Vouch(router, reader, routed)
    # Left out only when the file still passes the guard: a claim (the hook's git-ignored cache)
    # must neither name an unapproved id nor hide a file the guard would report.
    known = [k for k in routed.selection.keys if k in in_context and vouch.approved(k)]
    keys = [k for k in routed.selection.keys if k not in known]
    router.prefetch(reader, [routed.docs[k] for k in keys])
    shown: set[str] = set()
    for key in keys:
        d = routed.docs[key]
        got = router.read(reader, d, router.policy.hidden_reason)
        skips += [got.skip, *got.others]
        if got.memory is not None and got.memory.key not in shown:
            shown.add(got.memory.key)
            memories.append(got.memory)
            raws.append(got.raw)
    skips += _unapproved_skips(router, reader, routed)
    skips = list(dict.fromkeys(skips))
    notes = load_notes(router.roots, memories)
    memories, raws = demote_gone(memories, raws, notes)
    head = [s.line for s in skips if s is not None]
    if routed.matched > limit and routed.anchors:
        head.insert(0, refined_line(limit, routed.matched, routed.narrow_tags))
    if known:
        head.append(in_context_line([routed.docs[k].id for k in known]))
    data: dict[str, Any] = {
        "selected_keys": [m.key for m in memories],
        "body_keys": [], "card_ids": [], "omitted_ids": [], "map_ids": [], "tokens": 0,
        "matched": routed.matched, **explain_mod.anchors_data(routed.anchors),
    }
    if known:
        data["in_context"] = known
    if notes:
        data["stale"] = {m.id: notes[m.key] for m in memories if m.key in notes}
    if skips:
        data["skipped"] = [{"file": s.name, "reason": s.shown_reason}
                           for s in skips if s is not None]
    diags = [Diagnostic("load.skipped", "warn", s.line) for s in skips if s is not None]
    diags += (explain_mod.graph_diagnostics(routed, vouch)
              + explain_mod.root_diagnostics(router.roots))
    if full:
        pack = render_full(memories, raws, f"engram: loaded {len(memories)} of "
                           f"{len(memories)} routed memories (full, no budget)", head)
    else:
        reserve = _envelope_reserve(data, diags) if fit_json else 0
        measure = json_text_length if fit_json else len
        pack = render_tiered(memories, budget=budget, disclosure=disclosure,
                             variant=active_variant(settings), extra_head=head, notes=notes,
                             measure=measure, reserve=reserve)
        # The map lists what the pack does not hold, inside the same budget (docs/reading.md
        # "The map"); in an envelope each listed key also costs its place in `map_ids`.
        add_map(pack, map_memories(router, reader, routed, in_context), room=budget * 4 - reserve,
                measure=measure, key_cost=_key_cost if fit_json else _no_cost)
    if explain or dry_run:
        text = explain_mod.render(routed, pack, memories, vouch, explain=explain,
                                  dry_run=dry_run, limit=limit)
        if pack.map_keys:
            text += f"map (listed after the pack, not loaded): {', '.join(pack.map_keys)}\n"
        pack = Pack(text=text, body_keys=pack.body_keys, card_ids=pack.card_ids,
                    omitted_ids=pack.omitted_ids, map_keys=pack.map_keys)
    if not routed.selection.keys and not routed.unapproved:
        pack.text = explain_mod.no_root_text(router.roots) or explain_mod.empty_text(routed)
    data.update(body_keys=pack.body_keys, card_ids=pack.card_ids,
                omitted_ids=pack.omitted_ids, map_ids=pack.map_keys, tokens=pack.tokens)
    if explain or dry_run:
        data["explain"] = explain_mod.data(routed, pack, memories, vouch)
    return Outcome(text=pack.text, data=data, diagnostics=diags)


def _unapproved_skips(router: Router, reader: Reader, routed: Routed) -> list[Skip | None]:
    """The SKIPPED lines of files that ranked in the first places but take none (their file
    does not stand, search/standing.py): reported, never shown, never counted."""
    out: list[Skip | None] = []
    for key in routed.unapproved:
        got = router.read(reader, routed.docs[key], router.policy.hidden_reason)
        out += [s for s in (got.skip, *got.others) if s is not None]
    return out


def _key_cost(key: str) -> int:
    """Characters one key adds to a JSON list: the quoted key and its comma."""
    return json_text_length(key) + 3


def _no_cost(key: str) -> int:
    return 0


def _envelope_reserve(data: dict[str, Any], diags: list[Diagnostic]) -> int:
    """Characters the envelope takes besides the pack text, at most: every memory counted
    under its longer name (`body_keys` hold `scope:id`, the other lists bare ids)."""
    worst = {**data, "body_keys": data["selected_keys"], "tokens": 10 ** 5}
    return len(model_json(Outcome(text="", data=worst, diagnostics=diags).envelope()))


def empty_query(command: str) -> UsageError:
    """The one answer of load, route and search to a blank task or query: exit 2, code
    `usage.empty_query` (a query of only generic words is not empty: it routes nothing)."""
    example = {"load": 'engram load "fix the release script" (or --id ID, or --all)',
               "route": 'engram route "fix the release script"',
               "search": 'engram search "release script"'}[command]
    what = "query" if command == "search" else "task"
    return UsageError(f"nothing to {command}: the {what} is empty", code="usage.empty_query",
                      hint=f"give some words, e.g. {example}")


def route(roots: Roots, task: str, *, session: ReadSession | None = None) -> Outcome:
    """Classify a task and list the memories it routes to, in load order (docs/reading.md)."""
    if not task.strip():
        raise empty_query("route")
    with reading(roots, session) as rs:
        return _noted(rs, _route(rs, task))


def _route(session: ReadSession, task: str) -> Outcome:
    roots = session.roots
    router, settings = open_router(session)
    routed = router.route(task, settings.int("load.limit"))
    kind = classify(task)
    # What is listed comes from guarded reads, as in `load`: the index (git-ignored, so anyone
    # could rewrite it) only picks the files; an unapproved file is named in a SKIPPED line.
    reader = Reader(session, default_scanner())
    router.prefetch(reader, [routed.docs[k] for k in routed.selection.keys])
    entries: list[dict[str, Any]] = []
    skips: list[Skip] = []
    for k in routed.selection.keys:
        got = router.read(reader, routed.docs[k], router.policy.hidden_reason)
        skips += [s for s in (got.skip, *got.others) if s is not None and s not in skips]
        m = got.memory
        if m is None or any(e["id"] == m.id and e["scope"] == m.scope for e in entries):
            continue
        score = routed.score_of(k)
        entries.append({"id": m.id, "type": m.type, "scope": m.scope,
                        "score": round(score, 4) or score})  # tiny stays tiny, not 0
    skips += [s for s in _unapproved_skips(router, reader, routed)
              if s is not None and s not in skips]
    lines = [f"task type: {kind.task_type} (confidence {kind.confidence})"]
    lines += [s.line for s in skips]
    if entries:
        lines += [f"{i}. {e['id']} ({e['type']}, {e['scope']}) score "
                  f"{explain_mod.shown_score(e['score'])}" for i, e in enumerate(entries, 1)]
    elif not skips:
        lines.append((explain_mod.no_root_text(roots)
                      or explain_mod.empty_text(routed)).rstrip("\n"))
    data: dict[str, Any] = {"entries": entries, "task_type": kind.task_type,
                            "confidence": kind.confidence}
    if skips:
        data["skipped"] = [{"file": s.name, "reason": s.shown_reason} for s in skips]
    return Outcome(text="\n".join(lines) + "\n", data=data,
                   diagnostics=explain_mod.graph_diagnostics(routed, Vouch(router, reader, routed))
                   + explain_mod.root_diagnostics(roots)
                   + [Diagnostic("load.skipped", "warn", s.line) for s in skips])


def search(roots: Roots, query: str, limit: int = 10, *,
           session: ReadSession | None = None) -> Outcome:
    """Ranked lexical search over every non-archived memory, low confidence included
    (docs/reading.md)."""
    if limit < 1:
        raise UsageError(f"limit {limit} is out of range", hint="use a positive number",
                         code="usage.limit")
    if not query.strip():
        raise empty_query("search")
    with reading(roots, session) as rs:
        return _noted(rs, _search(rs, query, limit))


def _search(session: ReadSession, query: str, limit: int) -> Outcome:
    roots = session.roots
    router, _ = open_router(session)
    from engram.search.terms import anchors

    terms = anchors(query)
    found, _total, _hidden = router.candidates(terms, max(limit, 40), for_search=True)
    docs = {d.key: d for d, _ in found}
    # Files nobody approved take no place among the hits (search/standing.py); those that
    # ranked within the limit are still listed, as SKIPPED lines, after the hits.
    weak = router.weak[:limit]
    ranked = router.rank(terms, found)[:limit]
    ranked += router.rank(terms, [(d, 0.0) for d in weak if d.key not in docs])
    docs.update({d.key: d for d in weak if d.key not in docs})
    reader = Reader(session, default_scanner())
    router.prefetch(reader, [docs[c.key] for c in ranked])
    entries, lines = [], []
    for c in ranked:
        got = router.read(reader, docs[c.key], router.policy.search_hidden_reason)
        if got.memory is None and got.skip is None:
            continue  # the id's approved file is hidden from search: nothing to show
        lines.append(explain_mod.search_line(c, got, terms))
        if got.memory is not None:  # id, type and scope of the approved bytes, not the index
            m = got.memory
            entries.append({"id": m.id, "type": m.type, "scope": m.scope,
                            "score": round(c.score, 4)})
    if not entries:
        lines = [(explain_mod.no_root_text(roots)
                  or explain_mod.empty_text_for_search(terms, query)).rstrip("\n")]
    return Outcome(text="\n".join(lines) + "\n", data={"entries": entries},
                   diagnostics=explain_mod.root_diagnostics(roots))
