"""Regenerate src/engram/safety/lookalike_data.py: every character that looks like a Latin letter,
and the letter (docs/safety.md "Prompt injection").

Two sources, both data rather than judgement:
- Unicode's confusables (UTS #39), as shipped by `confusable_homoglyphs` (MIT, a dev-only
  dependency: `pip install confusable_homoglyphs==3.3.1`): a character one of whose confusables
  is, past its combining marks, one ASCII letter or digit (or a character that is).
- Unicode character names: `LATIN LETTER SMALL CAPITAL G`, `NEGATIVE SQUARED LATIN CAPITAL
  LETTER I`, `REGIONAL INDICATOR SYMBOL LETTER I`, `MODIFIER LETTER CAPITAL I`, … name the Latin
  letter they draw, though UTS #39 lists none of them as one.

Only characters that NFKD leaves as they are get a row (the scanner decomposes first, drops
combining marks, then reads this table). Letters go to `LETTERS`; symbols and digits that look
like letters (`∣`, `×`, `०`) go to `SYMBOLS`; both are read the same way (ASCII digits are read
as letters only beside a letter: `lookalike.fold_digits`). Every capital I, small l, digit one
and vertical bar is written `l`: the injection rules read `i` and `l` as one letter.

Run: .venv/bin/python scripts/gen-lookalikes.py
"""

from __future__ import annotations

import json
import re
import sys
import unicodedata
from pathlib import Path

import confusable_homoglyphs

OUT = Path(__file__).resolve().parent.parent / "src/engram/safety/lookalike_data.py"
_NAMED = re.compile(
    r"^(?:LATIN|MODIFIER|NEGATIVE SQUARED|SQUARED|CIRCLED|NEGATIVE CIRCLED|PARENTHESIZED"
    r"|REGIONAL INDICATOR|FULLWIDTH|MATHEMATICAL|TAG)\b.*?"
    r"\b(?:LETTER|SYMBOL LETTER)(?: SMALL CAPITAL| CAPITAL| SMALL)* ([A-Z])"
    r"(?: WITH [A-Z ]+| [A-Z]+ FORM)?$")
# Look-alikes UTS #39 leaves out (Greek and Cyrillic letters drawn like Latin ones in common
# fonts): kept from the hand table this file replaced, plus the italic-looking `п`.
_EXTRA = ("βb εe ϵe κk τt χx ϲc ϳj ℩l ȷj ɒa ɛe ꞵb ӕa ҁc ԛq ԍg һh пn"
          " кk мm Ϲc ϒy Ԛq Һh")
_BARS = {"i": "l", "l": "l", "1": "l", "|": "l", "0": "o"}


def _bare(text: str) -> str:
    return "".join(c for c in unicodedata.normalize("NFD", text)
                   if not unicodedata.category(c).startswith("M") and c not in "\u200e\u200f")


def _ascii_target(text: str) -> str | None:
    """The one ASCII letter (or digit, bar) `text` draws, lower-cased, bars as `l`."""
    bare = _bare(text)
    if len(bare) != 1 or not bare.isascii() or not (bare.isalnum() or bare == "|"):
        return None
    low = bare.lower()
    return _BARS.get(bare, _BARS.get(low, low)) if bare != "i" else "l"


def _from_names(ch: str) -> str | None:
    m = _NAMED.match(unicodedata.name(ch, ""))
    return _ascii_target(m.group(1)) if m else None


def main() -> int:
    data = json.loads((Path(confusable_homoglyphs.__file__).parent / "confusables.json")
                      .read_text(encoding="utf-8"))
    direct: dict[str, str] = {}
    for ch, homoglyphs in data.items():
        targets = [t for h in homoglyphs if (t := _ascii_target(h["c"])) is not None]
        letters = [t for t in targets if t.isalpha()]
        if targets:
            direct[ch] = (letters or targets)[0]
    named = {ch: t for cp in range(0x80, 0x110000)
             if (t := _from_names(ch := chr(cp))) is not None}
    extra = dict(pair for pair in _EXTRA.split())
    letters: dict[str, str] = {}
    symbols: dict[str, str] = {}
    for cp in range(0x80, 0x110000):
        ch = chr(cp)
        if unicodedata.normalize("NFKD", ch) != ch or _bare(ch) != ch:
            continue  # folded (or its marks dropped) before the table is read
        known = direct.get(ch) or named.get(ch) or extra.get(ch)
        # else one step through the graph: a confusable of a confusable (Cyrillic `в` of `ʙ`)
        target = known or next((t for h in data.get(ch, [])
                                if (t := direct.get(h["c"]) or named.get(h["c"]))), None)
        if target is None or not target.isalpha():
            continue
        cat = unicodedata.category(ch)
        (letters if cat.startswith("L") else symbols)[ch] = target
    marks = _ranges(cp for cp in range(0x300, 0x110000)
                    if unicodedata.category(chr(cp)).startswith("M"))
    OUT.write_text(_render(letters, symbols, marks), encoding="utf-8")
    print(f"{OUT}: {len(letters)} letters, {len(symbols)} symbols, {len(marks)} mark ranges")
    return 0


def _ranges(cps: object) -> list[tuple[int, int]]:
    out: list[tuple[int, int]] = []
    for cp in cps:  # type: ignore[attr-defined]
        if out and out[-1][1] == cp - 1:
            out[-1] = (out[-1][0], cp)
        else:
            out.append((cp, cp))
    return out


def _pairs(table: dict[str, str]) -> str:
    items = [f"{ord(k):x}{v}" for k, v in sorted(table.items())]
    lines = [" ".join(items[i:i + 12]) + " " for i in range(0, len(items), 12)]
    return "\n".join(f'    "{line}"' for line in lines)


def _render(letters: dict[str, str], symbols: dict[str, str],
            marks: list[tuple[int, int]]) -> str:
    parts = [f"{a:x}" + (f"-{b:x}" if b > a else "") for a, b in marks]
    chunks = "\n".join(f'    "{" ".join(parts[i:i + 7])} "' for i in range(0, len(parts), 7))
    return (
        '"""Generated by scripts/gen-lookalikes.py from Unicode\'s confusables (UTS #39) and '
        "character\nnames (Unicode " + unicodedata.unidata_version + "): do not edit.\n\n"
        "Each space-separated item is a code point in hex and the Latin letter it draws (capital\n"
        "I, small l, one and bars are all `l`). `MARKS` lists every combining mark, as hex code\n"
        'points and ranges."""\n\n'
        "LETTERS = (\n" + _pairs(letters) + "\n)\n"
        "SYMBOLS = (\n" + _pairs(symbols) + "\n)\n"
        "MARKS = (\n" + chunks + "\n)\n")


if __name__ == "__main__":
    sys.exit(main())
