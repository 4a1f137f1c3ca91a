"""From a guidance file to durable items, without a model (docs/adopting.md "Candidates").

One bullet is one item; a numbered procedure under one heading is one skill; a short paragraph
is one item; headings are kept as context; `globs:`/`paths:` frontmatter (Cursor `.mdc`, Claude
`.claude/rules`, Copilot `applyTo:`) becomes the item's `anchors`, the one per-path field a
memory has. Engram's managed blocks, code blocks, tables, link-only index lines and long prose
are not items; every line left out is counted with a reason. Typing is `classify` (measured on
tests/fixtures/takecontrol by `engram bench --only takecontrol`). Pure: text in, items out.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from engram.proposals.candidates import _RULE_WORDS
from engram.store.model import MemoryType

MAX_PARAGRAPH = 600
MIN_WORDS = 3
_HEADING = re.compile(r"^(#{1,6})\s+(.+?)\s*#*\s*$")
_BULLET = re.compile(r"^(\s*)[-*+]\s+(?:\[[ xX]\]\s+)?(.*)$")
_NUMBERED = re.compile(r"^(\s*)\d{1,3}[.)]\s+(.*)$")
_FENCE = re.compile(r"^\s*(```|~~~)")
_LINK_ONLY = re.compile(r"^\[[^\]]+\]\([^)]+\)\s*(?:[-—–:]\s*.*)?$")
_BLOCK = re.compile(r"^<!-- engram:start -->\n.*?^<!-- engram:end -->\n?", re.M | re.S)
# Imperative openings: a bullet that starts with one is a rule (measured on the fixture).
IMPERATIVE = frozenset(str.split(
    """always never must do don't dont avoid prefer use keep write add call check put make
    ensure store name follow run only pin set remember require document test commit tag push
    review validate verify place prefix return raise log wrap mark import export annotate
    format lint type handle catch throw open close start stop read update delete remove
    rename move split merge squash rebase limit cap bump ask tell reply answer respond
    include exclude skip treat default leave create generate build deploy release install
    mock stub seed reset clean cache label sort group order guard sanitize escape quote
    encode decode hash sign lock unlock pass give take send fetch load save declare define
    reference link cite explain describe comment favor favour stick stay reuse rerun
    """))
# Norms written as descriptions ("Branch names follow …", "raw SQL needs a comment").
_NORM_WORDS = re.compile(r"\b(follows?|needs?|requires?|comes? with|has to|have to|"
                         r"is mandatory|are mandatory|is required|are required)\b", re.I)
_ABOUT_FILE = re.compile(r"^this (file|document)\b", re.I)
_STEP_WORDS = re.compile(r"(^|\s)(then|first,?|finally,?|afterwards)\s|->|→", re.I)


@dataclass(frozen=True)
class Item:
    text: str
    type: MemoryType
    line: int  # 1-based line of the item in the source
    last: int = 0  # its last line (the pointer removes line..last)
    heading: tuple[str, ...] = ()
    anchors: tuple[str, ...] = ()
    about_user: bool = False


@dataclass
class Split:
    items: list[Item] = field(default_factory=list)
    left_out: list[tuple[int, str]] = field(default_factory=list)  # (line, reason), no text


def strip_managed(text: str) -> tuple[str, int]:
    """The text without Engram's managed blocks (each replaced by as many blank lines, so line
    numbers stay), and how many blocks there were."""
    count = 0

    def blank(m: re.Match[str]) -> str:
        nonlocal count
        count += 1
        return "\n" * m.group(0).count("\n")

    return _BLOCK.sub(blank, text), count


def strip_frontmatter(text: str) -> tuple[str, dict[str, object]]:
    """Body (frontmatter lines blanked) and the frontmatter's simple keys: `key: value`,
    `key: [a, b]` and `key:` followed by `- item` lines. Never YAML-evaluated."""
    if not text.startswith("---\n"):
        return text, {}
    end = text.find("\n---", 3)
    if end < 0:
        return text, {}
    head = text[4:end]
    after = text.find("\n", end + 1)
    stop = len(text) if after < 0 else after
    meta: dict[str, object] = {}
    key = ""
    for line in head.splitlines():
        m = re.match(r"^([A-Za-z_][\w-]*)\s*:\s*(.*)$", line)
        if m:
            key, value = m.group(1).lower(), m.group(2).strip()
            meta[key] = _inline_list(value) if value.startswith("[") else value.strip("\"'")
        elif key and re.match(r"^\s+-\s+", line):
            items = meta.get(key)
            listed = items if isinstance(items, list) else []
            listed.append(line.split("-", 1)[1].strip().strip("\"'"))
            meta[key] = listed
    return "\n" * text.count("\n", 0, stop) + text[stop:], meta


def _inline_list(value: str) -> list[str]:
    return [v.strip().strip("\"'") for v in value.strip("[]").split(",") if v.strip()]


def anchors_of(meta: dict[str, object]) -> tuple[str, ...]:
    """`globs:` (Cursor), `paths:` (Claude rules), `applyTo:` (Copilot) → anchor globs."""
    out: list[str] = []
    for key in ("globs", "paths", "applyto"):
        value = meta.get(key)
        values = value if isinstance(value, list) else str(value or "").split(",")
        out += [v.strip() for v in values if v.strip() and v.strip() not in ("**", "**/*")]
    return tuple(dict.fromkeys(out))


def split(text: str) -> Split:
    """The durable items of one guidance file."""
    out = Split()
    body, blocks = strip_managed(text)
    if blocks:
        out.left_out.append((0, f"Engram managed block ({blocks})"))
    body, meta = strip_frontmatter(body)
    anchors = anchors_of(meta)
    kind_hint = str(meta.get("type") or "").lower()  # Claude auto memory topic files
    _Walker(out, anchors, kind_hint).walk(body.split("\n"))
    return out


class _Walker:
    """One pass over the lines, keeping the heading path and the block being built."""

    def __init__(self, out: Split, anchors: tuple[str, ...], kind_hint: str) -> None:
        self.out, self.anchors, self.kind_hint = out, anchors, kind_hint
        self.headings: list[tuple[int, str]] = []
        self.block: list[str] = []
        self.block_kind = ""  # bullet | steps | para
        self.block_line = 0
        self.last = 0
        self.intro = ""
        self.intro_line = 0
        self.end = 0

    def walk(self, lines: list[str]) -> None:
        fenced = False
        for n, line in enumerate(lines, 1):
            if _FENCE.match(line):
                fenced = not fenced
                if fenced and self.block_kind != "steps":
                    self.flush()
                    self.out.left_out.append((n, "code block"))
                continue
            if fenced:
                continue
            self.line(n, line)
        self.flush()

    def line(self, n: int, line: str) -> None:
        stripped = line.strip()
        heading = _HEADING.match(line)
        if heading:
            self.flush()
            self.intro = ""
            level = len(heading.group(1))
            self.headings = [h for h in self.headings if h[0] < level] + \
                [(level, heading.group(2).strip())]
            return
        if not stripped:
            if self.block_kind in ("para", "bullet"):
                self.flush()
            return
        if stripped.startswith(("|", "<!--")) or set(stripped) <= set("-=*_"):
            self.flush()
            if stripped.startswith("|"):
                self.out.left_out.append((n, "table row"))
            return
        numbered, bullet = _NUMBERED.match(line), _BULLET.match(line)
        if numbered:
            if self.block_kind != "steps":
                self.flush()
                self.start("steps", n)
            self.block.append(numbered.group(2).strip())
        elif bullet:
            if self.block_kind == "steps" and bullet.group(1):
                self.block[-1] += " " + bullet.group(2).strip()  # a sub-point of the step
            else:
                self.flush()
                self.start("bullet", n)
                self.block.append(bullet.group(2).strip())
        elif self.block_kind in ("bullet", "steps") and self.block and line[:1] in " \t":
            self.block[-1] += " " + stripped  # a wrapped line of the item
        else:
            if self.block_kind != "para":
                self.flush()
                self.start("para", n)
            self.block.append(stripped)
        self.last = n

    def start(self, kind: str, n: int) -> None:
        self.block_kind, self.block_line, self.block, self.last = kind, n, [], n

    def flush(self) -> None:
        kind, lines, n = self.block_kind, self.block, self.block_line
        self.block_kind, self.block, self.end = "", [], self.last
        if not lines:
            return
        if kind == "steps" and len(lines) >= 2:
            title = self.intro or (self.headings[-1][1] if self.headings else "Procedure")
            text = title.rstrip(":") + ":\n" + "\n".join(f"{i}. {s}" for i, s in
                                                         enumerate(lines, 1))
            self.emit(text, "skill", self.intro_line if self.intro else n)
            self.intro = ""
            return
        text = " ".join(lines)
        if kind == "para" and text.endswith(":"):
            self.intro, self.intro_line = text, n  # introduces the list that follows
            return
        self.intro = ""
        if kind == "para" and len(text) > MAX_PARAGRAPH:
            self.out.left_out.append((n, f"long prose ({len(text)} characters): use "
                                      "`engram take-control --agent` to rewrite it"))
            return
        self.emit(text, None, n)

    def emit(self, text: str, mtype: MemoryType | None, n: int) -> None:
        text = re.sub(r"\*\*(.+?)\*\*|__(.+?)__", lambda m: m.group(1) or m.group(2), text)
        if _LINK_ONLY.match(text):
            self.out.left_out.append((n, "link to another file (index entry)"))
            return
        if len(re.findall(r"[A-Za-z0-9]+", text)) < MIN_WORDS:
            self.out.left_out.append((n, "too short to be a memory"))
            return
        if _ABOUT_FILE.match(text):
            self.out.left_out.append((n, "about the guidance file itself"))
            return
        heads = tuple(h for _, h in self.headings)
        self.out.items.append(Item(text, mtype or classify(text, heads, self.kind_hint), n,
                                   max(self.end, n), heads, self.anchors,
                                   self.kind_hint in ("user", "personal")))


def classify(text: str, headings: tuple[str, ...] = (), kind_hint: str = "") -> MemoryType:
    """rule / skill / knowledge of one item (docs/adopting.md "How items are typed").

    1. A host's own type wins: Claude auto memory `feedback` → rule, `user`/`project`/
       `reference` → knowledge.
    2. An item that chains steps (`then`, `->`, `first … finally`) twice → skill.
    3. An imperative first word (IMPERATIVE), a must/never/should word, or a norm written as
       a description (follows, needs, requires, comes with) → rule.
    4. Everything else → knowledge (a fact, a decision, a description).
    Rules 3 and 4 read the first sentence: "X is a Django service. Follow …" is a fact."""
    if kind_hint == "feedback":
        return "rule"
    if kind_hint in ("user", "project", "reference"):
        return "knowledge"
    if len(_STEP_WORDS.findall(text)) >= 2:
        return "skill"
    text = re.split(r"(?<=[.!?])\s+(?=[A-Z])", text, maxsplit=1)[0]  # the first sentence
    first = re.sub(r"[^a-z']", "", text.split(None, 1)[0].lower()) if text.split() else ""
    if first in IMPERATIVE or _RULE_WORDS.search(text) or _NORM_WORDS.search(text):
        return "rule"
    return "knowledge"
