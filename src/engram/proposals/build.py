"""From an approved candidate to memory content: new memories, UPDATE merges, superseded marks.

Pure functions over `Memory` values; rendering to text is `store.format.render_memory`, writing is
`store.repo`. New memories get canonical v3 frontmatter (authority from the type, revision 1,
today's dates, git author); an UPDATE merges bullets, tags, triggers and depends_on and bumps
`revision`; a SUPERSEDE marks the old memory `lifecycle: superseded` with `superseded_by`.
Sections a merge does not touch (Context, Example, Origin, …) are kept byte for byte.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import Any

from engram.proposals.author import Author
from engram.proposals.candidates import Candidate
from engram.proposals.similarity import POLARITY_WORDS, STOP_WORDS, content_key
from engram.proposals.variants import sentence, variants_for
from engram.store.format import render_body, render_file, sections
from engram.store.ids import title_from_text
from engram.store.model import AUTHORITY, SCHEMA_VERSION, TYPE_DIR, Memory
from engram.workspace import Scope

MAX_TAGS = 5
_SECTION = re.compile(r"^## +(.+?)[ \t]*$", re.M)
_GENERIC = frozenset({"memory", "rule", "rules", "skill", "knowledge", "task", "agent", "engram",
                      "before", "after", "make", "sure", "run", "use", "using"})


def bullets(text: str) -> list[str]:
    """The candidate text as Markdown bullets: one per line, list markers normalised."""
    out = []
    for line in text.splitlines():
        s = re.sub(r"^\s*(?:[-*+]|\d+[.)])\s+", "", line).strip()
        if s:
            out.append(f"- {s}")
    return out


def derive_tags(candidate: Candidate) -> list[str]:
    if candidate.tags:
        return list(candidate.tags)
    tags: list[str] = []
    for word in re.findall(r"[a-z0-9][a-z0-9-]*", title_from_text(candidate.text).lower()):
        if (len(word) > 2 and word not in STOP_WORDS and word not in POLARITY_WORDS
                and word not in _GENERIC and word not in tags):
            tags.append(word)
    return tags[:MAX_TAGS]


def new_memory(c: Candidate, mid: str, scope: Scope, today: str, author: Author,
               *, source: str = "manual", supersedes: str | None = None) -> Memory:
    title = title_from_text(c.text)
    meta: dict[str, Any] = {
        "authority": AUTHORITY[c.type], "confidence": c.confidence, "created": today, "id": mid,
        "last_confirmed": today, "revision": 1, "schema_version": SCHEMA_VERSION, "scope": scope,
        "source": source, "tags": derive_tags(c), "type": c.type, "updated": today,
        "valid_from": today, **author.meta(),
    }
    optional = {"depends_on": list(c.depends_on), "level": c.level, "role": list(c.role),
                "triggers": list(c.triggers), "supersedes": [supersedes] if supersedes else None}
    meta.update({k: v for k, v in optional.items() if v})
    if c.source_files:  # adopted by take-control: the TypeScript tool's schema v3 provenance
        meta.update(source="take-control", source_files=list(c.source_files),
                    source_hashes=list(c.source_hashes))
    if c.anchors:
        meta["anchors"] = list(c.anchors)
    variants = variants_for(c.text, c.variants) if c.type == "rule" else {}
    body = compose_body(title, bullets(c.text), c.context, variants)
    return Memory(id=mid, type=c.type, title=title, meta=meta, body=body,
                  content="\n".join(bullets(c.text)), rel_path=f"{TYPE_DIR[c.type]}/{mid}.md",
                  scope=scope, variants=variants)


def compose_body(title: str, items: Sequence[str], context: str,
                 variants: dict[str, str]) -> str:
    shown = {name: f"- {text.lstrip('- ')}" for name, text in variants.items()}
    extra = {"Context": sentence(context)} if context else None
    return render_body(title, "\n".join(items), shown, extra)


def to_text(memory: Memory) -> str:
    """The file text of a built memory: canonical frontmatter on its body."""
    return render_file(memory.meta, memory.body)


def merged(old: Memory, c: Candidate, today: str) -> Memory:
    """UPDATE: union of bullets, tags, triggers, depends_on; revision + 1; confirmed today.
    A candidate with `renames` first rewrites those paths in the old memory."""
    if c.renames:
        old = renamed(old, c.renames)
    items = _union(bullets(old.content), bullets(c.text))
    meta = dict(old.meta)
    for key, extra in (("tags", derive_tags(c)), ("triggers", list(c.triggers)),
                       ("depends_on", list(c.depends_on)), ("role", list(c.role))):
        values = _union(_as_list(meta.get(key)), extra, key=str.lower)
        if values:
            meta[key] = values
    meta["revision"] = _int(meta.get("revision"), 1) + 1
    meta["last_confirmed"] = today
    meta["updated"] = today
    meta["schema_version"] = SCHEMA_VERSION
    if c.level:
        meta["level"] = c.level
    body = replace_section(old.body, "Content", "\n".join(items))
    if c.context:
        # The new candidate's why (or the human's B note) joins the old one, never replaces it.
        before = sections(old.body).get("context", "")
        added = sentence(c.context)
        if added not in before:
            body = replace_section(body, "Context", f"{before}\n\n{added}".strip())
    variants = dict(old.variants)
    if c.variants and old.type == "rule":
        variants.update(variants_for(c.text, c.variants) if not old.variants else c.variants)
        block = "\n\n".join(f"### {n.capitalize()}\n\n- {variants[n].lstrip('- ')}"
                            for n in ("light", "balanced", "strict") if n in variants)
        body = replace_section(body, "Rule Variants", block)
    return Memory(id=old.id, type=old.type, title=old.title, meta=meta, body=body,
                  content="\n".join(items), rel_path=old.rel_path, scope=old.scope,
                  variants=variants, schema_version=SCHEMA_VERSION)


def renamed(old: Memory, renames: Sequence[tuple[str, str]]) -> Memory:
    """`old` with each repository path rewritten in its body and its `anchors:` list."""
    from engram.anchors.rewrite import rewrite_paths

    body = rewrite_paths(old.body, renames)
    meta = dict(old.meta)
    if isinstance(meta.get("anchors"), list):
        meta["anchors"] = [rewrite_paths(str(a), renames) for a in meta["anchors"]]
    variants = {k: rewrite_paths(v, renames) for k, v in old.variants.items()}
    return old._replace(meta=meta, body=body, content=rewrite_paths(old.content, renames),
                        variants=variants)


def superseded(old: Memory, new_id: str, today: str) -> Memory:
    meta = dict(old.meta)
    meta.update({"lifecycle": "superseded", "superseded_by": new_id, "updated": today})
    return Memory(id=old.id, type=old.type, title=old.title, meta=meta, body=old.body,
                  content=old.content, rel_path=old.rel_path, scope=old.scope,
                  variants=old.variants, schema_version=old.schema_version)


def replace_section(body: str, name: str, text: str) -> str:
    """Replace the text under `## name` (up to the next `## `), appending the section if absent."""
    heads = list(_SECTION.finditer(body))
    for i, m in enumerate(heads):
        if m.group(1).strip().lower() == name.lower():
            end = heads[i + 1].start() if i + 1 < len(heads) else len(body)
            tail = body[end:]
            return body[:m.end()] + "\n\n" + text.strip("\n") + ("\n\n" + tail if tail else "\n")
    return body.rstrip("\n") + f"\n\n## {name}\n\n" + text.strip("\n") + "\n"


def _union(a: Iterable[str], b: Iterable[str], key: Any = content_key) -> list[str]:
    seen: dict[str, str] = {}
    for item in [*a, *b]:
        seen.setdefault(key(item), item)
    return list(seen.values())


def _as_list(value: Any) -> list[str]:
    if value is None or value == "":
        return []
    if isinstance(value, list):
        return [str(v) for v in value]
    return [s.strip() for s in str(value).split(",") if s.strip()]


def _int(value: Any, default: int) -> int:
    try:
        return int(value)
    except (TypeError, ValueError):
        return default
