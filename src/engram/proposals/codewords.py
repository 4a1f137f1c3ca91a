"""Three words that name an approval token, so a human can tell one proposal from another.

In the chat flow the human gate is the host's prompt to allow `engram_commit`, and that prompt
shows the call's arguments: the token. A bare random token says nothing to a human, so an agent
could show one proposal and commit another it made meanwhile. Each token therefore starts with
three words drawn from its own randomness (`amber-falcon-river-…`); the proposal's text names
them, the prompt shows them, and a human who sees other words declines. The words are part of
the token, so they are checked with it (docs/saving.md, the approval tokens section; the
attack is a row of docs/safety.md's attack table).
"""

from __future__ import annotations

import secrets

_LISTED = """
    acorn acre alpine amber anchor apple arrow aspen atlas badge bagel baker bamboo banjo barley
    basil beacon beaver beet berry birch bison blade bloom blossom bongo bonsai branch brick
    bridge brook bucket buffalo butter cabbage cabin cactus camel candle canoe canyon carbon
    carrot cashew castle cedar cello cherry chess cider cinder citrus cliff cloud clover cobalt
    cocoa comet copper coral cotton cougar crane crater crest cricket crystal cypress dahlia
    daisy delta desert dingo dolphin dragon drift dune eagle easel elm ember fable falcon
    feather fennel ferry fig finch fjord flame flint forest fossil fox galaxy garden garnet
    gecko geyser ginger glacier glade gourd granite grape gravel guitar hammer harbor harp hazel
    heron hickory hive hollow honey horizon husky igloo iguana indigo iris island ivory jackal
    jade jasmine jasper jelly juniper kayak kelp kernel kettle kiwi koala ladder lagoon lantern
    larch lava lemon lemur lentil lilac lily lime linen lizard llama lobster lotus lunar lynx
    magnet mango maple marble meadow melon mesa meteor mint mirror mocha monsoon moose mosaic
    moss muffin nectar nickel nutmeg nutria oak oasis oat ocean olive onyx opal orbit orchid
    otter owl oyster paddle panda papaya parrot pasta peach pebble pelican pepper piano pilot
    pine pixel plum polar pony poppy prairie prism puffin pumpkin quartz quiche quill rabbit
    radar raisin raven reef ribbon river robin rocket rose ruby saddle saffron sage salmon
    sandal satin scarf shell sierra silver sketch sloth sparrow spruce squid stone summit sunset
    swan tango tea thistle thunder tiger timber tomato topaz tulip tundra turtle umber valley
    velvet violet walnut
"""
WORDS: tuple[str, ...] = tuple(_LISTED.split())
COUNT = 3  # words per token: 24 bits, enough to tell a session's proposals apart


def new_code() -> str:
    """Three random words joined by hyphens."""
    return "-".join(WORDS[b] for b in secrets.token_bytes(COUNT))


def code_of(token: str) -> str | None:
    """The words a token starts with, or None for a token without them (older tokens)."""
    parts = token.split("-", COUNT)
    if len(parts) <= COUNT or not all(p in _KNOWN for p in parts[:COUNT]):
        return None
    return "-".join(parts[:COUNT])


_KNOWN = frozenset(WORDS)
