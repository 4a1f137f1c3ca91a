"""Render a routed pack as text within a token budget (docs/reading.md tiered disclosure).

Tiers, each in route order: bodies (compact frontmatter, the active rule variant only) for the
memories that fit, then one-line cards for those that still fit, then the ids of whatever is
left on one `omitted by budget` line. Tokens are estimated as ceil(characters / 4), so a budget
of B tokens is 4·B characters of output, header and warnings included. When the pack travels
inside a JSON envelope (MCP `structuredContent`), `render_tiered` can measure the text as
JSON-escaped characters and leave `reserve` characters for the rest of the envelope, so the
budget bounds what the model receives. `render_full` is the broad legacy form (whole files, no
budget). This module formats; it does not route, read files or count recalls.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence

from engram.outcome import estimate_tokens
from engram.store.model import AUTHORITY, Memory

DISCLOSURES = ("tiered", "cards", "bodies")
CARD_SUMMARY = 100
_VARIANTS_HEADING = re.compile(r"^##\s+rule\s+variants\b.*$", re.IGNORECASE | re.MULTILINE)
_NEXT_H2 = re.compile(r"^##\s", re.MULTILINE)

__all__ = ("estimate_tokens",)  # re-exported: the one estimator lives in engram.outcome
Measure = Callable[[str], int]


class Pack:
    """A rendered pack: its text and which memories went in as bodies, cards or ids only."""

    __slots__ = ("text", "body_keys", "card_ids", "omitted_ids", "map_keys")

    def __init__(self, text: str, body_keys: list[str] | None = None,
                 card_ids: list[str] | None = None,
                 omitted_ids: list[str] | None = None,
                 map_keys: list[str] | None = None) -> None:
        self.text = text
        self.body_keys: list[str] = [] if body_keys is None else body_keys
        self.card_ids: list[str] = [] if card_ids is None else card_ids
        self.omitted_ids: list[str] = [] if omitted_ids is None else omitted_ids
        self.map_keys: list[str] = [] if map_keys is None else map_keys  # listed in the map

    @property
    def tokens(self) -> int:
        return estimate_tokens(self.text)


def _flow(values: Sequence[str]) -> str:
    return "[" + ", ".join(_one_line(v) for v in values) + "]"


def _one_line(value: object) -> str:
    """A frontmatter value as one printed line. The guarded read scanned the file's bytes, where
    a quoted value's `\\n` is two characters inside a `tags:` line; printed raw, it would start
    a line of its own (an injection line, `<system>`) that no scan saw."""
    text = str(value)
    if text.isprintable():
        return text
    from engram.safety.invisible import printable

    return printable(text)


def compact_body(m: Memory, variant: str = "balanced", note: str = "") -> str:
    """The memory as an agent needs it: five frontmatter keys, an optional one-line note (what
    changed in the code it describes), and the body with one variant."""
    lines = ["---", f"id: {m.id}", f"type: {m.type}"]
    if m.tags:
        lines.append(f"tags: {_flow(m.tags)}")
    lines.append(f"authority: {_one_line(m.meta.get('authority') or AUTHORITY[m.type])}")
    if m.depends_on:
        lines.append(f"depends_on: {_flow(m.depends_on)}")
    lines.append("---")
    if note:
        lines.append(f"> {note}")
    body = m.body.strip("\n")
    if m.type == "rule":
        body = _one_variant(body, m, variant)
    return "\n".join(lines) + "\n" + body.rstrip() + "\n"


def _one_variant(body: str, m: Memory, variant: str) -> str:
    """Replace the `## Rule Variants` section by the active variant alone."""
    chosen = variant if m.variants.get(variant) else "balanced"
    text = (m.variants.get(chosen) or "").strip()
    head = _VARIANTS_HEADING.search(body)
    if head is None or not text:
        return body
    nxt = _NEXT_H2.search(body, head.end())
    tail = body[nxt.start():] if nxt else ""
    section = f"## Rule variants (1/3: {chosen.capitalize()})\n\n{text}\n"
    return (body[: head.start()] + section + ("\n" + tail if tail else "")).rstrip()


def summary(m: Memory, width: int = CARD_SUMMARY) -> str:
    text = " ".join((m.title or m.content or m.id).split())
    if len(text) <= width:
        return text
    cut = text[: width - 1].rsplit(" ", 1)[0] or text[: width - 1]
    return cut.rstrip(" ,;:.") + "…"


def card(m: Memory, note: str = "") -> str:
    return f"- {m.id} ({m.type}, {m.scope}{', stale' if note else ''}): {summary(m)}"


def header(loaded: int, routed: int, budget: int) -> str:
    return f"engram: loaded {loaded} of {routed} routed memories ({budget} token budget)"


def refined_line(limit: int, matched: int, tags: Sequence[str]) -> str:
    line = f"refined {limit} of {matched} matching memories"
    return line + (f"; narrow with: {', '.join(tags[:5])}" if tags else "")


def in_context_line(ids: Sequence[str]) -> str:
    return f"already in context, left out: {', '.join(ids)}"


def omitted_line(ids: Sequence[str], room: int) -> str | None:
    """As many ids as fit in `room` characters, then `+N more`; None if not even that fits."""
    if not ids:
        return ""
    for shown in range(len(ids), -1, -1):
        more = f" +{len(ids) - shown} more" if shown < len(ids) else ""
        listed = ", ".join(ids[:shown])
        line = f"omitted by budget: {listed}{more} — load with id".replace(":  +", ": +")
        if len(line) <= room:
            return line
    return None


class _Parts:
    __slots__ = ("head", "bodies", "cards", "tail")

    def __init__(self, head: list[str], bodies: list[str] | None = None) -> None:
        self.head = head
        self.bodies: list[str] = [] if bodies is None else bodies
        self.cards: list[str] = []
        self.tail = ""

    def text(self) -> str:
        blocks = ["\n".join(self.head), *self.bodies]
        if self.cards:
            blocks.append("\n".join(self.cards))
        if self.tail:
            blocks.append(self.tail)
        return "\n\n".join(b.rstrip("\n") for b in blocks if b) + "\n"


def render_tiered(memories: Sequence[Memory], *, budget: int, disclosure: str = "tiered",
                  variant: str = "balanced", extra_head: Sequence[str] = (),
                  measure: Measure = len, reserve: int = 0,
                  notes: Mapping[str, str] | None = None) -> Pack:
    """Bodies, then cards, then omitted ids, all inside `budget` tokens. `notes` maps a memory
    key to one line shown with it (staleness).

    `measure` is how many characters a text costs where it is delivered (`len`, or its
    JSON-escaped length); `reserve` characters of the budget are kept for what travels with it.
    """
    room = budget * 4 - reserve
    n = len(memories)
    parts = _Parts(head=[header(n, n, budget), *extra_head])
    pack = Pack(text="")
    rest = list(memories)
    if disclosure in ("tiered", "bodies"):
        rest = _fill(parts, rest, room, pack, variant, measure, as_card=False, notes=notes or {})
    if disclosure in ("tiered", "cards"):
        rest = _fill(parts, rest, room, pack, variant, measure, as_card=True, notes=notes or {})
    pack.omitted_ids = [m.id for m in rest]
    gap = measure("\n\n")  # between the last block and the omitted line
    parts.tail = omitted_line(pack.omitted_ids, room - measure(parts.text()) - gap) or ""
    parts.head[0] = header(len(pack.body_keys), n, budget)
    pack.text = parts.text()
    return pack


def _fill(parts: _Parts, items: list[Memory], room: int, pack: Pack, variant: str,
          measure: Measure, *, as_card: bool, notes: Mapping[str, str]) -> list[Memory]:
    """Add the items of one tier, in route order, that fit with room for a minimal last line.

    An item too big for what is left is passed over, not a stop: one long prerequisite must not
    turn every later memory into a card.
    """
    left: list[Memory] = []
    for i, m in enumerate(items):
        if not as_card and m.is_note:
            left.append(m)  # working notes appear only as cards (docs/saving.md)
            continue
        note = notes.get(m.key, "")
        block = card(m, note) if as_card else compact_body(m, variant, note)
        target = parts.cards if as_card else parts.bodies
        target.append(block)
        after = len(left) + len(items) - i - 1
        tail = f"omitted by budget: +{after} more — load with id" if after else ""
        if measure(parts.text()) + (measure("\n\n" + tail) if tail else 0) > room:
            target.pop()
            left.append(m)
            continue
        if as_card:
            pack.card_ids.append(m.id)
        else:
            pack.body_keys.append(m.key)
    return left


def render_bodies(memories: Sequence[Memory], head: str, variant: str = "balanced",
                  extra_head: Sequence[str] = (),
                  notes: Mapping[str, str] | None = None) -> Pack:
    """Every memory as a compact body, no budget (used by `load --id`)."""
    got = notes or {}
    parts = _Parts(head=[head, *extra_head],
                   bodies=[compact_body(m, variant, got.get(m.key, "")) for m in memories])
    return Pack(text=parts.text(), body_keys=[m.key for m in memories])


def render_full(memories: Sequence[Memory], raw: Sequence[str], head: str,
                extra_head: Sequence[str] = ()) -> Pack:
    """The broad legacy output: each file whole (full frontmatter, all variants), no budget."""
    parts = _Parts(head=[head, *extra_head], bodies=[r.strip("\n") + "\n" for r in raw])
    return Pack(text=parts.text(), body_keys=[m.key for m in memories])


MAP_HEAD = "also in memory, not loaded (most likely first):"
MAP_FETCH = 'fetch one: engram_load with {"id": "<id>"}, or engram load --id <id>'


def map_line(m: Memory) -> str:
    """One map entry: the id to fetch and the title (the cheapest form a model still chooses
    from; the type on each line cost more tokens and measured lower recall)."""
    return f"- {m.id}: {_one_line(summary(m))}"


def add_map(pack: Pack, memories: Iterable[Memory], *, room: int, measure: Measure = len,
            key_cost: Callable[[str], int] = lambda key: 0) -> None:
    """Append the map to the rendered pack: a heading, one line for each of `memories` (in
    their order) that still fits, then how to fetch one. The whole text, plus `key_cost`
    characters per listed key (what `map_ids` adds to a JSON envelope), stays within `room`
    characters. The pack itself is never cut: when it leaves no room for the heading and the
    fetch line, nothing is read or added. A line too long for what is left is passed over,
    not a stop, as in the pack's tiers: a shorter title after it may still fit."""
    base = pack.text
    if measure(_with_map(base, [])) > room:
        return
    lines: list[str] = []
    keys: list[str] = []
    spent = 0
    for m in memories:
        line, cost = map_line(m), key_cost(m.key)
        if measure(_with_map(base, [*lines, line])) + spent + cost > room:
            continue
        lines.append(line)
        keys.append(m.key)
        spent += cost
    if lines:
        pack.text = _with_map(base, lines)
        pack.map_keys = keys


def _with_map(base: str, lines: Sequence[str]) -> str:
    return base.rstrip("\n") + "\n\n" + "\n".join([MAP_HEAD, *lines, MAP_FETCH]) + "\n"
