"""Loads by id and the resource texts (docs/reading.md): `engram://index`, `engram://memory/{id}`,
top usage.

`load --id a,b` prints exactly those memories in compact form (any visibility, a warning for
archived or superseded ones), without a budget, through the guard, and counts one recall each;
`memory_text` is the same body for one id (the MCP resource). `index_text` lists one card per
visible memory; `top_by_usage` picks the memories `resources/list` offers.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Collection, Iterator
from typing import TYPE_CHECKING, Any

from engram.errors import InvalidMemoryError, NotFoundError
from engram.outcome import Diagnostic, Outcome, listed
from engram.search import claims, usage
from engram.search.docs import Doc
from engram.search.guard import Scanner, Skip, shown_name
from engram.search.pack import card, compact_body, render_bodies, render_full
from engram.search.reader import Read, Reader, default_scanner
from engram.search.route import Router, active_variant, open_router
from engram.search.session import ReadSession, reading
from engram.store.ids import validate_id
from engram.store.model import Memory

if TYPE_CHECKING:
    from engram.workspace import Root, Roots


def _find(router: Router, reader: Reader, memory_id: str) -> tuple[Read, str | None] | None:
    """The guarded read of an id and a warning, or None when no such memory exists.

    An unapproved file never removes an approved memory: when the active claimants all fail
    the guard, every archived copy (newest first, workspace before global) is tried in turn and
    the first that passes is shown; every file that failed is reported, none is shown."""
    d = router.doc(memory_id)
    got = router.read(reader, d) if d is not None else None
    if got is not None and got.memory is not None:
        superseded = got.memory.lifecycle == "superseded"
        return got, f"{memory_id} is superseded" if superseded else None
    failed = [] if got is None else [s for s in (got.skip, *got.others) if s is not None]
    for scope, rel in reader.archived(memory_id):
        old = reader.read(scope, rel)
        if old.memory is not None and old.memory.id == memory_id:
            return (old._replace(others=(*failed, *(s for s in old.others if s not in failed))),
                    f"{memory_id} is archived ({rel})")
        failed += [s for s in (old.skip, *old.others) if s is not None and s not in failed]
    if not failed:
        return (got, None) if got is not None else None
    return Read(None, skip=failed[0], others=tuple(failed[1:])), None


def load_ids(router: Router, reader: Reader, wanted: list[str], variant: str, *,
             full: bool = False, count: bool = True) -> Outcome:
    memories: list[Memory] = []
    raws: list[str] = []
    diags: list[Diagnostic] = []
    skips: list[Skip] = []
    missing: list[str] = []
    for memory_id in dict.fromkeys(wanted):
        found = _find(router, reader, memory_id)
        if found is None:
            missing.append(memory_id)
            continue
        got, warn = found
        if warn:
            diags.append(Diagnostic("load.lifecycle", "warn", warn))
        skips += [s for s in (got.skip, *got.others) if s is not None and s not in skips]
        if got.memory is None:
            continue
        memories.append(got.memory)
        raws.append(got.raw)
    if not memories and missing and not skips:
        raise NotFoundError(f"no memory with id {listed(missing)}",
                            hint='find ids with engram search "<words>" or engram status')
    if missing:
        diags.append(Diagnostic("load.not_found", "warn", f"no memory with id {listed(missing)}"))
    diags += [Diagnostic("load.skipped", "warn", s.line) for s in skips]
    head = f"engram: loaded {len(memories)} of {len(wanted)} requested memories (by id)"
    extra = [s.line for s in skips] + ([f"not found: {listed(missing)}"] if missing else [])
    from engram.anchors.notes import load_notes

    pack = (render_full(memories, raws, head, extra) if full
            else render_bodies(memories, head, variant, extra,
                               notes=load_notes(router.roots, memories)))
    if count:
        record_recalls(router, memories)
    return Outcome(text=pack.text, diagnostics=diags, data={
        "selected_keys": [m.key for m in memories], "body_keys": pack.body_keys,
        "card_ids": [], "omitted_ids": [], "tokens": pack.tokens})


def record_recalls(router: Router, memories: list[Memory]) -> None:
    by_scope: dict[str, list[str]] = defaultdict(list)
    for m in memories:
        by_scope[m.scope].append(m.key)
    for scope, keys in by_scope.items():
        part = router.parts.get(scope)
        if part is not None:
            usage.record(part.root, keys)


def memory_text(roots: Roots, memory_id: str, *, session: ReadSession | None = None) -> str:
    """The body `engram load --id <id>` prints (engram://memory/{id}); counts one recall."""
    with reading(roots, session) as s:
        router, settings = open_router(s)
        reader = Reader(s, default_scanner())
        found = _find(router, reader, validate_id(memory_id))
        if found is None:
            raise NotFoundError(f"no memory with id {memory_id}",
                                hint="list ids with the engram://index resource")
        got, _ = found
        if got.memory is None:
            return "".join(f"{k.line}\n" for k in (got.skip, *got.others) if k is not None) \
                or f"SKIPPED {memory_id}\n"
        record_recalls(router, [got.memory])
        return compact_body(got.memory, active_variant(settings))


def _visible_docs(router: Router) -> list[Doc]:
    """Every memory routing may show, the workspace copy of an id winning, by type and id."""
    rows = [d for d in router.all_rows() if router.policy.hidden_reason(d) is None]
    return sorted(claims.first_of_each(rows), key=lambda d: (d.type, d.id))


def card_lines(roots: Roots, types: Collection[str] | None = None, *,
               session: ReadSession | None = None, approved_first: bool = False
               ) -> Iterator[str]:
    """One card per visible memory (of `types`), by type and id, each from a guarded read: the
    index picks the files, the text comes from their approved bytes. A file that fails the
    guard is named, never shown. Lazy, so a caller that needs a few cards reads a few files.
    `approved_first` (a caller with a budget): the files that stand (standing.py) come first,
    so files nobody approved cannot use up the budget before an approved memory's card."""
    with reading(roots, session) as s:
        yield from _cards(s, types, approved_first)


def _cards(session: ReadSession, types: Collection[str] | None,
           approved_first: bool = False) -> Iterator[str]:
    router, _ = open_router(session)
    scan = default_scanner()
    reader = Reader(session, scan=scan)
    wanted = [d for d in _visible_docs(router) if types is None or d.type in types]
    if approved_first and router.approved is not None:
        from engram.search.standing import standing_keys

        ok: set[tuple[str, str]] = set()
        for i in range(0, len(wanted), 500):
            ok |= standing_keys(wanted[i:i + 500], router.claims, router.parts, router.approved)
        wanted = ([d for d in wanted if (d.scope, d.rel_path) in ok]
                  + [d for d in wanted if (d.scope, d.rel_path) not in ok])
    for i, d in enumerate(wanted):
        if i % 256 == 0:
            router.prefetch(reader, wanted[i:i + 256])  # the index's facts, 256 files a query
        line = ""
        if len(router.claims(d.id)) > 1:
            # Several files declare the id: the one that passes the guard gives the card.
            won = router.read(reader, d, router.policy.hidden_reason)
            if won.memory is not None:
                line = card(won.memory)
                line = "" if scan(line) else line
            elif won.skip is None:
                continue  # the approved file is hidden from this listing
            yield line or _skipped_card(d)
            continue
        got, data = reader.checked(d.scope, d.rel_path)
        router.follow(d, got)
        root = reader.root(d.scope)
        if got.skip is None and root is not None:
            key = (str(root.path), d.scope, d.rel_path, got.sha)
            line = session.card(key) or ""
            if not line:
                line = _card_of(reader, root, d.rel_path, got.sha, data, scan)
                session.keep_card(key, line)
        yield line or _skipped_card(d)


def _skipped_card(d: Doc) -> str:
    """The card of a file the guard refused: its id is text nobody approved (withheld); the
    file is named so a human can find it."""
    from engram.safety import withheld_id

    return (f"- {withheld_id(d.id)} ({d.type}, {d.scope}): SKIPPED "
            f"{shown_name(claims.shown(d.scope, d.rel_path))} (review it, then run engram rehash)")


def _card_of(reader: Reader, root: Root, rel: str, sha: str, data: bytes,
             scan: Scanner) -> str:
    """The card of bytes the guard passed, or "" when they do not parse or the card itself
    trips the content scan."""
    try:
        line = card(reader.parse(root, rel, sha, data))
    except InvalidMemoryError:
        return ""
    return "" if scan(line) else line


def index_text(roots: Roots, *, session: ReadSession | None = None) -> str:
    """One card per visible memory (engram://index); unapproved files are named, not shown."""
    from engram.anchors.api import counts

    lines = list(card_lines(roots, session=session))
    stale = counts(roots) if roots.workspace.exists() else {}
    bad = ", ".join(f"{stale[s]} {s}" for s in ("gone", "moved", "changed") if stale.get(s))
    head = f"engram index: {len(lines)} memories" + (f" (stale: {bad})" if bad else "")
    return head + "\n" + "".join(f"{ln}\n" for ln in lines)


def top_by_usage(roots: Roots, n: int, *,
                 session: ReadSession | None = None) -> list[dict[str, Any]]:
    """The `n` visible memories recalled most (ties: most recently updated)."""
    if n <= 0:
        return []
    counts: dict[str, int] = {}
    for root in roots.existing():
        for key, entry in usage.read_usage(root).items():
            if isinstance(entry.get("recalls"), int):
                counts[key] = entry["recalls"]
    with reading(roots, session) as s:
        router, _ = open_router(s)
        reader = Reader(s, scan=default_scanner())
        ranked = sorted(_visible_docs(router), key=lambda d: d.id)
        ranked.sort(key=lambda d: d.updated, reverse=True)
        ranked.sort(key=lambda d: counts.get(d.key, 0), reverse=True)
        mems: list[Memory] = []
        for d in ranked:  # guarded reads in rank order, until n pass
            if len(mems) == n:
                break
            got = router.read(reader, d, router.policy.hidden_reason)
            if got.memory is not None and all(m.key != got.memory.key for m in mems):
                mems.append(got.memory)
    return [{"id": m.id, "type": m.type, "scope": m.scope, "title": m.title,
             "recalls": counts.get(m.key, 0), "uri": f"engram://memory/{m.id}"}
            for m in mems]
