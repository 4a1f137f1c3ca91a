"""Letters that only look like Latin ones, read as those before the injection rules read a line
(docs/safety.md "Prompt injection").

Compatibility folding (NFKC) turns full-width or mathematical letters into plain ones, but a
Cyrillic `і`, a Greek `ο`, an Armenian `օ`, a Cherokee `Ꭵ`, a Lisu `ꓲ`, a small capital `ɢ` or an
`I` with a combining accent is another character that only looks the same: `Іgnore all previous
instructіons` reads as the hijack to a model and to a reviewer. Two readings, both linear:

- `fold_letters`: (after NFKD) every combining mark dropped, then every letter that draws a
  Latin one, or a symbol that does (`∣`, `×`), replaced by that letter, lower-cased (the
  generated `lookalike_data`: Unicode's confusables and character names). Capital I, small l,
  digit one and bars all become `l`; the rules read `i` and `l` as one letter, and `rn`, `vv`,
  `cl` as `m`, `w`, `d` (`rules.lookalike_blind`).
- `fold_digits` and `fold_spacing`: a second reading with digits and signs beside letters read
  as the letters they draw (`1gnore`, `0verride`, `|gnore`, `pr3v!ous`, `@ll`, `<5ystem>`), and
  `-`, `_`, `.` between letters and letters spaced one by one read as the words they spell
  (`ignore-all-previous`, `I g n o r e`); the line as written is read first, and `10.`,
  `Step 1:` keep their digits (no letter beside them).

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


# One `str.translate`: combining marks dropped, look-alike letters (and the symbols drawn like
# letters, `∣` `×` `०`) read as Latin.
_LETTER_TABLE = {**_marks(MARKS), **_table(SYMBOLS), **_table(LETTERS)}
_SIGNS = dict(zip("01345789@$+|!", "oleastbgastll", strict=True))
# A digit or sign beside a letter (`1gnore`, `t10n`, `@ll`, `in5truc+ions`; `|` and `!` only
# before one: `Note!` and a table's `|` stay), so `10.`, `Step 1:` and `v2` keep their digits.
_LETTER = r"[^\W\d_]"
_SIGN = re.compile(rf"(?<={_LETTER})[0-9@$+]|[0-9@$+|!](?={_LETTER})")


def fold_letters(line: str) -> str:
    """`line` (already NFKD: compatibility forms folded, accents apart) without combining marks,
    with look-alike letters read as Latin."""
    return line.translate(_LETTER_TABLE)


def fold_digits(line: str) -> str:
    """The line with digits and signs beside letters read as the letters they draw (`1gnore`,
    `0verride`, `|gnore`, `pr3v!ous`, `@ll`, `<5ystem>`): a second reading, tried after the line
    as written, so `<|im_start|>` keeps its bars there."""
    return _SIGN.sub(_sign, line)


_JOINER = re.compile(r"(?<=[^\W\d_])[-_.](?=[^\W\d_])")
# Three or more letters spaced one by one (`I g n o r e`); a wider gap ends the word.
_SPACED = re.compile(r"(?<![^\W_])(?:[^\W\d_] ){2,}[^\W\d_](?![^\W_])")


def fold_spacing(line: str) -> str:
    """The line with `-`, `_`, `.` between letters read as spaces (`ignore-all-previous`,
    `IGNORE_ALL`, `I-g-n-o-r-e`) and letters spaced one by one read as a word (`I g n o r e`)."""
    return _SPACED.sub(_unspaced, _JOINER.sub(" ", line))


def _unspaced(m: re.Match[str]) -> str:
    return m.group().replace(" ", "")


def _sign(m: re.Match[str]) -> str:
    return _SIGNS.get(m.group(), m.group())
