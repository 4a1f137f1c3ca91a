"""`loads`: tomllib.loads for TOML anyone may have written (`~/.codex/config.toml`, a project's
`.codex/config.toml`, Gemini policy files).

Two shapes of text stop tomllib itself rather than failing as a TOML error: it recurses once per
nested array or inline table, so a few hundred `[` raise RecursionError (which handlers of
TOMLDecodeError miss, so `engram doctor` aborted); and it keeps state per prefix of a dotted key,
so one key of 100,000 parts (`a.a.a…`, 200 kB, in a workspace's own `.codex/config.toml`) takes
memory quadratic in its length, tens of gigabytes. A linear scan refuses both before tomllib
runs, and each refusal is a TOMLDecodeError like any other fault of the text. The scan skips
strings and comments the way TOML does; outside them it counts open brackets and the parts of
a dotted chain (bare or quoted parts joined by `.`), which a real config keeps to a handful.
"""

from __future__ import annotations

import sys
import tomllib
from typing import Any

MAX_DEPTH = 100  # arrays and inline tables inside each other
MAX_KEY_PARTS = 100  # parts of one dotted key or table header
_CHAIN = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_- \t.")


def loads(text: str) -> dict[str, Any]:
    """Parse TOML; raise `tomllib.TOMLDecodeError` for any text it refuses, never RecursionError
    or a runaway allocation."""
    why = refusal(text)
    if why is not None:
        raise _error(why, text)
    try:
        return tomllib.loads(text)
    except RecursionError as exc:  # the scan's limits leave a wide margin; kept as a last guard
        raise _error("nested too deeply", text) from exc


def refusal(text: str) -> str | None:
    """Why `loads` refuses the text before parsing it, or None."""
    depth = dots = 0
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c in "\"'":
            i = _string_end(text, i)
            continue  # a quoted key part: the chain goes on through it
        if c == "#":
            end = text.find("\n", i)
            i, dots = (n if end < 0 else end), 0
            continue
        if c == ".":
            dots += 1
            if dots >= MAX_KEY_PARTS:
                return f"a dotted key has more than {MAX_KEY_PARTS} parts"
        elif c not in _CHAIN:
            dots = 0
        if c in "[{":
            depth += 1
            if depth > MAX_DEPTH:
                return f"nested more than {MAX_DEPTH} levels deep"
        elif c in "]}":
            depth = max(0, depth - 1)
        i += 1
    return None


def _string_end(text: str, i: int) -> int:
    """The index just past the string that starts at `i` (basic, literal, or their multi-line
    forms); an unclosed one runs to the end of its line (single-line) or of the text."""
    quote = text[i]
    triple = text.startswith(quote * 3, i)
    escapes = quote == '"'
    j = i + (3 if triple else 1)
    n = len(text)
    while j < n:
        c = text[j]
        if escapes and c == "\\":
            j += 2
            continue
        if not triple and c == "\n":
            return j
        if c == quote and (not triple or text.startswith(quote * 3, j)):
            if not triple:
                return j + 1
            j += 3
            extra = 0  # `""""` ends with one quote of content: up to two extra belong to it
            while j < n and text[j] == quote and extra < 2:
                j, extra = j + 1, extra + 1
            return j
        j += 1
    return n


def _error(why: str, text: str) -> tomllib.TOMLDecodeError:
    if sys.version_info >= (3, 14):  # msg, doc, pos; a lone message is deprecated there
        return tomllib.TOMLDecodeError(why, text, 0)
    return tomllib.TOMLDecodeError(why)
