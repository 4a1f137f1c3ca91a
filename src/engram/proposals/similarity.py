"""Word-set similarity for write-time verdicts (docs/saving.md): content words, stemming, polarity.

A memory or candidate is reduced to the set of stemmed content words of its title and Content;
two texts are compared with the Jaccard index of those sets. Polarity words (always/must/use/
prefer versus never/avoid/don't/no longer/deprecated) count as content words, and a text's
polarity is derived from them so verdicts can tell "always X" from "never X".

This module is pure and deterministic. It does not rank search results (search/ owns that) and
does not know thresholds or verdict rules (verdicts.py).
"""

from __future__ import annotations

import re
import unicodedata
from typing import Literal

Polarity = Literal["positive", "negative", "neutral"]

# Multi-word polarity phrases are folded into one token before splitting, so "do not use X"
# reads as negative rather than as "use X".
_PHRASES: tuple[tuple[str, str], ...] = (
    (r"\bdo\s+not\b", " dont "),
    (r"\bdon['’]?t\b", " dont "),
    (r"\bmust\s+not\b", " mustnt "),
    (r"\bmustn['’]?t\b", " mustnt "),
    (r"\bshould\s+not\b", " shouldnt "),
    (r"\bshouldn['’]?t\b", " shouldnt "),
    (r"\bno\s+longer\b", " nolonger "),
    (r"\bstop\s+using\b", " nolonger "),
    (r"\bdeprecat\w*", " deprecat "),
)
# All phrases in one pass. Applying them one after another gives the same words: a replacement
# never makes another phrase match except itself again (" dont " is `don't` without the
# apostrophe), and callers only split the result into words, so spacing does not matter. Every
# phrase starts at a word boundary with one of a few letters; checking those once per position
# makes the pass ~6x faster than nine separate substitutions.
_PHRASE = re.compile(
    r"\b(?=[" + "".join(sorted({p[2] for p, _ in _PHRASES})) + "])(?:"
    + "|".join(f"({pattern.removeprefix(chr(92) + 'b')})" for pattern, _ in _PHRASES) + ")")
_PHRASE_OUT = tuple(repl for _, repl in _PHRASES)
POSITIVE: frozenset[str] = frozenset({"always", "must", "use", "prefer"})
NEGATIVE: frozenset[str] = frozenset(
    {"never", "avoid", "dont", "mustnt", "shouldnt", "nolonger", "deprecat"}
)
POLARITY_WORDS = POSITIVE | NEGATIVE

STOP_WORDS: frozenset[str] = frozenset(str.split(
    """a an the and or but if then else of to in on at by for from with without into onto over
    under is are was were be been being am do does did has have had having it its this that these
    those there here we you they i he she them our your their my me us as so such than too very
    can could should would may might will shall not no nor only own same just also any all each
    every both few more most other some what which who whom whose when where why how about above
    below before again further once while during until up down out off via per e g ie eg etc
    """
))

_WORD = re.compile(r"[a-z0-9]+")
_SUFFIXES: tuple[str, ...] = (
    "ational", "ization", "fulness", "iveness", "ements", "ement", "ments", "ment",
    "ations", "ation", "ingly", "edly", "ings", "ing", "ies", "ied", "ers", "er", "ed", "es",
    "ly", "s",
)


# Words repeat across memories: a save that computes the words of thousands of memories looks
# most stems up instead of stripping suffixes again.
_STEMS: dict[str, str] = {}
_STEMS_MAX = 65536


def stem(word: str) -> str:
    """A small suffix stripper: stable, cheap, good enough to match run/runs/running."""
    got = _STEMS.get(word)
    if got is None:
        if len(_STEMS) >= _STEMS_MAX:
            _STEMS.clear()
        got = _STEMS[word] = _strip(word)
    return got


def _strip(word: str) -> str:
    if len(word) <= 3 or word.isdigit():
        return word
    for suffix in _SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            base = word[: -len(suffix)]
            if suffix in {"ies", "ied"}:
                return base + "y"
            if suffix in {"ing", "ed", "er", "ers", "ings"} and len(base) > 3 \
                    and base[-1] == base[-2] and base[-1] not in "lsz":
                base = base[:-1]  # running -> run, stopped -> stop
            return _drop_e(base)
    return _drop_e(word)


def _drop_e(word: str) -> str:
    # release/releases/released all meet at "releas"
    return word[:-1] if len(word) > 4 and word.endswith("e") else word


def normalise(text: str) -> str:
    """Lower-case, accent-free, polarity phrases folded; used for equality and tokenising."""
    if text.isascii():
        folded = text.lower()  # NFKD leaves ASCII as it is
    else:
        folded = unicodedata.normalize("NFKD", text)
        folded = "".join(c for c in folded if not unicodedata.combining(c)).lower()
    return _PHRASE.sub(_fold_phrase, folded)


def _fold_phrase(match: re.Match[str]) -> str:
    return _PHRASE_OUT[(match.lastindex or 1) - 1]


def words(text: str) -> list[str]:
    """Stemmed content words in order (stop words dropped, polarity words kept)."""
    out: list[str] = []
    for raw in _WORD.findall(normalise(text)):
        if raw in STOP_WORDS or (len(raw) < 2 and not raw.isdigit()):
            continue
        out.append(raw if raw in POLARITY_WORDS else stem(raw))
    return out


def word_set(text: str) -> frozenset[str]:
    return frozenset(words(text))


def without_polarity(terms: frozenset[str]) -> frozenset[str]:
    return frozenset(t for t in terms if t not in POLARITY_WORDS)


def jaccard(a: frozenset[str], b: frozenset[str]) -> float:
    if not a and not b:
        return 1.0
    return len(a & b) / len(a | b)


def polarity(terms: frozenset[str]) -> Polarity:
    """Negative wins when both kinds occur: "use X, never Y" forbids something."""
    if terms & NEGATIVE:
        return "negative"
    if terms & POSITIVE:
        return "positive"
    return "neutral"


def opposite(a: Polarity, b: Polarity) -> bool:
    return {a, b} == {"positive", "negative"}


def content_key(text: str) -> str:
    """Normalised content for the "equal content" NOOP test: words only, single spaces."""
    return " ".join(_WORD.findall(normalise(text)))
