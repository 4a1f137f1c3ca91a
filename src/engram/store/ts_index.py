"""Keep the TypeScript tool's `memory.index.json` current when a root has one.

The TypeScript Engram routes from `memory.index.json` in the root (`{version, last_updated,
entries: [...]}`, one entry per active memory file), which it rebuilds on its own writes. A
memory Engram for Python writes is invisible to it until that file is refreshed, so every write
through `Store.write_files` updates the entries of the files it changed — only when the file
already exists: a root the TypeScript tool never used gets no such file. Entries keep the
TypeScript tool's shape and key order (recorded in tests/fixtures/ts_workspace); `summary` and
`routingTerms` are our own derivation from the title and content (plain lower-case words), which
is what its router matches a task against. The file's `version` is left as its tool wrote it.
"""

from __future__ import annotations

import bisect
import json
import re
from collections.abc import Iterable
from datetime import UTC, datetime
from typing import Any

from engram import jsontext
from engram.store.model import Memory

INDEX_NAME = "memory.index.json"
INDEXED_DIRS = ("rules/", "skills/", "knowledge/")
SUMMARY_CHARS = 140
MAX_TERMS = 256
DEFAULT_AUTHORITY = {"rule": "instruction", "skill": "instruction", "knowledge": "reference"}
_WORD = re.compile(r"[a-z0-9][a-z0-9_-]*[a-z0-9]|[a-z0-9]")
_HEADING = re.compile(r"^#{1,6}\s.*$", re.M)
_BULLET = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+", re.M)
_VARIANTS = re.compile(r"^##\s+rule\s+variants\b", re.I | re.M)
# Function words a router gains nothing from; anything of three letters or more else is a term.
_FILLER_TEXT = """
the and for are but not you your with this that these those from into onto then than when what
which who how why all any can has have had was were its our out use via per each before after
always never should must
"""
_FILLER = frozenset(_FILLER_TEXT.split())


def indexed(rel: str) -> bool:
    """Files the TypeScript index lists: active memories, not archive/ or working notes."""
    return rel.endswith(".md") and rel.startswith(INDEXED_DIRS)


def _text_of(m: Memory) -> str:
    body = _VARIANTS.split(m.body, maxsplit=1)[0]
    return " ".join(_BULLET.sub("", _HEADING.sub(" ", body)).split())


def summary(m: Memory) -> str:
    text = " ".join(f"{m.title}. {_text_of(m)}".split()) if m.title else _text_of(m)
    if len(text) <= SUMMARY_CHARS:
        return text
    cut = text[:SUMMARY_CHARS].rsplit(" ", 1)[0]
    return cut.rstrip(" .,;:") + "..."


def routing_terms(m: Memory) -> list[str]:
    words = _WORD.findall(f"{m.title} {_text_of(m)}".lower())
    seen: dict[str, None] = {}
    for w in words:
        if len(w) >= 3 and w not in _FILLER and not w.isdigit():
            seen.setdefault(w)
    return [*seen, *m.triggers][:MAX_TERMS]


def entry(m: Memory) -> dict[str, Any]:
    """One index entry, keys in the TypeScript tool's order; absent optional keys omitted."""
    meta = m.meta
    email = str(meta.get("author_email") or "").strip()
    legacy = str(meta.get("author") or "").strip()
    name = str(meta.get("author_name") or "").strip()
    out: dict[str, Any] = {
        "id": m.id, "type": m.type, "scope": str(meta.get("scope") or m.scope),
        "tags": m.tags or [w for w in _WORD.findall(m.title.lower()) if len(w) >= 3],
        "summary": summary(m), "routingTerms": routing_terms(m), "file": m.rel_path,
        "author": email or legacy or "unknown",
    }
    if name:
        out["authorName"] = name
    if email or legacy:
        out["authorEmail"] = email or legacy
    if legacy and not email:
        out["legacyAuthorEmail"] = legacy
    out["confidence"] = str(meta.get("confidence") or "medium")
    out["authority"] = str(meta.get("authority") or DEFAULT_AUTHORITY.get(m.type, "reference"))
    out["ignored"] = False
    out["updated"] = m.updated
    if m.depends_on:
        out["dependsOn"] = m.depends_on
    if m.roles:
        out["role"] = m.roles
    for key, camel in (("revision", "revision"), ("supersedes", "supersedes"),
                       ("superseded_by", "supersededBy"), ("valid_from", "validFrom"),
                       ("valid_until", "validUntil"), ("last_confirmed", "lastConfirmed")):
        value = meta.get(key)
        if value in (None, "", []):
            continue
        if key == "revision":
            text = str(value)  # `"²"` is isdigit() too; int() refuses it and 5,000 digits
            value = int(text) if text.isascii() and text.isdigit() and len(text) < 19 \
                else value
        elif key == "supersedes":
            value = value if isinstance(value, list) else [str(value)]
        else:
            value = str(value)
        out[camel] = value
    return out


def updated_index(text: str, written: Iterable[Memory], removed: Iterable[str],
                  now: datetime | None = None) -> str | None:
    """The index text with `written` entries replaced or added and `removed` files dropped.

    None when `text` is not an index this module understands (left alone, never guessed at)."""
    try:
        data = jsontext.loads(text)
    except ValueError:
        return None
    if not isinstance(data, dict) or not isinstance(data.get("entries"), list):
        return None
    entries: list[Any] = data["entries"]
    fresh = {m.rel_path: entry(m) for m in written}
    gone = set(removed) | set(fresh)
    by_id = {e["id"] for e in fresh.values()}
    kept = [e for e in entries if not (isinstance(e, dict) and (
        e.get("file") in gone or (e.get("scope") != "global" and e.get("id") in by_id)))]
    files = [str(e.get("file", "")) if isinstance(e, dict) else "" for e in kept]
    in_order = files == sorted(files)
    for rel in sorted(fresh):
        if in_order:
            at = bisect.bisect(files, rel)
            files.insert(at, rel)
            kept.insert(at, fresh[rel])
        else:
            kept.append(fresh[rel])
    data["entries"] = kept
    stamp = (now or datetime.now(UTC)).astimezone(UTC)
    millis = f"{stamp.microsecond // 1000:03d}"
    data["last_updated"] = stamp.strftime("%Y-%m-%dT%H:%M:%S.") + millis + "Z"
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"
