"""The human's answer to a save preview: strict parsing, and a forgiving terminal dialog.

An answer is `A` (all), `A 1,3`, `B <note>` or `C`. Piped or `--answer` answers are parsed
strictly (a script that says `y` gets a usage error, never a guess). A person at a terminal who
types `y`/`yes` or `n`/`no` is asked once more with the legend, and Enter then confirms what the
word meant (`A` or `C`); anything else unreadable is re-asked too. Pure apart from the `ask`
callable, so the dialog is tested without a terminal.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import NamedTuple

from engram.errors import UsageError

ANSWER_HELP = "A = save all, A 1,3 = save those, B <note> = save all with a note, C = cancel"
_ANSWER = re.compile(r"^\s*([abc])\b\s*(.*)$", re.I | re.S)
# Natural words a person types at a yes/no-looking prompt, and the answer each one means.
NATURAL = {"y": "A", "yes": "A", "n": "C", "no": "C"}
_MEANING = {"A": "save all", "C": "cancel"}
MAX_TRIES = 3
TYPE_WORDS = ("rule", "skill", "knowledge", "workflow")


class Answer(NamedTuple):
    letter: str  # "A", "B" or "C"
    rest: str  # numbers after A, the note after B


def parse(answer: str) -> Answer:
    """A strict answer; anything else is a usage error naming the legend."""
    m = _ANSWER.match(answer)
    if not m:
        meant = NATURAL.get(answer.strip().lower())
        hint = ANSWER_HELP if meant is None else (
            f"a piped answer must be a letter: {meant} means {_MEANING[meant]}; {ANSWER_HELP}")
        raise UsageError(f"unknown answer {answer!r}", code="usage.answer", hint=hint)
    letter, rest = m.group(1).upper(), m.group(2).strip()
    if letter == "B" and not rest:
        raise UsageError("B needs a note", code="usage.answer", hint="answer `B <your note>`")
    return Answer(letter, rest)


def ask_terminal(ask: Callable[[str], str]) -> str | None:
    """Ask at a terminal until the answer parses; None when the person gives no answer.

    `ask(prompt)` returns one typed line (EOFError counts as no answer)."""
    prompt = f"Save? [{ANSWER_HELP}]: "
    meant: str | None = None
    for _ in range(MAX_TRIES):
        try:
            typed = ask(prompt).strip()
        except EOFError:
            return None
        if not typed:
            return meant  # Enter confirms what `y`/`n` meant; at the first prompt, no answer
        word = typed.lower()
        if meant is not None and NATURAL.get(word) == meant:
            return meant
        if _ANSWER.match(typed) and not (typed[:1] in "bB" and not typed[1:].strip()):
            return typed
        meant = NATURAL.get(word)
        if meant is not None:
            prompt = (f"`{typed}` means {meant} ({_MEANING[meant]}). Press Enter for {meant}, "
                      f"or answer [{ANSWER_HELP}]: ")
        else:
            prompt = f"{typed!r} is not an answer. Answer [{ANSWER_HELP}]: "
    return None


def near_type(word: str) -> str | None:
    """The type word one edit (insert, delete, replace, swap) away from `word`, if any."""
    w = word.lower()
    if w in TYPE_WORDS:
        return None
    for t in TYPE_WORDS:
        if _one_edit(w, t):
            return t
    return None


def _one_edit(a: str, b: str) -> bool:
    if abs(len(a) - len(b)) > 1 or a == b:
        return False
    if len(a) == len(b):
        diff = [i for i in range(len(a)) if a[i] != b[i]]
        return len(diff) == 1 or (len(diff) == 2 and diff[1] == diff[0] + 1
                                  and a[diff[0]] == b[diff[1]] and a[diff[1]] == b[diff[0]])
    short, long_ = (a, b) if len(a) < len(b) else (b, a)
    i = next((k for k in range(len(short)) if short[k] != long_[k]), len(short))
    return short[i:] == long_[i + 1:]
