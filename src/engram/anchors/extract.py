"""Find the repository paths a memory names. Pure: no I/O.

Candidates come from backtick spans and Markdown links in the body that look like paths, and
from the optional `anchors:` frontmatter list (paths, globs, and `path::symbol`). A body
candidate becomes an anchor only if the repository knows the path now or knew it once (the
caller checks that against git facts); an explicit `anchors:` entry is always an anchor.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any, NamedTuple

MAX_ANCHORS = 16
_BACKTICK = re.compile(r"`([^`\n]{1,200})`")
_LINK = re.compile(r"\]\(([^)\s]{1,200})\)")
# Path-shaped: word characters, dots, dashes, slashes, @ and +; an optional `::symbol`.
_PATHLIKE = re.compile(r"^[\w.@+\-/]+(::[\w.$]+)?$")
_EXTENSION = re.compile(r"\.[A-Za-z0-9]{1,10}$")
_GLOB_CHARS = frozenset("*?[")


class Anchor(NamedTuple):
    """One anchor: `path` (posix, relative to the repository top level), a glob or a directory
    (`kind`), an optional `symbol` searched in the file, and whether the author declared it."""

    path: str
    kind: str  # "file" | "dir" | "glob"
    symbol: str = ""
    explicit: bool = False

    @property
    def label(self) -> str:
        return f"{self.path}::{self.symbol}" if self.symbol else self.path


def normalise(raw: str) -> str | None:
    """A repository-relative posix path, or None when `raw` cannot be one."""
    text = raw.strip().strip("'\"")
    if not text or "\\" in text or text.startswith(("/", "~", "-", "$")):
        return None
    if "://" in text or text.startswith(("mailto:", "#")):
        return None
    text = text.split("#", 1)[0]
    while text.startswith("./"):
        text = text[2:]
    parts = text.split("/")
    if any(p == ".." for p in parts) or not text:
        return None
    return text


def path_shaped(raw: str) -> str | None:
    """A repository path with path characters only (no spaces, no markup), or None: what a
    RENAME may name, so a path fix cannot carry prose into a memory."""
    path = normalise(raw)
    return path if path is not None and _PATHLIKE.match(path) else None


def parse(raw: str, *, explicit: bool) -> Anchor | None:
    """One candidate string as an anchor (not yet checked against the repository)."""
    text = raw.strip()
    symbol = ""
    if "::" in text:
        text, symbol = text.split("::", 1)
        if not re.fullmatch(r"[\w.$]+", symbol):
            return None
    path = normalise(text)
    if path is None:
        return None
    if any(c in _GLOB_CHARS for c in path):
        return Anchor(path, "glob", "", explicit) if explicit else None
    if not _PATHLIKE.match(path + (f"::{symbol}" if symbol else "")):
        return None
    if path.endswith("/"):
        return Anchor(path.rstrip("/"), "dir", "", explicit)
    if not explicit and "/" not in path and not _EXTENSION.search(path):
        return None  # a bare word in backticks (`make`, `true`) is not a path
    if not explicit and _EXTENSION.search(path) and path.replace(".", "").isdigit():
        return None  # a version number such as `1.2.3`
    return Anchor(path, "file", symbol, explicit)


def declared(meta: dict[str, Any]) -> list[Anchor]:
    """The frontmatter `anchors:` list (a string or a list of strings)."""
    value = meta.get("anchors")
    items: Iterable[Any] = value if isinstance(value, list) else (
        [value] if isinstance(value, str) else [])
    found = [parse(str(v), explicit=True) for v in items]
    return [a for a in found if a is not None]


def mentioned(body: str) -> list[Anchor]:
    """Path-shaped backtick spans and link targets of the body, in order, without repeats."""
    raws = [m.group(1) for m in _BACKTICK.finditer(body)]
    raws += [m.group(1) for m in _LINK.finditer(body)]
    found = [parse(r, explicit=False) for r in raws]
    return [a for a in found if a is not None]


def candidates(body: str, meta: dict[str, Any]) -> list[Anchor]:
    """Declared anchors first, then mentioned ones, deduplicated, at most MAX_ANCHORS."""
    seen: set[tuple[str, str]] = set()
    out: list[Anchor] = []
    for a in [*declared(meta), *mentioned(body)]:
        if (a.path, a.symbol) in seen:
            continue
        seen.add((a.path, a.symbol))
        out.append(a)
    return out[:MAX_ANCHORS]


def encode(anchors: Iterable[Anchor]) -> str:
    """A compact cache form (one anchor per line, tab-separated)."""
    return "\n".join(f"{a.path}\t{a.kind}\t{a.symbol}\t{int(a.explicit)}" for a in anchors)


def decode(text: str) -> list[Anchor]:
    """The cache form back; the cache lives in the git-ignored index, so every line must be an
    anchor `parse` itself would make, else it is dropped (a rewritten row carries no text)."""
    out = []
    for line in text.split("\n"):
        fields = line.split("\t")
        if len(fields) != 4:
            continue
        path, kind, symbol, explicit = fields
        label = path + ("/" if kind == "dir" else "") + (f"::{symbol}" if symbol else "")
        again = parse(label, explicit=explicit == "1")
        if again is not None and again == Anchor(path, kind, symbol, explicit == "1") \
                and not any(c.isspace() or not c.isprintable() for c in path):
            out.append(again)
    return out
