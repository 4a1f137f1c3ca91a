"""Why a pack is what it is: `--explain` and `--dry-run` text and data, never memory bodies.

Per selected memory: score, matched anchor terms, the dependant that pulled a prerequisite in,
and its tier (body, card, omitted). Per candidate left out: beyond the limit, displaced by a
prerequisite, pruned on evidence, or hidden (and why). Also the messages for empty routes and
the search result lines. This module formats what routing decided; it decides nothing.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from engram.outcome import Diagnostic, listed
from engram.search.pack import Pack, summary
from engram.search.rank import Candidate
from engram.search.reader import Read
from engram.search.route import Routed
from engram.search.terms import anchor_words
from engram.store.model import Memory
from engram.workspace import Roots

if TYPE_CHECKING:
    from engram.search.vouch import Vouch

MAX_LISTED = 20  # omitted candidates listed in text; data keeps up to MAX_DATA
MAX_DATA = 100


def shown_score(score: float) -> str:
    """A BM25 score for people: two decimals, or `<0.01` for a positive score that rounds to
    zero (in a small store whose memories all hold the task's words, BM25 weighs them almost
    nothing; the order still holds)."""
    return "<0.01" if 0 < score < 0.005 else f"{score:.2f}"


def _tier(key: str, memory_id: str, pack: Pack) -> str:
    if key in pack.body_keys:
        return "body"
    if memory_id in pack.card_ids:
        return "card"
    return "omitted by budget"


def data(routed: Routed, pack: Pack, memories: list[Memory], vouch: Vouch) -> dict[str, Any]:
    cands = {c.key: c for c in routed.ranked}
    selected = []
    for m in memories:
        c = cands.get(m.key)
        score = (round(c.score, 4) or c.score) if c else 0.0  # a tiny score stays tiny, not 0
        entry: dict[str, Any] = {"key": m.key, "score": score,
                                 "matched": list(c.matched) if c else [],
                                 "tier": _tier(m.key, m.id, pack)}
        if m.key in routed.selection.prereq_of:
            entry["prerequisite_of"] = vouch.key(routed.selection.prereq_of[m.key])
        elif m.key in routed.sibling_of:
            entry["sibling_of"] = vouch.id_of(routed.sibling_of[m.key])
        elif m.key in routed.similar:
            entry["similar"] = round(routed.similar[m.key], 2)
        elif m.key in routed.clause_of:
            entry["clause"] = routed.clause_of[m.key]
        selected.append(entry)
    out: dict[str, Any] = {**anchors_data(routed.anchors), "selected": selected,
                           "omitted": [{"key": k, "reason": r}
                                       for k, r in omitted(routed, vouch)[:MAX_DATA]]}
    if routed.semantic.code:
        out["semantic"] = {"code": routed.semantic.code, "message": routed.semantic.message}
    return out


def omitted(routed: Routed, vouch: Vouch) -> list[tuple[str, str]]:
    """Candidates that matched but are not in the pack, with the reason; ids nobody approved
    are withheld (vouch.py)."""
    chosen = set(routed.selection.keys)
    out = [(k, "displaced by prerequisites within load.limit") for k in routed.selection.dropped]
    for rank, c in enumerate(routed.ranked, 1):
        if c.key not in chosen and c.key not in routed.selection.dropped:
            out.append((c.key, f"rank {rank}: beyond load.limit"))
    out += [(k, f"pruned: {r}") for k, r in routed.pruned]
    out += [(k, f"hidden: {r}") for k, r in routed.hidden]
    return [(vouch.key(k), vouch.reason(r)) for k, r in out]


def render(routed: Routed, pack: Pack, memories: list[Memory], vouch: Vouch, *, explain: bool,
           dry_run: bool, limit: int) -> str:
    verb = "would load" if dry_run else "loaded"
    head = (f"engram: {verb} {len(pack.body_keys)} bodies, {len(pack.card_ids)} cards, "
            f"{len(pack.omitted_ids)} omitted of {len(memories)} routed memories "
            f"({routed.matched} matching, limit {limit}, anchors: "
            f"{', '.join(routed.anchors) or 'none'})")
    lines = [head]
    info = {e["key"]: e for e in data(routed, pack, memories, vouch)["selected"]}
    for m in memories:
        e = info[m.key]
        why = f"score {shown_score(e['score'])}, matched {', '.join(e['matched']) or '-'}"
        if "prerequisite_of" in e:
            why = f"prerequisite of {e['prerequisite_of']}"
        elif "sibling_of" in e:
            why = f"shares tags with {e['sibling_of']} (free slot)"
        elif "similar" in e:
            why = f"similar to the task (cosine {e['similar']:.2f}, free slot)"
        elif "clause" in e:
            why = f"best for {e['clause']!r} on its own (free slot)"
        lines.append(f"- {m.key} [{e['tier']}] {why}" if explain else f"- {m.key} [{e['tier']}]")
    if explain and routed.semantic.code:
        hint = f" ({routed.semantic.hint})" if routed.semantic.hint else ""
        lines.append(f"semantic: off: {routed.semantic.message}{hint}")
    if explain:
        rest = omitted(routed, vouch)
        if rest:
            lines.append("not loaded:")
            lines += [f"- {k}: {r}" for k, r in rest[:MAX_LISTED]]
            if len(rest) > MAX_LISTED:
                lines.append(f"- +{len(rest) - MAX_LISTED} more")
    return "\n".join(lines) + "\n"


def empty_text(routed: Routed) -> str:
    if not routed.anchors:
        return ("engram: no memories routed: the task has no meaningful words (generic words "
                "such as memory, rule, skill or task never route; name the subject)\n")
    words = anchor_words(routed.task) or routed.anchors  # the user's words, not their stems
    return (f"engram: no memories routed for: {_listed(words)} "
            "(try other words, or engram search)\n")


def empty_text_for_search(terms: list[str], query: str = "") -> str:
    if not terms:
        return "engram: no results: the query has no meaningful words\n"
    return f"engram: no results for: {_listed(anchor_words(query) or terms)}\n"


def anchors_data(words: list[str]) -> dict[str, Any]:
    """The task's words as the envelope repeats them: the first MAX_LISTED, and how many there
    were. Over MCP the load budget pays for the envelope, so a pasted log repeated whole would
    push memories out of the pack."""
    out: dict[str, Any] = {"anchors": words[:MAX_LISTED]}
    if len(words) > MAX_LISTED:
        out["anchors_total"] = len(words)
    return out


def _listed(words: list[str]) -> str:
    return listed(words, MAX_LISTED)


def no_root_text(roots: Roots) -> str:
    """Said instead of "no memories routed" when there is no root: rephrasing cannot help."""
    if roots.existing():
        return ""
    return f"engram: no memory root at {roots.workspace.path}; run engram init\n"


def root_diagnostics(roots: Roots) -> list[Diagnostic]:
    """An empty answer because there is no memory at all deserves a pointer to `engram init`."""
    if roots.existing():
        return []
    return [Diagnostic("load.no_root", "info",
                       f"no memory root at {roots.workspace.path}; run engram init")]


def graph_diagnostics(routed: Routed, vouch: Vouch) -> list[Diagnostic]:
    diags = [Diagnostic("load.dependency_cycle", "warn", "dependency cycle: " + " -> ".join(
        vouch.key(k).split(":", 1)[1] for k in cycle)) for cycle in routed.selection.cycles]
    diags += [Diagnostic("load.missing_prerequisite", "warn",
                         "{} depends on unknown memory {}".format(*vouch.missing(dependant, dep)))
              for dependant, dep in routed.missing]
    return diags


def search_line(c: Candidate, got: Read, terms: list[str]) -> str:
    """`id (type, scope) score: snippet` from the guarded read (never from the index row, which
    anything that writes the workspace could rewrite); a refused file shows why instead."""
    m = got.memory
    if m is None:
        skipped = got.skip.line if got.skip else "SKIPPED: unreadable"
        return f"{skipped} (score {shown_score(c.score)})"
    flags = "".join(f" [{f}]" for f in (
        "low confidence" if m.confidence == "low" else "",
        m.lifecycle if m.lifecycle != "active" else "",
        "working note" if m.is_note else "") if f)
    head = f"{m.id} ({m.type}, {m.scope}) {shown_score(c.score)}{flags}"
    return f"{head}: {snippet(m, c.matched or terms)}"


def snippet(m: Memory, terms: list[str], width: int = 100) -> str:
    """The first content line that mentions a matched term, else the summary."""
    from engram.search.rank import anchor_hits
    from engram.search.terms import stems

    for line in m.content.splitlines():
        text = line.strip().lstrip("-*").strip()
        if text and any(anchor_hits(t, stems(text)) for t in terms):
            return text if len(text) <= width else text[: width - 1].rsplit(" ", 1)[0] + "…"
    return summary(m, width)
