"""Query and document terms: tokenising, stop words, generic memory words and stemming.

One function, `stems(text)`, turns any text into the terms both the index and the query use, so
`tests`, `testing` and `tested` all meet at `test`. `anchors(query)` keeps only the meaningful query
terms (docs/reading.md "How ranking works", step 1): stop words and generic memory words (`memory`,
`rule`, `skill`, `agent`, …) never anchor, so a query made only of them routes nothing. The stemmer
is Snowball's English stemmer (PyStemmer's C build, ~0.6 ms to import); it knows nothing about any
fixture's vocabulary. A hand-written suffix stripper used before it made errors a standard stemmer
does not (`speed` → `spe`, `line` → `lin`, `banner` → `ban`). This module does not rank and does not
touch the index.
"""

from __future__ import annotations

import re
from functools import lru_cache

import Stemmer

_TOKEN = re.compile(r"[a-z0-9]+")

_STOP_TEXT = """
a about above after again against all also am an and any are as at be because been before being
below between both but by can could did do does doing done down during each either else etc ever
every few for from further get gets getting go going got had has have having he her here hers him
his how i if in into is it its itself just know knows let lets like may me might mine more most
much must my need needs no nor not now of off ok okay on once one only onto or other our ours out
over own per please same say says shall she should show so some such tell than that the their
theirs them then there these they think this those through thus to too under until up upon us use
used using very via want wants was we were what when where whether which while who whom whose why
will with within without would yet you your yours
"""
STOP_WORDS = frozenset(_STOP_TEXT.split())

# Words that describe Engram itself rather than a project's subject: they never anchor a route.
_GENERIC_TEXT = """
agent agents ai applies apply assistant context engram guideline guidelines help instruction
instructions knowledge load loads memories memory note notes recall regarding related relevant
remember rule rules skill skills stuff task tasks thing things work
"""
GENERIC_WORDS = frozenset(_GENERIC_TEXT.split())

_SNOWBALL = Stemmer.Stemmer("english")

def tokens(text: str) -> list[str]:
    """Lower-case alphanumeric runs; ids such as `run-smoke-suite` split into their words."""
    return _TOKEN.findall(text.lower())


@lru_cache(maxsize=65536)
def stem(word: str) -> str:
    """The Snowball English stem of a word (`deployment` → `deploy`, `migrations` → `migrat`);
    words with digits and words of three letters or fewer stay whole."""
    if len(word) <= 3 or not word.isalpha():
        return word
    return str(_SNOWBALL.stemWord(word))


def stems(text: str) -> list[str]:
    """Every token of `text` stemmed, stop words included (documents keep all their words)."""
    return [stem(t) for t in tokens(text)]


def is_meaningful(token: str) -> bool:
    return token not in STOP_WORDS and token not in GENERIC_WORDS and len(token) > 1


def anchors(query: str) -> list[str]:
    """The distinct stemmed anchor terms of a query, in first-seen order."""
    seen: dict[str, None] = {}
    for tok in tokens(query):
        if is_meaningful(tok):
            seen.setdefault(stem(tok), None)
    return list(seen)


def anchor_words(query: str) -> list[str]:
    """The words of a query as the user wrote them (lower-cased), one per distinct anchor, in
    first-seen order: what messages quote (`xyzzy`, not its stem `xyzzi`)."""
    seen: dict[str, str] = {}
    for tok in tokens(query):
        if is_meaningful(tok):
            seen.setdefault(stem(tok), tok)
    return list(seen.values())


# Where one subject of a task ends and another begins ("bump kotlin and fix the flaky test",
# "rotate the key, then redeploy"): conjunctions and clause punctuation.
_CLAUSE_BREAK = re.compile(r"\b(?:and|also|but|plus|then)\b|[,;:]|\.(?:\s|$)", re.IGNORECASE)
CLAUSE_MIN_ANCHORS = 2  # a clause of one meaningful word is not a subject of its own


def clauses(query: str) -> list[str]:
    """The parts of a task that could each be a subject of its own: the text between
    conjunctions and clause punctuation, keeping parts of at least two anchors. Empty when
    fewer than two such parts (a task with one subject)."""
    parts = [p.strip() for p in _CLAUSE_BREAK.split(query)]
    kept = [p for p in parts if len(anchors(p)) >= CLAUSE_MIN_ANCHORS]
    return kept if len(kept) >= 2 else []


def word_pairs(query: str) -> list[tuple[str, str]]:
    """Neighbouring anchor stems of a query as the index stores text (stop words dropped, so
    "rotate the api key" gives `(rotat, api)`, `(api, key)`), distinct, in first-seen order:
    the phrases a memory about the same thing is likely to contain word for word."""
    seq = [(stem(t), is_meaningful(t)) for t in tokens(query)]
    seq = [(s, ok) for s, ok in seq if s not in STOP_WORDS]
    pairs: dict[tuple[str, str], None] = {}
    for (a, a_ok), (b, b_ok) in zip(seq, seq[1:], strict=False):
        if a_ok and b_ok and a != b and a.isalnum() and b.isalnum():
            pairs.setdefault((a, b), None)
    return list(pairs)


def one_edit(a: str, b: str) -> bool:
    """Whether `b` is `a` with one letter changed, added or dropped, or two neighbours swapped."""
    if a == b or abs(len(a) - len(b)) > 1:
        return False
    if len(a) == len(b):
        diff = [i for i, (x, y) in enumerate(zip(a, b, strict=True)) if x != y]
        return len(diff) == 1 or (len(diff) == 2 and diff[1] == diff[0] + 1
                                  and a[diff[0]] == b[diff[1]] and a[diff[1]] == b[diff[0]])
    short, long = (a, b) if len(a) < len(b) else (b, a)
    i = next((k for k, (x, y) in enumerate(zip(short, long, strict=False)) if x != y),
             len(short))
    return short[i:] == long[i + 1:]
