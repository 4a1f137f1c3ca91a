"""What the words of `engram save [TYPE] TEXT` mean: the type, the text, or a refusal.

A type word is recognised as an argument of its own, first or last
(`engram save rule "text"`, `engram save "text" rule`); an argument that holds spaces is text as
a whole, so quoting the text always keeps every word of it. A word one edit away from a type
(`rules`, `rlue`) in either place is refused with the spelling meant, as is a type word after
several unquoted words (`engram save Always follow the rule`: a type or the last word of the
text?). Nothing here guesses: a misread type would be saved as text, in the memory for good.
No text, or `-`, means the text comes from stdin (decided by the caller). Pure: no I/O.
"""

from __future__ import annotations

from typing import NamedTuple

from engram.cli.answers import TYPE_WORDS, near_type
from engram.errors import UsageError

STDIN = "-"


class SaveWords(NamedTuple):
    type: str | None  # a TYPE_WORDS entry, or None (inferred from the text)
    text: str | None  # None: read the text from stdin


def split_save_words(words: list[str]) -> SaveWords:
    """The type and text of `engram save`'s positional words, or a UsageError saying what to
    type instead."""
    rest = list(words)
    mtype = rest.pop(0).strip().lower() if rest and _is_type(rest[0]) else None
    if mtype is None and rest:
        _refuse_typo(rest, 0)
    if len(rest) >= 2 and _is_type(rest[-1]):
        last = rest[-1].strip().lower()
        if mtype == last and len(rest) == 2:  # `engram save rule "text" rule`: said twice
            rest.pop()
        elif mtype is not None and len(rest) == 2:
            raise UsageError(f"two types given: {mtype!r} and {last!r}", code="usage.save_type",
                             hint=f"give one: engram save {mtype} {_shown(rest[:-1])}")
        if mtype is None and len(rest) > 2:
            raise UsageError(
                f"{rest[-1]!r} after several words reads as a type, or as the last word of the "
                "text", code="usage.save_type",
                hint=f"to save a {last}: engram save {last} {_shown(rest[:-1])}; to keep the "
                f"word, quote the whole text: engram save {_shown(rest)}")
        if mtype is None:
            mtype = last
            rest.pop()
    if len(rest) == 2:  # `engram save "text" rlue`: a word after the quoted text
        _refuse_typo(rest, 1, mtype)
    if not rest or rest == [STDIN]:
        return SaveWords(mtype, None)
    return SaveWords(mtype, " ".join(rest))


def _refuse_typo(rest: list[str], at: int, given: str | None = None) -> None:
    word = rest[at].strip()
    meant = None if " " in word else near_type(word)
    if meant is None:
        return
    others = rest[:at] + rest[at + 1:]
    shown = _shown(others) if others else '"…"'
    typed = given or meant
    raise UsageError(
        f"{rest[at]!r} is not a type; did you mean {meant}?", code="usage.save_type",
        hint=f"engram save {typed} {shown} (types: rule, skill, knowledge; to keep "
        f"{rest[at]!r} as text, quote the whole text as one argument)")


def _is_type(word: str) -> bool:
    return word.strip().lower() in TYPE_WORDS


def _shown(words: list[str]) -> str:
    """The words as one quoted shell argument, cut for a message."""
    text = " ".join(words)
    if len(text) > 60:
        text = text[:57].rstrip() + "…"
    return '"' + text.replace('"', '\\"') + '"'
