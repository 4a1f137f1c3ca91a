"""A small JSONC reader and in-place editor for host config files.

Host configs (`.mcp.json`, `settings.json`, `opencode.jsonc`, …) are user files: Engram must add
or remove its own entry without reformatting the rest, and JSONC files carry comments and
trailing commas that `json` would reject or drop. So this module parses text into a tree of
spans (where each value, key and item starts and ends) and edits the *text*: a new item is
inserted as the first item of its container, on its own line, and removing an item deletes
exactly the bytes insertion added. Everything outside the edited item — comments, key order,
indentation, trailing commas — stays byte-identical.

It owns parsing and text edits only; it does not know hosts, files or Engram's entries.
Limit: comments *inside* a value that Engram replaces (its own entry) are not kept.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from engram import jsontext
from engram.errors import HostConfigError


@dataclass
class Node:
    """A parsed value: its span in the text and, for containers, its items."""

    kind: str  # "object" | "array" | "scalar"
    start: int
    end: int
    value: Any = None
    items: list[Item] = field(default_factory=list)

    def get(self, key: str) -> Node | None:
        found = None
        for item in self.items:  # JSON semantics: the last duplicate wins
            if item.key == key:
                found = item.node
        return found


@dataclass
class Item:
    """One member of an object (with key) or element of an array (key None)."""

    key: str | None
    start: int  # first char of the key (objects) or of the value (arrays)
    node: Node
    comma: int | None = None  # index of the comma that follows the item, if any


MAX_DEPTH = 200


class _Parser:
    def __init__(self, text: str, source: str) -> None:
        self.text = text
        self.pos = 0
        self.source = source
        self.depth = 0

    def fail(self, why: str) -> HostConfigError:
        line = self.text.count("\n", 0, self.pos) + 1
        col = self.pos - (self.text.rfind("\n", 0, self.pos) + 1) + 1
        return HostConfigError(
            f"{self.source}: cannot parse at line {line}, column {col}: {why}",
            hint="fix the file by hand (Engram left it untouched), then rerun the command",
            code="host.unparseable",
        )

    def skip(self) -> None:
        """Skip whitespace and // or /* */ comments."""
        t = self.text
        while self.pos < len(t):
            c = t[self.pos]
            if c in " \t\r\n\ufeff":
                self.pos += 1
            elif t.startswith("//", self.pos):
                nl = t.find("\n", self.pos)
                self.pos = len(t) if nl < 0 else nl
            elif t.startswith("/*", self.pos):
                close = t.find("*/", self.pos + 2)
                if close < 0:
                    raise self.fail("unterminated /* comment")
                self.pos = close + 2
            else:
                return

    def value(self) -> Node:
        self.skip()
        if self.pos >= len(self.text):
            raise self.fail("unexpected end of file")
        c = self.text[self.pos]
        if c == "{":
            return self.container("object", "}")
        if c == "[":
            return self.container("array", "]")
        if c == '"':
            start = self.pos
            return Node("scalar", start, self.string_end(), self.decode(start, self.pos))
        return self.literal()

    def string_end(self) -> int:
        t = self.text
        i = self.pos + 1
        while i < len(t):
            if t[i] == "\\":
                i += 2
                continue
            if t[i] == '"':
                self.pos = i + 1
                return self.pos
            if t[i] == "\n":
                break
            i += 1
        raise self.fail("unterminated string")

    def decode(self, start: int, end: int) -> Any:
        try:
            return jsontext.loads(self.text[start:end])
        except json.JSONDecodeError as exc:
            self.pos = start
            raise self.fail(f"invalid value ({exc.msg})") from exc

    def literal(self) -> Node:
        start = self.pos
        t = self.text
        while self.pos < len(t) and t[self.pos] not in ",]}/ \t\r\n":
            self.pos += 1
        if self.pos == start:
            raise self.fail(f"unexpected {t[start]!r}")
        return Node("scalar", start, self.pos, self.decode(start, self.pos))

    def container(self, kind: str, close: str) -> Node:
        self.depth += 1
        if self.depth > MAX_DEPTH:  # a host file never nests this deep; recursion would abort
            raise self.fail(f"nested more than {MAX_DEPTH} levels deep")
        node = Node(kind, self.pos, -1)
        self.pos += 1
        while True:
            self.skip()
            if self.pos >= len(self.text):
                raise self.fail(f"missing {close!r}")
            if self.text[self.pos] == close:
                self.pos += 1
                node.end = self.pos
                node.value = _plain(node)
                self.depth -= 1
                return node
            item_start = self.pos
            key = None
            if kind == "object":
                if self.text[self.pos] != '"':
                    raise self.fail("expected a quoted key")
                key_start = self.pos
                self.string_end()
                key = self.decode(key_start, self.pos)
                self.skip()
                if self.pos >= len(self.text) or self.text[self.pos] != ":":
                    raise self.fail("expected ':' after key")
                self.pos += 1
            item = Item(key, item_start, self.value())
            node.items.append(item)
            self.skip()
            if self.pos < len(self.text) and self.text[self.pos] == ",":
                item.comma = self.pos
                self.pos += 1
            elif self.pos < len(self.text) and self.text[self.pos] != close:
                raise self.fail(f"expected ',' or {close!r}")


def _plain(node: Node) -> Any:
    if node.kind == "object":
        return {i.key: i.node.value for i in node.items}
    if node.kind == "array":
        return [i.node.value for i in node.items]
    return node.value


def parse(text: str, source: str = "config") -> Node:
    """Parse JSON or JSONC text (comments, trailing commas) into a span tree."""
    p = _Parser(text, source)
    root = p.value()
    p.skip()
    if p.pos != len(text):
        raise p.fail("unexpected text after the value")
    return root


def loads(text: str, source: str = "config") -> Any:
    return parse(text, source).value


def find(root: Node, path: list[str]) -> Node | None:
    node: Node | None = root
    for key in path:
        if node is None or node.kind != "object":
            return None
        node = node.get(key)
    return node


# ---- rendering -----------------------------------------------------------------------------

def indent_unit(text: str) -> str:
    """The file's indentation step (first indented line), default two spaces."""
    for line in text.splitlines()[1:]:
        stripped = line.lstrip(" \t")
        if stripped and len(stripped) < len(line):
            return line[: len(line) - len(stripped)]
    return "  "


def line_indent(text: str, pos: int) -> str:
    start = text.rfind("\n", 0, pos) + 1
    end = start
    while end < len(text) and text[end] in " \t":
        end += 1
    return text[start:end]


def render(value: Any, unit: str, base: str) -> str:
    """Pretty JSON whose continuation lines start at `base`; scalar lists stay on one line."""
    if isinstance(value, dict) and value:
        inner = base + unit
        members = [f"{inner}{json.dumps(k, ensure_ascii=False)}: {render(v, unit, inner)}"
                   for k, v in value.items()]
        return "{\n" + ",\n".join(members) + f"\n{base}}}"
    if isinstance(value, list) and any(isinstance(v, dict | list) for v in value):
        inner = base + unit
        return "[\n" + ",\n".join(inner + render(v, unit, inner) for v in value) + f"\n{base}]"
    return json.dumps(value, ensure_ascii=False, separators=(", ", ": "))


# ---- edits -----------------------------------------------------------------------------------

def _first_line_end(text: str, container: Node) -> int:
    """Where a first item goes: after the opening bracket and any same-line comment."""
    i = container.start + 1
    while i < len(text) and text[i] in " \t":
        i += 1
    if text.startswith("//", i):
        nl = text.find("\n", i)
        return nl if nl >= 0 else len(text)
    return container.start + 1


def insert_first(text: str, container: Node, key: str | None, value: Any) -> str:
    """Insert an item as the first of `container`; `remove_item` undoes it byte for byte."""
    unit = indent_unit(text)
    outer = line_indent(text, container.start)
    prefix = "" if key is None else json.dumps(key, ensure_ascii=False) + ": "
    if not container.items:
        inner = outer + unit
        between = text[container.start + 1: container.end - 1]
        if between.strip() == "":
            body = f"\n{inner}{prefix}{render(value, unit, inner)}\n{outer}"
            return text[: container.start + 1] + body + text[container.end - 1:]
        at = _first_line_end(text, container)  # keep the comments an empty container holds
        return text[:at] + f"\n{inner}{prefix}{render(value, unit, inner)}" + text[at:]
    first = container.items[0]
    multiline = "\n" in text[container.start: first.start]
    if not multiline:
        piece = prefix + json.dumps(value, ensure_ascii=False) + ", "
        at = container.start + 1
        return text[:at] + piece + text[at:]
    inner = line_indent(text, first.start)
    at = _first_line_end(text, container)
    piece = f"\n{inner}{prefix}{render(value, unit, inner)},"
    return text[:at] + piece + text[at:]


def _line_end(text: str, pos: int) -> int:
    """The end of `pos`'s line when only blanks and a // comment follow, else `pos`."""
    nl = text.find("\n", pos)
    nl = len(text) if nl < 0 else nl
    rest = text[pos:nl].strip(" \t")
    return nl if rest == "" or rest.startswith("//") else pos


def insert_last(text: str, container: Node, key: str | None, value: Any) -> str:
    """Append an item as the last of `container` (where last-match-wins rules need it).

    `remove_item` undoes it byte for byte. An empty container gets it as its first item.
    """
    if not container.items:
        return insert_first(text, container, key, value)
    unit = indent_unit(text)
    prefix = "" if key is None else json.dumps(key, ensure_ascii=False) + ": "
    last = container.items[-1]
    multiline = "\n" in text[container.start: last.start]
    if not multiline:
        piece = json.dumps(value, ensure_ascii=False)
        if last.comma is not None:
            return text[: last.comma + 1] + f" {prefix}{piece}," + text[last.comma + 1:]
        return text[: last.node.end] + f", {prefix}{piece}" + text[last.node.end:]
    inner = line_indent(text, last.start)
    rendered = f"\n{inner}{prefix}{render(value, unit, inner)}"
    if last.comma is not None:
        at = _line_end(text, last.comma + 1)
        return text[:at] + rendered + "," + text[at:]
    at = _line_end(text, last.node.end)
    return text[: last.node.end] + "," + text[last.node.end: at] + rendered + text[at:]


def remove_item(text: str, container: Node, index: int) -> str:
    """Delete one item with its comma, keeping comments and the other items' bytes."""
    item = container.items[index]
    start = item.start
    line_start = text.rfind("\n", 0, start)
    if text[line_start + 1: start].strip(" \t") == "":
        start = line_start  # the item sits on its own line: take the line break before it
    if len(container.items) == 1:
        end = item.node.end if item.comma is None else item.comma + 1
        out = text[:start] + text[end:]
        close = container.end - (end - start)
        if out[container.start + 1: close - 1].strip() == "":
            return out[: container.start + 1] + out[close - 1:]  # back to a bare {} or []
        return out
    if item.comma is not None:
        end = item.comma + 1
        prev_comma = container.items[index - 1].comma if index else None
        if start != line_start and index == len(container.items) - 1 and prev_comma is not None \
                and text[prev_comma + 1: start].strip(" \t") == "":
            return text[: prev_comma + 1] + text[end:]  # `a, b,}`: what insert_last added
        if start != line_start:
            while end < len(text) and text[end] in " \t":
                end += 1
        return text[:start] + text[end:]
    # Last item without a trailing comma: drop the comma that ends the previous item instead.
    prev = container.items[index - 1]
    assert prev.comma is not None  # noqa: S101 - the parser guarantees a separator
    if start != line_start and text[prev.comma + 1: start].strip(" \t") == "":
        start = prev.comma + 1  # `a, b` on one line: `, b` goes (what insert_last added)
    return text[: prev.comma] + text[prev.comma + 1: start] + text[item.node.end:]


def replace_value(text: str, node: Node, value: Any) -> str:
    """Replace one value in place, rendered at its line's indentation."""
    unit = indent_unit(text)
    base = line_indent(text, node.start)
    return text[: node.start] + render(value, unit, base) + text[node.end:]


def set_path(text: str, path: list[str], value: Any) -> tuple[str, list[list[str]]]:
    """Set `path` to `value`, creating missing objects; returns new text and created paths."""
    root = parse(text)
    created: list[list[str]] = []
    node = root
    for depth, key in enumerate(path):
        if node.kind != "object":
            raise HostConfigError(
                f"expected an object at {'.'.join(path[:depth]) or 'the top level'}",
                hint="fix the file by hand so it holds an object there",
                code="host.shape",
            )
        child = node.get(key)
        if child is None:
            nested: Any = value
            for k in reversed(path[depth + 1:]):
                nested = {k: nested}
            created.extend(path[: d + 1] for d in range(depth, len(path) - 1))
            return insert_first(text, node, key, nested), created
        node = child
    return replace_value(text, node, value), created


def delete_path(text: str, path: list[str]) -> str:
    """Remove the member at `path` if present (the last duplicate, if any)."""
    parent = find(parse(text), path[:-1])
    if parent is None or parent.kind != "object":
        return text
    for idx in range(len(parent.items) - 1, -1, -1):
        if parent.items[idx].key == path[-1]:
            return remove_item(text, parent, idx)
    return text
