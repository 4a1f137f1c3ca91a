"""Render exported memories for tools that do not run Engram, and recognise what we rendered.

Formats: `agents-md` (an `AGENTS.md`), `claude-md` (a `CLAUDE.md`), `cursorrules` (a
`.cursorrules`) and `json` (a bundle `engram import` takes back, docs/adopting.md "Export").
Every rendered file carries a marker with a digest of its own text: the first line of the
Markdown formats (`<!-- engram:export <format> digest=<sha256> … -->`), the `format` and
`digest` keys of the bundle. The digest is the SHA-256 of the file with the digest itself
written as 64 zeros, so a later export can tell a file it wrote and nobody touched (replace it),
a file it wrote that someone edited (refuse unless forced), and a file it never wrote (refuse).
A memory the export left out is named in a comment (or the bundle's `skipped` list) with the
reason, never with its text.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Sequence
from typing import Any, Literal

from engram.export.collect import Exported
from engram.search.guard import Skip

FORMATS = ("agents-md", "claude-md", "cursorrules", "json")
BUNDLE_FORMAT = "engram-export"
BUNDLE_VERSION = 1
ZEROS = "0" * 64
MARKER = "<!-- engram:export "
_MD_MARKER = re.compile(r"\A<!-- engram:export ([a-z-]+) digest=([0-9a-f]{64}) ")
_JSON_MARKER = re.compile(r'\A\{\s*"format": "engram-export",\s*"version": \d+,\s*'
                          r'"digest": "([0-9a-f]{64})"')
_HEADINGS = {"rule": "Rules", "skill": "Skills", "knowledge": "Knowledge"}
_INTRO = {
    "agents-md": "Instructions for coding agents working in this repository.",
    "claude-md": "Instructions for Claude Code in this repository.",
    "cursorrules": "Rules for Cursor in this repository.",
}
State = Literal["absent", "generated", "edited", "foreign"]


def render(fmt: str, items: Sequence[Exported], skipped: Sequence[Skip], version: str) -> str:
    text = _bundle(items, skipped, version) if fmt == "json" else _markdown(fmt, items, skipped)
    digest = hashlib.sha256(text.encode("utf-8")).hexdigest()
    return text.replace(ZEROS, digest, 1)


def state(text: str | None) -> State:
    """What an existing file is to the export: ours and untouched, ours but edited, or not ours."""
    if text is None:
        return "absent"
    md = _MD_MARKER.match(text)
    found = md or _JSON_MARKER.match(text)
    if found is None:
        return "foreign"
    digest = found.group(2) if md else found.group(1)
    plain = text.replace(digest, ZEROS, 1)
    same = hashlib.sha256(plain.encode("utf-8")).hexdigest() == digest
    return "generated" if same else "edited"


def is_generated(text: str) -> bool:
    """True for a file `engram export` wrote (edited since or not): take-control and other
    readers of guidance files leave these out, since their memories are already Engram's."""
    return state(text) in ("generated", "edited")


def _bundle(items: Sequence[Exported], skipped: Sequence[Skip], version: str) -> str:
    data: dict[str, Any] = {
        "format": BUNDLE_FORMAT, "version": BUNDLE_VERSION, "digest": ZEROS,
        "generator": f"engram {version}", "memories": [e.as_dict() for e in items],
        "skipped": [{"file": s.name, "reason": s.shown_reason} for s in skipped],
    }
    return json.dumps(data, ensure_ascii=False, indent=2) + "\n"


def _markdown(fmt: str, items: Sequence[Exported], skipped: Sequence[Skip]) -> str:
    out = [f"{MARKER}{fmt} digest={ZEROS} : written by engram export from the approved "
           "memories in .agents/.engram/; change those (engram save), then export again -->",
           "", "# Project memory", "", _INTRO[fmt], ""]
    for mtype, heading in _HEADINGS.items():
        group = [e for e in items if e.memory.type == mtype]
        if group:
            out += [f"## {heading}", ""]
            for e in group:
                out += _entry(e)
            if out[-1]:
                out.append("")
    out += [f"<!-- engram:export skipped {_comment(s.name)}: {_comment(s.shown_reason)} "
            f"({_comment(s.fix)}) -->" for s in skipped]
    return "\n".join(out).rstrip("\n") + "\n"


def _entry(e: Exported) -> list[str]:
    """A one-line memory as one bullet; a longer one (a procedure, a skill) under its title."""
    lines = e.text.splitlines()
    roles = f" (for role {', '.join(e.memory.roles)})" if e.memory.roles else ""
    why = " ".join(e.context.split())
    if len(lines) == 1 and e.memory.type != "skill":
        return [f"- {lines[0]}{f' Why: {why}' if why else ''}{roles}"]
    out = [f"### {e.memory.title}{roles}", "", *(f"- {ln}" for ln in lines)]
    return [*out, *(["", f"Why: {why}"] if why else []), ""]


def _comment(text: str) -> str:
    """Text inside an HTML comment: `--` would end or break it."""
    return text.replace("--", "- -")
