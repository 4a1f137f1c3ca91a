"""A strict, safe reader and canonical writer for the YAML subset memory frontmatter uses.

Supported: `key: scalar`, flow lists `[a, "b c"]`, block lists (`- item`), one level of nested
mappings, block scalars (`|`, `>`), plain/single/double-quoted scalars, comments. Refused with the
line and a reason: anchors, aliases, tags, merge keys, complex keys, duplicate keys and tab
indentation — YAML features that can make a file mean something other than what a reviewer sees.
Dates stay strings (`2026-08-01`), so a file round-trips byte-identically. Pure: no I/O.
"""

from __future__ import annotations

import re
from typing import Any

Value = Any  # str | int | float | bool | None | list[Value] | dict[str, Value]

_KEY_RE = re.compile(r"([A-Za-z_][A-Za-z0-9_.-]*)\s*:(?:\s+(.*))?$")
_INT_RE = re.compile(r"[-+]?(0|[1-9][0-9]*)")
_MAX_DIGITS = 4000  # under Python's int conversion limit (4,300 digits)
_FLOAT_RE = re.compile(r"[-+]?([0-9]+\.[0-9]*|\.[0-9]+)([eE][-+]?[0-9]+)?")
_ESCAPES = {"n": "\n", "t": "\t", '"': '"', "\\": "\\", "/": "/", "0": "\0", "r": "\r"}
_PLAIN_SAFE = re.compile(r"[A-Za-z0-9_./@+()-][A-Za-z0-9 _./@+()-]*")
_HEX4 = re.compile(r"[0-9A-Fa-f]{4}")
MAX_DEPTH = 8  # nesting levels of block mappings and lists; deeper is refused, never recursed
_RESERVED = {"true", "false", "yes", "no", "on", "off", "null", "~", ""}


# Keys Engram writes: a duplicate of one is named; any other key is text from the file (nobody
# reviewed it, and errors reach agents), so it is not repeated.
_FIELDS = frozenset({"id", "type", "title", "created", "updated", "confidence", "revision",
                     "scope", "source", "tags", "lifecycle", "depends_on", "superseded_by",
                     "valid_until", "role", "authority", "tier", "triggers", "anchors",
                     "schema_version", "reference"})


def _shown_key(key: str) -> str:
    return repr(key) if key in _FIELDS else "(a key not written by Engram)"


class FrontmatterError(ValueError):
    """A syntax the safe reader refuses; `line` is 1-based within the frontmatter block."""

    def __init__(self, line: int, reason: str) -> None:
        super().__init__(f"line {line}: {reason}")
        self.line = line
        self.reason = reason


def parse(text: str) -> dict[str, Value]:
    """Parse a frontmatter block (without the `---` fences) into a dict."""
    lines = text.split("\n")
    for n, raw in enumerate(lines, 1):
        if "\t" in raw[: len(raw) - len(raw.lstrip(" \t"))]:
            raise FrontmatterError(n, "tab indentation is not allowed in frontmatter; use spaces")
    flat = _parse_flat(lines)
    if flat is not None:
        return flat
    parser = _Parser(lines)
    result = parser.mapping(0, 1)
    parser.expect_end()
    return result


def _parse_flat(lines: list[str]) -> dict[str, Value] | None:
    """Fast path for the usual shape: top-level `key: scalar-or-[list]` lines only.

    Anything else (indentation, block lists or scalars, duplicates, anchors, a syntax error)
    returns None and goes through the full parser, which gives the exact line and reason.
    Index builds parse every file, so this path is most of their cost.
    """
    out: dict[str, Value] = {}
    for n, line in enumerate(lines, 1):
        if not line or line[0] == "#" or not line.strip():
            continue
        if line[0] in " \t-?<":
            return None
        m = _KEY_RE.match(line)
        if m is None or m.group(1) in out:
            return None
        rest = _strip_comment((m.group(2) or "").strip())
        if not rest or rest[0] in "&*!|>{":
            return None
        try:
            out[m.group(1)] = scalar_or_flow(rest, n)
        except FrontmatterError:
            return None
    return out


class _Parser:
    def __init__(self, lines: list[str]) -> None:
        self.lines = lines
        self.i = 0

    def _skip(self) -> None:
        while self.i < len(self.lines):
            s = self.lines[self.i].strip()
            if s and not s.startswith("#"):
                return
            self.i += 1

    def _indent(self) -> int:
        line = self.lines[self.i]
        return len(line) - len(line.lstrip(" "))

    def expect_end(self) -> None:
        self._skip()
        if self.i < len(self.lines):
            raise FrontmatterError(self.i + 1, "unexpected indentation")

    def mapping(self, indent: int, depth: int) -> dict[str, Value]:
        if depth > MAX_DEPTH:
            raise FrontmatterError(self.i + 1, f"frontmatter nests more than {MAX_DEPTH} levels; "
                                   "flatten it")
        out: dict[str, Value] = {}
        lines: dict[str, int] = {}
        while True:
            self._skip()
            if self.i >= len(self.lines) or self._indent() < indent:
                return out
            n = self.i + 1
            if self._indent() > indent:
                raise FrontmatterError(n, "unexpected indentation")
            content = self.lines[self.i].strip()
            if content.startswith(("? ", "<<")):
                raise FrontmatterError(n, "complex and merge keys are not allowed")
            if content.startswith("- "):
                raise FrontmatterError(n, "a list item where a `key: value` line was expected")
            m = _KEY_RE.match(content)
            if not m:
                # The line itself is text nobody reviewed (it is printed to agents): the line
                # number is enough to find it.
                raise FrontmatterError(n, "expected `key: value`")
            key, rest = m.group(1), (m.group(2) or "").strip()
            if key in out:
                raise FrontmatterError(n, f"duplicate key {_shown_key(key)} (first on line "
                                          f"{lines[key]})")
            lines[key] = n
            self.i += 1
            out[key] = self.value(rest, indent, n, depth)

    def value(self, rest: str, indent: int, n: int, depth: int) -> Value:
        rest = _strip_comment(rest)
        if rest[:1] in ("&", "*", "!"):
            kind = {"&": "anchors", "*": "aliases", "!": "tags"}[rest[0]]
            raise FrontmatterError(n, f"YAML {kind} are not allowed in frontmatter")
        if rest in ("|", "|-", "|+", ">", ">-", ">+"):
            return self.block_scalar(rest, indent)
        if rest:
            return scalar_or_flow(rest, n)
        self._skip()
        if self.i >= len(self.lines):
            return None
        child = self._indent()
        first = self.lines[self.i].strip()
        if first.startswith("- ") or first == "-":
            if child < indent:
                return None
            return self.sequence(child, depth + 1)
        if child > indent:
            return self.mapping(child, depth + 1)
        return None

    def sequence(self, indent: int, depth: int) -> list[Value]:
        if depth > MAX_DEPTH:
            raise FrontmatterError(self.i + 1, f"frontmatter nests more than {MAX_DEPTH} levels; "
                                   "flatten it")
        out: list[Value] = []
        while True:
            self._skip()
            if self.i >= len(self.lines) or self._indent() != indent:
                return out
            content = self.lines[self.i].strip()
            if not (content.startswith("- ") or content == "-"):
                return out
            n = self.i + 1
            self.i += 1
            item = _strip_comment(content[1:].strip())
            if _KEY_RE.match(item) and not item.startswith(('"', "'")):
                raise FrontmatterError(n, "mappings inside lists are not supported")
            out.append(self.value(item, indent + 1, n, depth) if item else None)

    def block_scalar(self, style: str, indent: int) -> str:
        body: list[str] = []
        block_indent: int | None = None
        while self.i < len(self.lines):
            line = self.lines[self.i]
            if line.strip() and (len(line) - len(line.lstrip(" "))) <= indent:
                break
            if line.strip() and block_indent is None:
                block_indent = len(line) - len(line.lstrip(" "))
            body.append(line[block_indent or 0:] if line.strip() else "")
            self.i += 1
        while body and not body[-1]:
            body.pop()
        text = "\n".join(body) if style.startswith("|") else " ".join(s for s in body if s)
        return text if style.endswith("-") else text + "\n"


def _strip_comment(s: str) -> str:
    """The value without a trailing ` #` comment; a ` #` inside a quoted scalar, or inside a
    quoted item of a flow list (`[" #"]`), is text."""
    if s.startswith(("'", '"')):
        return s
    quote = ""
    escaped = False  # the previous character escapes this one (`\"`, or `''` in '...')
    for i, ch in enumerate(s):
        if quote:
            if escaped:
                escaped = False
            elif ch == "\\" and quote == '"' or ch == "'" == quote == s[i + 1:i + 2]:
                escaped = True
            elif ch == quote:
                quote = ""
        elif ch in "\"'" and s.startswith("[") and s[i - 1] in "[, ":
            quote = ch
        elif ch == "#" and i and s[i - 1] == " ":
            return s[:i - 1].rstrip()
    return s


def scalar_or_flow(s: str, n: int) -> Value:
    if s.startswith("["):
        if not s.endswith("]"):
            raise FrontmatterError(n, "unclosed flow list (keep `[a, b]` on one line)")
        return [scalar(p, n) for p in _split_flow(s[1:-1], n)]
    if s.startswith("{"):
        if s == "{}":
            return {}
        raise FrontmatterError(n, "flow mappings are not supported; use block style")
    return scalar(s, n)


def _split_flow(s: str, n: int) -> list[str]:
    parts: list[str] = []
    buf: list[str] = []
    quote = ""
    escaped = False
    for ch in s:
        if quote:
            buf.append(ch)
            if escaped:  # `\"` inside a double-quoted item does not close it
                escaped = False
            elif ch == "\\" and quote == '"':
                escaped = True
            elif ch == quote:
                quote = ""
        elif ch in "\"'":
            quote = ch
            buf.append(ch)
        elif ch == ",":
            parts.append("".join(buf).strip())
            buf = []
        elif ch in "[]{}":
            raise FrontmatterError(n, "nested collections inside a flow list are not supported")
        else:
            buf.append(ch)
    if quote:
        raise FrontmatterError(n, "unclosed quote in flow list")
    tail = "".join(buf).strip()
    if tail or parts:
        parts.append(tail)
    return [p for p in parts if p]


def scalar(s: str, n: int) -> Value:
    s = s.strip()
    if s[:1] in ("&", "*", "!"):
        kind = {"&": "anchors", "*": "aliases", "!": "tags"}[s[0]]
        raise FrontmatterError(n, f"YAML {kind} are not allowed in frontmatter")
    if s.startswith('"'):
        return _double_quoted(s, n)
    if s.startswith("'"):
        if len(s) < 2 or not s.endswith("'"):
            raise FrontmatterError(n, "unclosed single quote")
        return s[1:-1].replace("''", "'")
    low = s.lower()
    if low in ("true", "yes", "on"):
        return True
    if low in ("false", "no", "off"):
        return False
    if low in ("null", "~"):
        return None
    if _INT_RE.fullmatch(s):
        if len(s) > _MAX_DIGITS:  # Python refuses to convert it (and it means nothing here)
            raise FrontmatterError(n, f"number is too long ({len(s):,} characters)")
        return int(s)
    if _FLOAT_RE.fullmatch(s):
        return float(s)
    return s


def _double_quoted(s: str, n: int) -> str:
    if len(s) < 2 or not s.endswith('"') or s.endswith('\\"') and not s.endswith('\\\\"'):
        raise FrontmatterError(n, "unclosed double quote")
    out: list[str] = []
    body = s[1:-1]
    i = 0
    while i < len(body):
        ch = body[i]
        if ch == "\\" and i + 1 < len(body):
            nxt = body[i + 1]
            if nxt == "u":
                out.append(_unicode_escape(body[i + 2 : i + 6], n))
                i += 6
                continue
            if nxt not in _ESCAPES:
                raise FrontmatterError(n, f"unknown escape \\{nxt} in double-quoted string")
            out.append(_ESCAPES[nxt])
            i += 2
            continue
        out.append(ch)
        i += 1
    return "".join(out)


def _unicode_escape(digits: str, n: int) -> str:
    r"""The character of a `\uXXXX` escape: exactly four hex digits, not a lone surrogate
    (which no UTF-8 file or output can hold)."""
    if not _HEX4.fullmatch(digits):
        raise FrontmatterError(n, f"bad escape \\u{digits[:4]}: \\u takes four hex digits "
                               "(0-9, a-f), e.g. \\u00e9")
    code = int(digits, 16)
    if 0xD800 <= code <= 0xDFFF:
        raise FrontmatterError(n, f"bad escape \\u{digits}: a surrogate is not a character; "
                               "write the character itself")
    return chr(code)


def render_scalar(v: Value) -> str:
    if v is True:
        return "true"
    if v is False:
        return "false"
    if v is None:
        return "null"
    if isinstance(v, int | float):
        return repr(v)
    s = str(v)
    if (_PLAIN_SAFE.fullmatch(s) and s.lower() not in _RESERVED and not _INT_RE.fullmatch(s)
            and not _FLOAT_RE.fullmatch(s) and not s.endswith(" ") and ": " not in s
            and " #" not in s):
        return s
    escaped = s.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n").replace("\t", "\\t")
    return f'"{escaped}"'


def render(meta: dict[str, Value]) -> str:
    """Canonical block: keys sorted, lists in flow style, None values dropped."""
    out: list[str] = []
    for key in sorted(meta):
        out.extend(_render_entry(key, meta[key], ""))
    return "\n".join(out)


def _render_entry(key: str, v: Value, pad: str) -> list[str]:
    if v is None:
        return []
    if isinstance(v, list):
        return [f"{pad}{key}: [{', '.join(render_scalar(x) for x in v)}]"]
    if isinstance(v, dict):  # a mapping whose values are all None reads back as {}, not None
        inner = [line for k in sorted(v) for line in _render_entry(k, v[k], pad + "  ")]
        return [f"{pad}{key}:", *inner] if inner else [f"{pad}{key}: {{}}"]
    return [f"{pad}{key}: {render_scalar(v)}"]
