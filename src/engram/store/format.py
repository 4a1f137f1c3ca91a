"""Memory files: Markdown with YAML frontmatter, schema v3, and the legacy v1/v2 bodies
(README.md#how-it-works).

`parse_memory` turns file text into a `Memory` or raises `InvalidMemoryError` with the file, the
line and the reason; `render_memory` builds canonical v3 text (sorted keys, fixed section order);
`render_file` puts new frontmatter on an unchanged body (used by upgrades). Pure: no I/O.
"""

from __future__ import annotations

import re
from typing import Any

from engram.errors import InvalidIdError, InvalidMemoryError
from engram.store import frontmatter
from engram.store.ids import validate_id
from engram.store.model import AUTHORITY, DIR_TYPE, SCHEMA_VERSION, TYPE_ALIASES, VARIANTS, Memory
from engram.workspace import Scope

_H2 = re.compile(r"^## +(.+?)\s*$", re.M)
_H3 = re.compile(r"^### +(.+?)\s*$", re.M)
_H1 = re.compile(r"^# +(.+?)\s*$", re.M)


def split_file(text: str, rel_path: str) -> tuple[str, str, int]:
    """Return (frontmatter text, body, line number of the first body line)."""
    if text.startswith("\ufeff"):
        text = text[1:]
    text = text.replace("\r\n", "\n")
    if not text.startswith("---\n"):
        raise InvalidMemoryError(rel_path, 1, "missing frontmatter: the file must start with ---")
    end = text.find("\n---", 3)
    while end != -1 and text[end + 4 : end + 5] not in ("\n", ""):
        end = text.find("\n---", end + 4)
    if end == -1:
        raise InvalidMemoryError(rel_path, 1, "frontmatter is not closed with a --- line")
    fm = text[4 : end + 1]
    body = text[end + 5 :]
    body_line = fm.count("\n") + 3
    if body.startswith("\n"):
        body, body_line = body[1:], body_line + 1
    return fm, body, body_line


def sections(body: str, pattern: re.Pattern[str] = _H2) -> dict[str, str]:
    """Map lower-cased heading → stripped text up to the next heading of the same level."""
    out: dict[str, str] = {}
    matches = list(pattern.finditer(body))
    for i, m in enumerate(matches):
        end = matches[i + 1].start() if i + 1 < len(matches) else len(body)
        out.setdefault(m.group(1).strip().lower(), body[m.end() : end].strip("\n").strip())
    return out


def _key_line(fm: str, key: str) -> int:
    for n, line in enumerate(fm.split("\n"), 2):
        if line.startswith(f"{key}:"):
            return n
    return 1


def _one_word(value: object) -> str:
    """A bad value from the file, repeated only when it is one short word (`recipe`): anything
    longer is text nobody reviewed, and parse errors reach agents."""
    text = str(value)
    return f" {text!r}" if text.isascii() and text.isalpha() and len(text) <= 16 else ""


def parse_memory(text: str, rel_path: str, scope: Scope = "workspace") -> Memory:
    fm, body, body_line = split_file(text, rel_path)
    try:
        meta = frontmatter.parse(fm)
    except frontmatter.FrontmatterError as exc:
        raise InvalidMemoryError(rel_path, exc.line + 1, exc.reason) from exc
    stem = rel_path.rsplit("/", 1)[-1].removesuffix(".md")
    raw_id = meta.get("id")
    if raw_id is None:  # no `id:`, or an empty one (`id:`, `id: null`): the file name
        raw_id = stem
    if isinstance(raw_id, bool | float) or not isinstance(raw_id, str | int):
        # `id: true` read as a bool, `id: 1e3` as a float: Python's spelling (`True`, `1000.0`)
        # is in no file, so the id must be written as text.
        raise InvalidMemoryError(rel_path, _key_line(fm, "id"),
                                 "id must be text such as deploy-notes; write it in quotes "
                                 "(id: \"...\") or fix the value")
    try:
        mem_id = validate_id(str(raw_id))
    except InvalidIdError as exc:
        # The value is text nobody reviewed: say what is wrong, not what it is.
        why = exc.message.replace(f" {str(raw_id)!r}", "")
        raise InvalidMemoryError(rel_path, _key_line(fm, "id"), why) from exc
    parts = rel_path.split("/")
    dir_type = DIR_TYPE.get(parts[-2]) if len(parts) >= 2 else None
    raw_type = meta.get("type") or dir_type
    mtype = TYPE_ALIASES.get(str(raw_type).lower()) if raw_type else None
    if mtype is None:
        raise InvalidMemoryError(rel_path, _key_line(fm, "type"),
                                 f"unknown type{_one_word(raw_type)}; use rule, skill or "
                                 "knowledge")
    secs = sections(body)
    if "content" not in secs:
        raise InvalidMemoryError(rel_path, body_line, "no `## Content` section")
    version = meta.get("schema_version")
    if not isinstance(version, int):
        version = 1 if "context" in secs or "example" in secs else 2
    meta = dict(meta)
    meta.setdefault("authority", AUTHORITY[mtype])
    meta.setdefault("revision", 1)
    title_match = _H1.search(body)
    title = title_match.group(1).strip() if title_match else str(meta.get("title") or mem_id)
    return Memory(
        id=mem_id, type=mtype, title=title, meta=meta, body=body, content=secs["content"],
        rel_path=rel_path, scope=scope, variants=parse_variants(secs.get("rule variants", "")),
        schema_version=version,
    )


def parse_variants(section: str) -> dict[str, str]:
    subs = sections(section, _H3)
    return {v: subs[v] for v in VARIANTS if subs.get(v)}


def render_file(meta: dict[str, Any], body: str) -> str:
    return f"---\n{frontmatter.render(meta)}\n---\n\n{body.lstrip(chr(10))}"


def render_body(title: str, content: str, variants: dict[str, str] | None = None,
                extra_sections: dict[str, str] | None = None) -> str:
    parts = [f"# {title}", "## Content", content.strip()]
    for name, text in (extra_sections or {}).items():
        parts += [f"## {name}", text.strip()]
    if variants:
        parts.append("## Rule Variants")
        for v in VARIANTS:
            if variants.get(v):
                parts += [f"### {v.capitalize()}", variants[v].strip()]
    return "\n\n".join(parts) + "\n"


def render_memory(meta: dict[str, Any], title: str, content: str,
                  variants: dict[str, str] | None = None,
                  extra_sections: dict[str, str] | None = None) -> str:
    """Canonical v3 file text."""
    meta = {**meta, "schema_version": SCHEMA_VERSION}
    meta.setdefault("authority", AUTHORITY.get(str(meta.get("type")), "reference"))
    return render_file(meta, render_body(title, content, variants, extra_sections))


def upgrade_text(memory: Memory) -> str:
    """v1/v2 → v3: canonical frontmatter, body byte-identical (README.md#how-it-works)."""
    meta = dict(memory.meta)
    meta.update(schema_version=SCHEMA_VERSION, id=memory.id, type=memory.type)
    return render_file(meta, memory.body)
