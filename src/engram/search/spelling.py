"""Unknown query words the store can still read: misspellings and joined words
(docs/reading.md "How ranking works", step 1).

A long anchor no memory holds is either a typo of a stored word (`databs` → `databas`) or
several stored words written as one (`GetLoadHistory` → `getload`, `histori`; `liststop` →
`list`, `stop`). Both are decided from the store's own vocabulary, never from a word list.
Short unknown words stay as they are: they have too many neighbours to guess at. This module is
pure logic over two look-ups the caller provides; it does not open the index.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from engram.search.terms import is_meaningful, one_edit

SPELL_MIN = 6  # unknown anchors this long are respelt or split
SPELL_PREFIX = 3  # a respelling starts with the anchor's first letters (typos rarely start a word)
PART_MIN = 3  # each part of a split word is a stored term at least this long …
TAIL_MIN = 4  # … and the last one at least this long

Near = Callable[[str], list[tuple[str, int]]]  # stored terms near a word, with their counts
Known = Callable[[str], bool]  # whether some memory holds exactly this term


def respell(anchors: Sequence[str], df: Mapping[str, int], near: Near,
            known: Known) -> list[str]:
    """Each unknown long anchor as the most common stored term one edit away, else as the
    stored terms it joins; every other anchor as it is (first-seen order, no repeats)."""
    out: list[str] = []
    for a in anchors:
        if df.get(a, 0) or len(a) < SPELL_MIN or not a.isalpha():
            out.append(a)
            continue
        close = [(n, t) for t, n in near(a) if one_edit(a, t)]
        if close:
            out.append(max(close)[1])
        else:
            out += split(a, known) or [a]
    return list(dict.fromkeys(out))


def split(word: str, known: Known) -> list[str] | None:
    """`word` as stored terms written together, longest last part first, or None.

    Every part must be a stored term (at least `PART_MIN` letters, the last `TAIL_MIN`), so an
    unknown word is never cut into a stored word and a leftover (`tonight` does not become
    `night`). Parts that are stop words (`get` in `getrates`) are dropped from the result."""
    for i in range(len(word) - TAIL_MIN, PART_MIN - 1, -1):
        head, tail = word[:i], word[i:]
        if not known(tail):
            continue
        parts = [head] if known(head) else split(head, known)
        if parts:
            return [p for p in (*parts, tail) if is_meaningful(p)] or None
    return None
