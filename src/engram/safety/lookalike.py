"""Letters that only look like Latin ones, read as those before the injection rules read a line
(docs/safety.md "Prompt injection").

Compatibility folding (NFKC) turns full-width or mathematical letters into plain ones, but a
Cyrillic `і`, a Greek `ο`, an Armenian `օ`, a Cherokee `Ꭵ`, a Lisu `ꓲ`, a small capital `ɢ` or an
`I` with a combining accent is another character that only looks the same: `Іgnore all previous
instructіons` reads as the hijack to a model and to a reviewer. Two readings, both linear:

- `fold_letters`: (after NFKD) every combining mark dropped, then every letter that draws a Latin
  one (the generated `lookalike_data.LETTERS`: Unicode's confusables and character names)
  replaced by that letter, lower-cased. Capital I, small l, digit one and bars all become `l`;
  the rules read `i` and `l` as one letter (`rules.bar_blind`).
- `fold_digits`: a second reading with digits and symbols read as the letters they draw
  (`1gnore`, `0verride`, `|gnore`, `pr3v!ous`, `@ll`, `<5ystem>`); the line as written is read
  first, so `Step 1:` and `<|im_start|>` keep their digits and bars there.

Folding prose of other scripts only makes it unreadable to the rules, never a match: the rules
still need whole English phrases (tests/fixtures/safety/negative.txt holds Russian, Greek,
Turkish and German text).
"""

from __future__ import annotations

import re

from engram.safety.lookalike_data import LETTERS, MARKS, SYMBOLS


def _table(items: str) -> dict[int, str | None]:
    return {int(item[:-1], 16): item[-1] for item in items.split()}


def _marks(ranges: str) -> dict[int, str | None]:
    out: dict[int, str | None] = {}
    for item in ranges.split():
        first, _, last = item.partition("-")
        out.update(dict.fromkeys(range(int(first, 16), int(last or first, 16) + 1)))
    return out


# One `str.translate`: combining marks dropped, look-alike letters read as Latin.
_LETTER_TABLE = {**_marks(MARKS), **_table(LETTERS)}
# Digits and symbols drawn like letters, for the second reading (`fold_digits`).
_DIGIT_TABLE = {**_table(SYMBOLS), **{ord(k): v for k, v in zip(
    "01345789@$", "oleastbgas", strict=True)}}
# `|` and `!` only before a letter or digit: `Note!`, `IMPORTANT! …` and table cells keep them.
_BAR = re.compile(r"[|!](?=[^\W_])")


def fold_letters(line: str) -> str:
    """`line` (already NFKD: compatibility forms folded, accents apart) without combining marks,
    with look-alike letters read as Latin."""
    return line.translate(_LETTER_TABLE)


def fold_digits(line: str) -> str:
    """The line with digits and symbols read as the letters they draw (`1gnore`, `0verride`,
    `|gnore`, `pr3v!ous`, `@ll`, `<5ystem>`): a second reading, tried after the line itself, so
    `Step 1:`, `<|im_start|>` and `v2` are still read as written first."""
    return _BAR.sub("l", line).translate(_DIGIT_TABLE)
