"""Planning a proposal: which roots it targets, each candidate's verdict and id there, the preview.

`target_scopes` turns a scope choice into the roots to write (`both` = workspace and global);
`plan` computes, per candidate and root, the verdict against that root's memories and the id a
new memory would get; `render_preview` is the preview text (docs/saving.md) a human must see
before approving. The same function `plan_root` is re-run at commit time under the root lock, so
a preview and a commit agree by construction. Nothing here writes.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass
from typing import NamedTuple

from engram.errors import EngramError, NotFoundError, UsageError
from engram.proposals.candidates import Candidate
from engram.proposals.effects import Effect, describe, of_candidate
from engram.proposals.shown import candidate_lines
from engram.proposals.verdicts import (
    FEATURES,
    Peer,
    Verdict,
    comparable,
    decide,
    features,
    peer_from,
    relevant_words,
)
from engram.safety import printable
from engram.safety.prose import without_prose_secrets
from engram.search.index import RootIndex
from engram.store.hashcache import HashCache
from engram.store.ids import id_from_title, title_from_text, unique_id
from engram.store.model import TYPE_DIR
from engram.store.repo import Store, parse_bytes, sha256_bytes
from engram.workspace import Root, Roots, Scope

SCOPES = ("workspace", "global", "both")


class TargetView(NamedTuple):
    """The memory an UPDATE or SUPERSEDE rewrites, as planned from its approved bytes."""

    id: str
    type: str
    title: str
    content: str


@dataclass(frozen=True)
class PlannedCandidate:
    """One candidate in one target root: its verdict and the id/file it would write."""

    candidate: Candidate
    scope: Scope
    verdict: Verdict
    id: str
    rel: str
    target_rel: str = ""  # the file an UPDATE/SUPERSEDE rewrites
    target_sha: str | None = None  # its bytes' SHA-256 when planned (pinned by the proposal)
    # What the rewritten memory says now (its approved bytes), for the human who approves
    # rewriting it (proposals/effects.py).
    target: TargetView | None = None

    @property
    def number(self) -> int:
        return self.candidate.number


def target_scopes(roots: Roots, scope: str | None) -> list[Scope]:
    choice = (scope or str(roots.settings().get("scope") or "workspace")).lower()
    if choice not in SCOPES:
        raise UsageError(f"unknown scope {scope!r}", hint="use workspace, global or both",
                         code="usage.scope")
    wanted: list[Scope] = ["workspace", "global"] if choice == "both" else [choice]  # type: ignore[list-item]
    for name in wanted:
        root = roots.root(name)
        if root is None or not root.exists():
            raise NotFoundError(
                f"no {name} memory root" + (f" at {root.path}" if root else ""),
                hint="run `engram init`" if name == "workspace" else
                "create one with `engram init --global PATH` or save with --scope workspace",
                code="not_found.root")
    return wanted


def root_of(roots: Roots, scope: Scope) -> Root:
    root = roots.root(scope)
    if root is None:
        raise NotFoundError(f"no {scope} memory root", code="not_found.root",
                            hint="create one with `engram init --global PATH`")
    return root


class RootView(NamedTuple):
    """A root as planning sees it: its memories as verdicts compare them, and the ids a new
    memory must not take."""

    peers: list[Peer]
    taken: set[str]


def view(store: Store, relevant: frozenset[str] | None = None, *,
         include_notes: bool = False) -> RootView:
    """Read one root through its derived index: after a full stat refresh the index holds every
    file as parsed from its current bytes, and each memory's verdict words are cached by file
    hash (store/hashcache.py), so planning does not re-read and re-tokenise thousands of files
    per proposal. Only memories
    sharing a word with `relevant` carry their words (the others cannot matter to a verdict,
    `verdicts.relevant_words`), which keeps a 10,000-memory root's view small; None keeps every
    memory's words. Taken ids are the listed memories' ids and the names of the active, working
    and archived files."""
    index = RootIndex(store.root)
    try:
        rows = index.listed(include_notes=include_notes)

        def compute(missing: set[str]) -> dict[str, str]:
            whole = index.memories_at([r.rel for r in rows if r.sha in missing])
            return {r.sha: features(whole[r.rel]) if r.rel in whole else "\n"
                    for r in rows if r.sha in missing}

        with HashCache(store.root.cache_dir, FEATURES) as cache:
            words = cache.derive({r.sha for r in rows}, compute)
        peers = [peer_from(r.id, r.type, r.rel, comparable(r.lifecycle, r.tier), words[r.sha],
                           relevant) for r in rows]
        names = index.file_names()
    finally:
        index.close()
    taken = {p.id for p in peers}
    for rel in names + store.archived_files():
        taken.add(rel.rsplit("/", 1)[-1].removesuffix(".md"))
    return RootView(peers, taken)


def plan_root(store: Store, scope: Scope,
              candidates: Sequence[Candidate]) -> list[PlannedCandidate]:
    """Verdicts and ids of `candidates` against the current files of one root.

    An UPDATE or SUPERSEDE rewrites its target, so the target's bytes are hashed here and must
    be the approved ones: a hand edit is never approved as a side effect of another write.
    """
    memories, taken = view(store, relevant_words(candidates))
    by_id = {m.id: m for m in memories}
    targets = _Targets(store)
    out: list[PlannedCandidate] = []
    for c in candidates:
        verdict = _decide_on_approved(c, memories, targets)
        target = by_id.get(verdict.target or "")
        rel, sha, shown = "", None, None
        if verdict.kind in {"UPDATE", "SUPERSEDE"} and target is not None:
            rel = target.rel_path
            sha, problem = targets.check(rel, target.id)
            if problem and verdict.blocked is None:
                verdict = dataclasses.replace(verdict, blocked=problem)
            shown = None if problem else targets.view(rel)
        if verdict.kind in {"UPDATE", "NOOP"} and target is not None:
            out.append(PlannedCandidate(c, scope, verdict, target.id, target.rel_path, rel, sha,
                                        shown))
            continue
        # A secret written in prose never becomes a file name (safety/prose.py).
        mid = unique_id(id_from_title(without_prose_secrets(title_from_text(c.text)))
                        or "memory", taken)
        taken.add(mid)
        out.append(PlannedCandidate(c, scope, verdict, mid, f"{TYPE_DIR[c.type]}/{mid}.md", rel,
                                    sha, shown))
    return out


def _decide_on_approved(c: Candidate, peers: list[Peer], targets: _Targets) -> Verdict:
    """The verdict of `c` against the memories a human approved. A file nobody approved (or an
    index row anyone could rewrite) is not a memory to be a duplicate of, to update or to
    mention as related: it would drop a save as "NOOP duplicate of <its id>", block it, and
    print its id (text nobody reviewed) in the preview and the dialog. Ids the candidate names
    itself (UPDATE, SUPERSEDE, DEPENDS_ON) stay: their own checks say what is wrong. Only the
    memories a verdict uses are checked, from their bytes, so planning stays cheap."""
    declared = c.declared()
    pool = peers
    for _ in range(8):
        verdict = decide(c, pool)
        used = {verdict.target, *(h.id for h in verdict.hints)} - {None, *declared}
        bad = {i for i in used if i is not None and not targets.approved_peer(pool, i)}
        if not bad:
            return verdict
        pool = [p for p in pool if p.id not in bad]
    return decide(c, [p for p in pool if p.id in declared or targets.approved_peer(pool, p.id)])


class _Targets:
    """The bytes hash of rewrite targets, checked against memory.hashes.json."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self._hashes: dict[str, str] | None = None
        self._approved: dict[tuple[str, str], bool] = {}

    def approved_peer(self, pool: Sequence[Peer], mid: str) -> bool:
        """Whether the file behind `mid` in `pool` holds approved bytes declaring that id."""
        peer = next((p for p in pool if p.id == mid), None)
        if peer is None:
            return False
        key = (peer.rel_path, mid)
        if key not in self._approved:
            sha, problem = self.check(peer.rel_path, mid)
            ok = problem is None and sha is not None
            if ok:
                try:
                    ok = self.store.read(peer.rel_path).id == mid
                except (EngramError, OSError):
                    ok = False
            self._approved[key] = ok
        return self._approved[key]

    def view(self, rel: str) -> TargetView | None:
        """What an approved rewrite target says (checked by `check` just before)."""
        try:
            old = parse_bytes(self.store.read_bytes(rel), rel, self.store.root)
        except (EngramError, OSError):
            return None
        return TargetView(old.id, old.type, old.title, old.content)

    def check(self, rel: str, mid: str) -> tuple[str | None, str | None]:
        """(sha of the file now, why it may not be rewritten or None)."""
        if self._hashes is None:
            try:
                self._hashes = self.store.approved_hashes()
            except EngramError:
                self._hashes = {}
        try:
            sha = sha256_bytes(self.store.read_bytes(rel))
        except (EngramError, OSError):
            return None, f"{mid} cannot be read"
        approved = self._hashes.get(rel)
        if approved == sha:
            return sha, None
        how = "was never approved (no hash)" if approved is None else \
            "was changed by hand since it was approved"
        return sha, (f"{mid} {how}; review it (engram verify) and run `engram rehash {mid}` "
                     "before rewriting it")


def plan(roots: Roots, candidates: Sequence[Candidate], scopes: Sequence[Scope]
         ) -> list[PlannedCandidate]:
    planned: list[PlannedCandidate] = []
    for scope in scopes:
        planned += plan_root(Store(root_of(roots, scope), roots.state_dir), scope, candidates)
    return sorted(planned, key=lambda p: (p.number, scopes.index(p.scope)))


AGENT_NOTE = ("Show these exact candidates to the human and ask which to save. Never call "
              "engram_commit before the human approved them.")


def render_preview(planned: Sequence[PlannedCandidate], *, query_level: int | None = None,
                   also: Sequence[Effect] = ()) -> str:
    numbers = sorted({p.number for p in planned})
    multi = len({p.scope for p in planned}) > 1
    lines = [f"Engram proposal: {len(numbers)} candidate{'s' if len(numbers) != 1 else ''} "
             "(nothing is saved yet)"]
    if query_level:
        lines.append(f"Review scope: at most {query_level} recent accessible sessions; propose "
                     "only what they actually contain, never invented history.")
    for n in numbers:
        rows = [p for p in planned if p.number == n]
        c = rows[0].candidate
        lines += ["", f"[{n}] {c.type} · {title_from_text(c.text)}"]
        for p in rows:
            where = f"{p.scope} {p.rel}"
            tag = f"Verdict ({p.scope})" if multi else "Verdict"
            state = "" if p.verdict.ready or not p.verdict.writable else \
                " (needs review: deferred unless answered)"
            lines.append(f"    {tag}: {p.verdict.label}{state}  → {where}")
            lines += [f"    Related: {h.kind} {h.id} ({h.score:.2f})" for h in p.verdict.hints]
            if p.verdict.blocked:
                lines.append(f"    Problem: {p.verdict.blocked}")
            # Every file approving this candidate writes or changes, from the same list the
            # dialog and the commit result render (effects.py).
            lines += [f"    {describe(e)}" for e in of_candidate(p)]
        lines += [f"    {describe(e)}" for e in also if e.number == n]
        lines += [f"    {ln}" for ln in candidate_lines(c)]
    # Candidates with invisible characters were refused; names of other memories were not
    # reviewed here: nothing in a preview may be invisible.
    return printable("\n".join([*lines, "", AGENT_NOTE]), keep_lines=True)


def human_preview(preview: str) -> str:
    """The preview a person reads: without the instructions meant for an agent."""
    return preview.removesuffix("\n\n" + AGENT_NOTE)
