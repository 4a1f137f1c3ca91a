"""Text a reviewer cannot see: invisible and control characters, found and made visible.

A human approves what a terminal or a dialog shows them. Some characters change what is shown
without showing themselves: Unicode tag characters (U+E0000–U+E007F, read by models, drawn by
nobody), bidi controls that reorder a line (U+202A–U+202E, U+2066–U+2069, U+200E/F, U+061C),
zero-width and blank characters (U+200B–U+200D, U+2060–U+2065, U+FEFF after the first
character, the soft hyphen, U+034F, U+180E, Hangul fillers, U+FFF9–U+FFFB), variation selectors
that can smuggle bytes (U+FE00–U+FE0D, U+E0100–U+E01EF, and runs of them), line and paragraph
separators, and C0/C1 controls other than newline and tab, among them ESC, which starts
terminal escape sequences (`ESC [ 8 m` conceals the text after it), and lone surrogates (bytes
that were not UTF-8 on the command line, on stdin or escaped in JSON). A
write that holds any of them is refused, naming the character and the line; a stored file that
holds one is not printed. Normalising them away instead was rejected: removing a bidi override
or an escape changes what the text says, so the human would approve something else than what
is stored. A carriage return directly before a newline is a line ending, not a control.

`printable` is the other half: what Engram prints about text it did not approve (file names,
reasons, previews) goes through it, so no such character reaches a terminal or an agent.
"""

from __future__ import annotations

import re
import unicodedata

from engram.safety.model import Finding

# Refused in memory text. Each class is a kind of finding.
_KINDS = (
    ("control.tag", "tag character", "\U000e0000-\U000e007f"),
    ("control.bidi", "bidi control", "\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069"),
    ("control.zero_width", "invisible character",
     "\u00ad\u034f\u115f\u1160\u17b4\u17b5\u180e\u200b-\u200d\u2060-\u2065\u3164\uffa0"
     "\ufeff\ufff9-\ufffb\u2028\u2029"),
    # Variation selectors can carry arbitrary hidden bytes after any character ("emoji
    # smuggling"). One U+FE0E/U+FE0F after a character is ordinary emoji presentation.
    ("control.variation", "variation selector", "\ufe00-\ufe0d\U000e0100-\U000e01ef"),
    ("control.escape", "terminal escape", "\x1b\x9b"),
    ("control.c0c1", "control character", "\x00-\x08\x0b\x0c\x0e-\x1a\x1c-\x1f\x7f-\x9a\x9c-\x9f"),
    # A lone surrogate is a byte that was not UTF-8 (Python's surrogateescape of argv and
    # stdin, or a `\udce9` JSON escape): no file can hold it, so it is refused here, by name.
    ("control.not_utf8", "byte that is not UTF-8", "\ud800-\udfff"),
)
_FIND = re.compile("[" + "".join(chars for _, _, chars in _KINDS) + "]|\r(?!\n)"
                   "|[\ufe0e\ufe0f](?=[\ufe00-\ufe0f])")
_KIND_OF = [(re.compile(f"[{chars}]"), kind, what) for kind, what, chars in _KINDS]
# Escaped when printed: all of the above, plus tabs, newlines and carriage returns (in one-line
# contexts) and every other format character.
_PRINT = re.compile("[" + "".join(chars for _, _, chars in _KINDS) + "\t\n\r\u2061-\u206f]"
                    "|[\ufe0e\ufe0f](?=[\ufe00-\ufe0f])")
_EXCERPT = 60


def char_name(ch: str) -> str:
    """`U+202E RIGHT-TO-LEFT OVERRIDE`; controls without a Unicode name get their number only."""
    name = unicodedata.name(ch, "")
    return f"U+{ord(ch):04X}" + (f" {name}" if name else "")


def _kind(ch: str) -> tuple[str, str]:
    if ch == "\r":
        return "control.c0c1", "control character"
    if ch in "\ufe0e\ufe0f":  # the first of a run of selectors
        return "control.variation", "variation selector"
    for pattern, kind, what in _KIND_OF:
        if pattern.match(ch):
            return kind, what
    return "control.c0c1", "control character"


def scan_invisible(text: str) -> list[Finding]:
    """One finding per offending line (its first such character), by line. A byte order mark
    as the very first character is allowed."""
    out: list[Finding] = []
    start = 1 if text.startswith("\ufeff") else 0
    last_line = 0
    for m in _FIND.finditer(text, start):
        line = text.count("\n", 0, m.start()) + 1
        if line == last_line:
            continue
        last_line = line
        ch = m.group()[0]
        kind, what = _kind(ch)
        begin = text.rfind("\n", 0, m.start()) + 1
        end = text.find("\n", m.start())
        excerpt = printable(text[begin:end if end != -1 else len(text)], _EXCERPT)
        out.append(Finding(line, kind, "control", _label(ch, what), excerpt))
    return out


def _label(ch: str, what: str) -> str:
    cp = ord(ch)
    if 0xDC80 <= cp <= 0xDCFF:  # surrogateescape: the byte itself is what the user can find
        return f"byte 0x{cp - 0xDC00:02X}, which is not UTF-8"
    return f"{what} {char_name(ch)}"


def has_invisible(text: str) -> bool:
    return _FIND.search(text, 1 if text.startswith("\ufeff") else 0) is not None


def _escape(m: re.Match[str]) -> str:
    cp = ord(m.group())
    if cp <= 0xFF:
        return f"\\x{cp:02x}"
    return f"\\u{cp:04x}" if cp <= 0xFFFF else f"\\U{cp:08x}"


def printable(text: str, limit: int | None = None, *, keep_lines: bool = False) -> str:
    """`text` with every invisible or control character written as an escape (`\\x1b`,
    `\\u202e`), then cut to `limit` characters with `…`. With `keep_lines`, newlines and tabs
    stay as they are (multi-line previews)."""
    if keep_lines:
        out = _PRINT.sub(lambda m: m.group() if m.group() in "\n\t" else _escape(m), text)
        out = out.replace("\\x0d\n", "\n")
    else:
        out = _PRINT.sub(_escape, text)
    if limit is not None and len(out) > limit:
        out = out[: max(limit - 1, 0)] + "…"
    return out
