"""Query and document terms: tokenising, stop words, generic memory words and a small stemmer.

One function, `stems(text)`, turns any text into the terms both the index and the query use, so
`tests`, `testing` and `tested` all meet at `test`. `anchors(query)` keeps only the meaningful
query terms (§6.1.2): stop words and generic memory words (`memory`, `rule`, `skill`, `agent`, …)
never anchor, so a query made only of them routes nothing. The stemmer is a deliberately small,
general English suffix stripper; it knows nothing about any fixture's vocabulary.
This module does not rank and does not touch the index.
"""

from __future__ import annotations

import re
from functools import lru_cache

_TOKEN = re.compile(r"[a-z0-9]+")
_VOWELS = frozenset("aeiouy")

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

_INFLECTIONS = (("ingly", ""), ("edly", ""), ("ings", ""), ("ing", ""), ("ied", "y"), ("ed", ""))
# Derivational endings, longest first, so a noun and its verb collapse onto one root.
_DERIVATIONS = tuple(sorted({
    "ational": "", "ization": "", "isation": "", "ation": "", "ition": "", "tion": "t",
    "ement": "", "ment": "", "ness": "", "ities": "", "ity": "", "able": "", "ible": "",
    "ably": "", "izer": "", "ize": "", "ise": "", "ate": "", "ative": "", "ive": "", "ency": "",
    "encies": "", "ence": "", "ancy": "", "ance": "", "ent": "", "ful": "", "less": "", "ally": "",
    "ly": "", "al": "", "ers": "", "er": "", "ors": "", "or": "",
}.items(), key=lambda kv: -len(kv[0])))
# Some endings only come off a long root: `deployment` → `deploy`, but `document` and `apply`
# stay whole.
_LONG_ROOT = frozenset({"ment", "ent", "ly"})


def tokens(text: str) -> list[str]:
    """Lower-case alphanumeric runs; ids such as `run-smoke-suite` split into their words."""
    return _TOKEN.findall(text.lower())


@lru_cache(maxsize=65536)
def stem(word: str) -> str:
    """Reduce an English word to a root shared by its inflections and close derivations."""
    w = word
    if len(w) <= 3 or not w.isalpha():
        return w
    if w.endswith("sses"):
        w = w[:-2]
    elif w.endswith("ies") and len(w) > 4:
        w = w[:-3] + "y"
    elif w.endswith("s") and not w.endswith(("ss", "us", "is")):
        w = w[:-1]
    w = _strip_inflection(w)
    for suffix, repl in _DERIVATIONS:
        if w.endswith(suffix):
            base = w[: -len(suffix)] + repl
            if _is_root(base, 5 if suffix in _LONG_ROOT else 3):
                w = base
            break
    if w.endswith("e") and len(w) > 3:
        w = w[:-1]
    if len(w) > 3 and w[-1] == w[-2] and w[-1] not in "lsz" and w[-1] not in _VOWELS:
        w = w[:-1]
    if w.endswith("y") and len(w) > 3 and w[-2] not in _VOWELS:
        w = w[:-1] + "i"
    return w


def _strip_inflection(w: str) -> str:
    for suffix, repl in _INFLECTIONS:
        if w.endswith(suffix):
            base = w[: -len(suffix)] + repl
            if not _is_root(base, 3):
                return w
            # Porter's rule: `migrating` → `migrate` so the derivation step treats it as a verb.
            return base + "e" if base.endswith(("at", "bl", "iz")) else base
    return w


def _is_root(base: str, min_len: int) -> bool:
    return len(base) >= min_len and any(c in _VOWELS for c in base)


def stems(text: str) -> list[str]:
    """Every token of `text` stemmed, stop words included (documents keep all their words)."""
    return [stem(t) for t in tokens(text)]


def is_meaningful(token: str) -> bool:
    return token not in STOP_WORDS and token not in GENERIC_WORDS and len(token) > 1


def anchors(query: str) -> list[str]:
    """The distinct stemmed anchor terms of a query, in first-seen order (§6.1.2)."""
    seen: dict[str, None] = {}
    for tok in tokens(query):
        if is_meaningful(tok):
            seen.setdefault(stem(tok), None)
    return list(seen)

