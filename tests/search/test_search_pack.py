"""Tiered disclosure: bodies, cards, omitted ids within the budget."""

from __future__ import annotations

from collections.abc import Callable

from engram.search.pack import compact_body, estimate_tokens, render_tiered
from engram.store.model import Memory

VARIANTS = {"light": "- Consider X.", "balanced": "- Do X.", "strict": "- Always do X."}


def test_budget_200_keeps_the_whole_output_within_800_characters(
        make_mem: Callable[..., Memory]) -> None:
    mems = [make_mem(f"memory-number-{i}", content="- " + "word " * 60) for i in range(10)]
    pack = render_tiered(mems, budget=200)
    assert len(pack.text) <= 800
    assert pack.omitted_ids
    assert "omitted by budget:" in pack.text
    assert pack.text.startswith(f"engram: loaded {len(pack.body_keys)} of 10 routed memories "
                                "(200 token budget)")
    assert estimate_tokens(pack.text) == pack.tokens <= 200
    listed = set(pack.body_keys) | {f"workspace:{i}" for i in pack.card_ids + pack.omitted_ids}
    assert listed == {m.key for m in mems}


def test_tiers_follow_route_order(make_mem: Callable[..., Memory]) -> None:
    mems = [make_mem(f"m{i}", content="- " + "text " * 80) for i in range(6)]
    pack = render_tiered(mems, budget=400)
    order = [k.split(":")[1] for k in pack.body_keys] + pack.card_ids + pack.omitted_ids
    assert order == [m.id for m in mems]
    assert pack.body_keys and pack.card_ids


def test_one_oversized_body_does_not_turn_the_rest_into_cards(
        make_mem: Callable[..., Memory]) -> None:
    big = make_mem("big-prerequisite", content="- " + "long " * 900)
    small = [make_mem(f"small-{i}", content="- short note.") for i in range(3)]
    pack = render_tiered([big, *small], budget=600)
    assert pack.body_keys == [f"workspace:small-{i}" for i in range(3)]
    assert pack.card_ids == ["big-prerequisite"]
    assert pack.text.index("small-0") < pack.text.index("- big-prerequisite (knowledge")


def test_cards_disclosure_prints_no_bodies(make_mem: Callable[..., Memory]) -> None:
    mems = [make_mem("alpha", title="Alpha thing"), make_mem("beta", type="rule")]
    pack = render_tiered(mems, budget=1600, disclosure="cards")
    assert pack.body_keys == []
    assert pack.card_ids == ["alpha", "beta"]
    assert "- alpha (knowledge, workspace): Alpha thing" in pack.text
    assert "## Content" not in pack.text


def test_bodies_disclosure_prints_no_cards(make_mem: Callable[..., Memory]) -> None:
    mems = [make_mem(f"m{i}", content="- " + "text " * 100) for i in range(5)]
    pack = render_tiered(mems, budget=300, disclosure="bodies")
    assert pack.card_ids == []
    assert pack.omitted_ids


def test_rules_show_only_the_active_variant(make_mem: Callable[..., Memory]) -> None:
    rule = make_mem("do-x", type="rule", variants=VARIANTS, tags=["x"], authority="instruction")
    text = compact_body(rule, "strict")
    assert "## Rule variants (1/3: Strict)" in text
    assert "- Always do X." in text
    assert "Consider X" not in text and "### Balanced" not in text
    assert text.startswith("---\nid: do-x\ntype: rule\ntags: [x]\nauthority: instruction\n---\n")


def test_working_notes_are_cards_only(make_mem: Callable[..., Memory]) -> None:
    note = make_mem("note-a", tier="working", source="note")
    pack = render_tiered([note, make_mem("b")], budget=1600)
    assert pack.card_ids == ["note-a"]
    assert pack.body_keys == ["workspace:b"]
