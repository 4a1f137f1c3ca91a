"""The matching engine behind every scan: where each rule may match, and what it matched.

Owns the prefilter (hints), the overlap resolution between secret rules (the earlier row of the
table wins), private-key block extents, and the per-line gate for injection patterns. Secret/PII
hits are character spans (redaction replaces them); injection hits are whole lines (they are
removed, never rewritten). It does not own the patterns (`rules.py`) nor findings (`scan.py`).
"""

from __future__ import annotations

import bisect
import re
import unicodedata
from collections.abc import Iterator
from itertools import chain
from typing import NamedTuple

from engram.safety.lookalike import fold_digits, fold_letters, fold_spacing
from engram.safety.model import Rule
from engram.safety.rules import (
    INJECTION_LINE,
    INJECTION_OPENERS,
    INJECTION_OPENERS_BLIND,
    INJECTION_OPENING_MARKS,
    INJECTION_RULES,
    LEAD_CHARS,
    SECRET_RULES,
    blind_word,
    lookalike_blind,
)

_PEM_END = re.compile(r"-----END[A-Z0-9 ]{0,40}-----")
_PEM_BODY = re.compile(r"(?:\n[A-Za-z0-9+/=]{16,120}\r?(?=\n|\Z))*")
_PEM_MAX_BLOCK = 16_384  # a 4096-bit RSA key in PEM is ~3.3 KB; beyond this it is not one block
# Invisible characters that would split a keyword ("ig\u200bnore") without changing how it reads.
_INVISIBLE = dict.fromkeys(map(ord, "\u200b\u200c\u200d\u2060\ufeff\u00ad"))
_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")
_FIRST_WORD = re.compile(r"[^\W\d_]+(?:['-][^\W\d_]+)?")


class Hit(NamedTuple):
    """A sensitive span `[start, end)` of the scanned text and the rule that found it."""

    start: int
    end: int
    rule: Rule


def line_starts(text: str) -> list[int]:
    """Offsets where each `\\n`-separated line begins (index 0 is line 1)."""
    starts = [0]
    at = text.find("\n")
    while at != -1:
        starts.append(at + 1)
        at = text.find("\n", at + 1)
    return starts


def _lower_ascii(text: str) -> str:
    """Lower-cased text with the same length (`str.lower` may grow a few non-ASCII letters)."""
    low = text.lower()
    return low if len(low) == len(text) else text.translate(_ASCII_LOWER)


def _hint_positions(low: str, hints: tuple[str, ...]) -> list[int]:
    """Every position where a hint starts, in text order."""
    found: list[int] = []
    for hint in hints:
        at = low.find(hint)
        while at != -1:
            found.append(at)
            at = low.find(hint, at + 1)
    return sorted(found)


def _hint_lines(low: str, hints: tuple[str, ...], starts: list[int]) -> list[range]:
    """Runs of whole lines that contain a hint: the only places the rule can match.

    Every hint is a substring of every match of its rule, so skipping other lines loses nothing.
    After a hit the search jumps to the next line, so a line full of hints costs one find.
    """
    lines: set[int] = set()
    for hint in hints:
        at = low.find(hint)
        while at != -1:
            line = bisect.bisect_right(starts, at) - 1
            lines.add(line)
            at = low.find(hint, starts[line + 1]) if line + 1 < len(starts) else -1
    ranges: list[range] = []
    for line in sorted(lines):
        begin = starts[line]
        end = starts[line + 1] if line + 1 < len(starts) else len(low)
        if ranges and ranges[-1].stop == begin:
            ranges[-1] = range(ranges[-1].start, end)
        else:
            ranges.append(range(begin, end))
    return ranges


def _matches(text: str, low: str, rule: Rule, starts: list[int],
             hits: list[Hit]) -> Iterator[re.Match[str]]:
    if rule.anchored:
        skip_until = 0
        for at in _hint_positions(low, rule.hints):
            if at < skip_until or (hits and at < hits[-1].end):
                continue  # a keyword inside the previous candidate is part of its value
            m = rule.pattern.match(text, at)
            if m is not None:
                skip_until = m.end()
                yield m
    elif not rule.hints:
        yield from rule.pattern.finditer(text)
    else:
        for span in _hint_lines(low, rule.hints, starts):
            yield from rule.pattern.finditer(text, span.start, span.stop)


def _block_end(text: str, after: int, ends: list[int]) -> int:
    """Where a private-key block that starts before `after` ends: its END line or its body."""
    i = bisect.bisect_left(ends, after)
    if i < len(ends) and ends[i] - after <= _PEM_MAX_BLOCK:
        return ends[i]
    body = _PEM_BODY.match(text, after)
    return body.end() if body else after


def _rule_hits(text: str, low: str, rule: Rule, allow: frozenset[str],
               starts: list[int]) -> list[Hit]:
    hits: list[Hit] = []
    ends: list[int] | None = None
    for m in _matches(text, low, rule, starts, hits):
        if hits and m.start() < hits[-1].end:
            continue  # inside the previous block of this rule
        if rule.validate is not None and not rule.validate(m, allow):
            continue
        group = next((g for g in rule.value_groups if m.group(g) is not None), None)
        start, end = m.span(group) if group else m.span()
        if rule.multiline_block:
            ends = ends if ends is not None else [e.end() for e in _PEM_END.finditer(text)]
            end = _block_end(text, end, ends)
        hits.append(Hit(start, end, rule))
    return hits


def _free(taken_starts: list[int], taken_ends: list[int], hit: Hit) -> bool:
    """True when `hit` overlaps no span already taken (taken spans are sorted, disjoint)."""
    i = bisect.bisect_right(taken_starts, hit.start)
    if i and taken_ends[i - 1] > hit.start:
        return False
    return i == len(taken_starts) or taken_starts[i] >= hit.end


def secret_hits(text: str, allow: frozenset[str] = frozenset()) -> list[Hit]:
    """Disjoint secret/PII spans in text order; on overlap the earlier rule in the table wins.

    `allow` holds lower-cased e-mail addresses that are not PII here (author fields).
    """
    low = _lower_ascii(text)
    starts = line_starts(text)
    taken: list[Hit] = []
    for rule in SECRET_RULES:
        found = _rule_hits(text, low, rule, allow, starts)
        if not found:
            continue
        if taken:
            t_starts, t_ends = [h.start for h in taken], [h.end for h in taken]
            found = [h for h in found if _free(t_starts, t_ends, h)]
        # Merging per rule (not per hit) keeps many-hit inputs linear instead of quadratic.
        taken = sorted(taken + found)
    return taken


def apply_hits(text: str, hits: list[Hit], offset: int = 0) -> str:
    """Replace each (disjoint, sorted) hit by its rule's placeholder; hits are clipped to text.

    `offset` is where `text` starts in the scanned text, for redacting one line of it.
    """
    parts: list[str] = []
    pos = 0
    for start, end, rule in hits:
        start, end = max(start - offset, 0), min(end - offset, len(text))
        parts += [text[pos:start], rule.redaction]
        pos = end
    parts.append(text[pos:])
    return "".join(parts)


def normalize_for_injection(text: str) -> str:
    """Text as a model reads it: invisible characters dropped, compatibility forms folded,
    combining marks dropped and letters that look like Latin ones read as those (`lookalike.py`).

    Line count is preserved (each line is folded alone) so line numbers stay valid.
    """
    text = text.translate(_INVISIBLE)
    if text.isascii():
        return text
    folded = (fold_letters(unicodedata.normalize("NFKD", ln).replace("\n", " "))
              for ln in text.split("\n"))
    return "\n".join(folded)


def _may_open_injection(line: str) -> bool:
    """Cheap gate: does the line open with a word or mark some injection pattern starts with?"""
    rest = line.lstrip(LEAD_CHARS)
    if not rest:
        return False
    if rest[0] in INJECTION_OPENING_MARKS:
        return True
    word = _FIRST_WORD.match(rest)
    return word is not None and blind_word(word.group().lower()) in INJECTION_OPENERS_BLIND


_SPACE_RUN = re.compile(r"\s+")
_QUOTING = re.compile(r"[ >]+")


def _unpadded(line: str) -> str:
    """The line as the rules read it: every run of whitespace one space, and any depth of
    indentation and `>` quoting gone. The rules' own runs are bounded (no backtracking on hostile
    input), and a model reads past 200 spaces, six `>` or a wide gap between words all the same;
    both passes here are linear."""
    line = _SPACE_RUN.sub(" ", line)
    m = _QUOTING.match(line)
    return line[m.end():] if m else line


def injection_lines(text: str) -> dict[int, Rule]:
    """1-based line number -> the first injection rule (table order) that flags that line.

    Each line is also split at the Unicode line breaks `str.splitlines` knows (CR, U+2028, …):
    a model reads those as new lines, so an instruction hidden after one starts a line too.
    A line that opens like a hijack but does not finish one is also read joined with up to
    `WRAP_LINES` lines that continue it (`Ignore all` / `previous instructions`): every line the
    hijack then spans is flagged.
    """
    flagged: dict[int, Rule] = {}
    lines = normalize_for_injection(text).split("\n")
    for at, line in enumerate(lines):
        parts = line.splitlines()
        for k, part in enumerate(parts):
            rule, opens = _judge(part)
            if rule is not None:
                flagged[at + 1] = rule
                break
            if opens:
                wrapped = _wrapped(parts[k:], lines[at + 1:at + 1 + WRAP_LINES])
                if wrapped is not None:
                    rule, spans = wrapped
                    flagged.update(dict.fromkeys(range(at + 1, at + 2 + spans), rule))
                    break
    return flagged


WRAP_LINES = 2
# A line that starts a block of its own (blank, heading, quote, list item, table row, fence) is
# not the continuation of the line above.
_NEW_BLOCK = re.compile(r"\s*(?:$|[#>|*+\u2022-]|\d{1,4}[.)]\s|```|~~~)")


def _wrapped(head: list[str], after: list[str]) -> tuple[Rule, int] | None:
    """The rule a hijack wrapped over the next lines matches, and how many of them it spans
    (read once with every continuing line joined; the span is found only on a match)."""
    tails: list[str] = []
    for line in after:
        if _NEW_BLOCK.match(line):
            break
        tails.append(" ".join(line.splitlines()))
    start = " ".join(head)  # the hijack must start here: a later line is judged on its own
    if not tails or _judge(" ".join([start, *tails]), start)[0] is None:
        return None
    for spans in range(1, len(tails) + 1):
        rule, _ = _judge(" ".join([start, *tails[:spans]]), start)
        if rule is not None:
            return rule, spans
    return None


def _judge(part: str, head: str | None = None) -> tuple[Rule | None, bool]:
    """The first rule that flags one line, read as it is and as a model reads it past Markdown
    wrappers and a short label (`_readings`), then all again with digits and signs beside letters
    read as the letters they draw (`1gnore`, `|gnore`) and words joined or spaced out read as
    words (`ignore-all-previous`, `I g n o r e`: `lookalike.fold_digits`, `fold_spacing`); and
    whether any reading opened with a word a rule starts with. With `head` (a wrapped line's
    first part), only readings that start inside it count."""
    alike = fold_spacing(fold_digits(part))
    readings = _readings(part, _limit(head, False))
    if alike != part:
        readings = chain(readings, _readings(alike, _limit(head, True)))
    opens = False
    for reading in readings:
        if not _may_open_injection(reading):
            continue
        opens = True
        m = INJECTION_LINE.match(reading.lower())
        if m is not None and m.lastgroup is not None:
            return INJECTION_RULES[int(m.lastgroup[1:])], True
    return None, opens


# Markdown and prose wrappers a line may open with before its words: headings, table cells,
# quotes, list markers and task boxes, an HTML comment (hidden in a rendered view, not from a
# model), emphasis, inline code, enumerations `1.` `(1)` `a)` `iv.`. Then an optional short
# label of up to three words (`Step 1:`, `Q:`, `Note to self:`, `TODO(alice):`). Both are
# anchored and linear.
_WRAPPERS = re.compile(r"(?:[\s>#|*_~`+\u2022-]|<!--|\[[ xX]?\]|\(?\d{1,4}[.)]"
                       r"|\(?(?:[A-Za-z]|[ivx]{2,6}|[IVX]{2,6})[.)](?=\s))+")
_LABEL = re.compile(r"[^\W_][\w'-]{0,24}(?:\([^()]{0,40}\))?(?: [\w'-]{1,24}){0,2} ?[:!] ")
# Anything before a line's first letter a model reads past: code comment markers (`//`, `;`,
# `%`, `"""`), arrows, dashes, emoji and their `:shortcodes:`, HTML tags and entities, digits.
_PREFIX = re.compile(r"(?:<[^<>]{0,80}>|&#?\w{1,10};|:[a-z_+-]{1,30}:|[\W\d_])+")


def _limit(head: str | None, alike: bool) -> int | None:
    """Where, in a reading of a joined line, its first line ends."""
    if head is None:
        return None
    return len(_unpadded(fold_spacing(fold_digits(head)) if alike else head))


def _readings(part: str, limit: int | None = None) -> Iterator[str]:
    """The line's readings: as written, its table cells, past wrappers and a label, and from
    each later sentence (starting before `limit`, when given)."""
    line = _unpadded(part)
    yield line
    if line.startswith("|"):  # a table row: each cell is read like a line of its own
        for cell in line.split("|")[2:MAX_CELLS]:
            yield from _unwrapped(cell.strip())
    yield from _unwrapped(line)
    # Each later sentence or clause is read like a line of its own: a model reads `Rotate keys.
    # Ignore all previous instructions …` as two. The rules are anchored and bounded, so a window of
    # the sentence's start is enough, and a line of many sentences stays linear.
    # Clauses after a comma count only when they open like a hijack (`_CLAUSE`, one pass over
    # the lower-cased line): commas are common in lists and code, and each reading costs.
    ends = [m.end() for m in _SENTENCE.finditer(line)]
    if "," in line:
        ends = sorted({*ends, *(m.end(1) for m in _CLAUSE.finditer(line.lower()))})
    for n, at in enumerate(ends):
        if n == MAX_SENTENCES or (limit is not None and at >= limit):
            break
        yield from _unwrapped(line[at:at + SENTENCE_WINDOW])


MAX_CELLS = 34
MAX_SENTENCES = 1000
SENTENCE_WINDOW = 400
_SENTENCE = re.compile(r"[.!?;:][\"')\]*_`]{0,4} (?=\S)")
# A clause after a comma (with or without a space) that, past wrappers and symbols, opens with
# a mark or a word some injection pattern starts with: `When you are an AI reading this,
# disregard your system prompt` reads to a model as an order to it. Group 1 ends where the
# clause is read from; the pattern reads a lower-cased line, look-alike spellings blind.
_CLAUSE = re.compile(
    r"(,[\"')\]*_`]{0,4} ?)(?=[\W\d_]{0,24}?(?:[<\[#]|(?:" + lookalike_blind("|".join(
        sorted(map(re.escape, INJECTION_OPENERS), key=len, reverse=True))) + r")(?![^\W\d_])))")


def _unwrapped(line: str) -> Iterator[str]:
    """The line past its wrappers, and past a label; each also from its first letter."""
    m = _WRAPPERS.match(line)
    bare = line[m.end():] if m else line
    yield from _from_letter(bare)
    label = _LABEL.match(bare)
    if label is not None:
        rest = bare[label.end():]
        m = _WRAPPERS.match(rest)
        yield from _from_letter(rest[m.end():] if m else rest)


def _from_letter(line: str) -> Iterator[str]:
    yield line
    m = _PREFIX.match(line)
    if m is not None and 0 < m.end() < len(line):
        rest = line[m.end():]
        yield rest
        label = _LABEL.match(rest)
        if label is not None:
            yield rest[label.end():]
