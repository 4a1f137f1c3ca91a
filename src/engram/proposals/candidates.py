"""Candidate parsing (docs/saving.md): pipe form, plain text with type inference, dict input from
MCP.

A proposal holds 1..8 candidates numbered from 1. Pipe form is one candidate per line:
`TYPE: rule | TEXT: … | CONTEXT: … | DEPENDS_ON: a, b | LEVEL: advanced | UPDATE: id |
SUPERSEDES: id | ROLE: backend | TRIGGERS: release, tag | TAGS: … | CONFIDENCE: high |
LIGHT: … | BALANCED: … | STRICT: …`. `RENAME: old/path -> new/path; …` goes with UPDATE: the
update rewrites those repository paths in the target (what `engram stale --propose` drafts).
Every problem is a `UsageError` naming the candidate, the
field and what is allowed. This module does not compute verdicts or touch files.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from engram.config import normalise_roles
from engram.errors import ConfigValueError, UsageError
from engram.store.ids import validate_id
from engram.store.model import TYPE_ALIASES, MemoryType

MAX_CANDIDATES = 8
MAX_TEXT_CHARS = 4000
LEVELS = ("foundation", "intermediate", "advanced")
CONFIDENCES = ("high", "medium", "low")
FIELDS = ("TYPE", "TEXT", "CONTEXT", "DEPENDS_ON", "LEVEL", "UPDATE", "SUPERSEDES", "ROLE",
          "TRIGGERS", "TAGS", "CONFIDENCE", "LIGHT", "BALANCED", "STRICT", "RENAME",
          "SOURCE_FILES", "ANCHORS")
_FIELD_START = re.compile(r"^\s*([A-Za-z][A-Za-z_]*)\s*:\s*")
# A segment boundary is a pipe followed by an upper-case FIELD: so pipes inside text survive.
_SEGMENT = re.compile(r"\|\s*(?=[A-Z][A-Z_]*\s*:)")

_RULE_START = frozenset(str.split(
    """always never must don't dont do avoid prefer use keep write add call check put make
    ensure store name follow run never only pin set avoid remember require document test
    commit tag push review validate verify"""
))
_RULE_WORDS = re.compile(
    r"\b(always|never|must|should|shouldn't|don't|do not|avoid|prefer|no longer|required?)\b", re.I
)
_PROCEDURE = re.compile(
    r"(^|\s)(\d+[.)]\s|step \d|first,? |then |finally,? |afterwards|how to |procedure|workflow)|->",
    re.I,
)


@dataclass(frozen=True)
class Candidate:
    """One proposed memory, canonical: every list de-duplicated, ids validated."""

    number: int
    type: MemoryType
    text: str
    context: str = ""
    depends_on: tuple[str, ...] = ()
    level: str | None = None
    update: str | None = None
    supersedes: str | None = None
    role: tuple[str, ...] = ()
    triggers: tuple[str, ...] = ()
    tags: tuple[str, ...] = ()
    confidence: str = "high"
    variants: dict[str, str] = field(default_factory=dict)
    renames: tuple[tuple[str, str], ...] = ()
    # Provenance of an adopted memory (engram take-control, docs/adopting.md): the guidance
    # files it came from and their SHA-256 as Engram computed them (never taken from input).
    source_files: tuple[str, ...] = ()
    source_hashes: tuple[str, ...] = ()
    anchors: tuple[str, ...] = ()  # `paths:`/`globs:` of the source, as `anchors:` frontmatter

    def declared(self) -> set[str]:
        """Ids this candidate explicitly relates itself to (what makes a hint "answered")."""
        out = set(self.depends_on)
        out.update(x for x in (self.update, self.supersedes) if x)
        return out

    def to_dict(self) -> dict[str, Any]:
        return {
            "number": self.number, "type": self.type, "text": self.text,
            "context": self.context, "depends_on": list(self.depends_on), "level": self.level,
            "update": self.update, "supersedes": self.supersedes, "role": list(self.role),
            "triggers": list(self.triggers), "tags": list(self.tags),
            "confidence": self.confidence, "variants": dict(sorted(self.variants.items())),
        } | ({"rename": [f"{a} -> {b}" for a, b in self.renames]} if self.renames else {}) \
          | ({"source_files": list(self.source_files), "source_hashes": list(self.source_hashes)}
             if self.source_files else {}) \
          | ({"anchors": list(self.anchors)} if self.anchors else {})

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Candidate:
        """A candidate as a token stored it (to_dict): hashes included, as Engram made them."""
        built = _build(int(data["number"]), {k: v for k, v in data.items()
                                             if k not in ("number", "source_hashes")})
        hashes = tuple(str(h) for h in data.get("source_hashes") or ())
        return replace(built, source_hashes=hashes) if hashes else built


def parse_candidates(
    source: str | Sequence[Mapping[str, Any]],
    *,
    default_type: str | None = None,
    single: bool = False,
) -> list[Candidate]:
    """Parse candidates. `single=True` (engram save) keeps plain multi-line text as one memory."""
    if isinstance(source, str):
        raw = _split_text(source, single=single)
    else:
        raw = [_from_mapping(i, item) for i, item in enumerate(source, 1)]
    if not raw:
        raise UsageError("no candidate text given", code="candidate.empty",
                         hint='pass the memory text, e.g. engram save "Always run tests first"')
    if len(raw) > MAX_CANDIDATES:
        raise UsageError(
            f"{len(raw)} candidates given; a proposal holds at most {MAX_CANDIDATES}",
            code="candidate.limit", hint="split them into several proposals")
    if default_type is not None:
        for fields in raw:
            fields.setdefault("type", default_type)
    return [_build(n, fields) for n, fields in enumerate(raw, 1)]


def _split_text(text: str, *, single: bool) -> list[dict[str, Any]]:
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    if single and not any(_is_pipe(ln) for ln in lines):
        joined = "\n".join(lines)
        return [{"text": joined}] if joined else []
    return [_parse_pipe(ln, n) if _is_pipe(ln) else {"text": ln} for n, ln in enumerate(lines, 1)]


def _is_pipe(line: str) -> bool:
    m = _FIELD_START.match(line)
    return m is not None and m.group(1).upper() in FIELDS and m.group(1).isupper()


def _parse_pipe(line: str, number: int) -> dict[str, Any]:
    fields: dict[str, Any] = {}
    for segment in _SEGMENT.split(line):
        m = _FIELD_START.match(segment)
        if not m:
            continue
        name = m.group(1).upper()
        if name not in FIELDS:
            raise UsageError(f"candidate {number}: unknown field {m.group(1)}",
                             code="candidate.field", hint=f"known fields: {', '.join(FIELDS)}")
        if name.lower() in fields:
            raise UsageError(f"candidate {number}: field {name} given twice",
                             code="candidate.field", hint="give each field once per line")
        fields[name.lower()] = segment[m.end():].strip()
    return fields


def _from_mapping(number: int, item: Mapping[str, Any]) -> dict[str, Any]:
    if not isinstance(item, Mapping):
        raise UsageError(f"candidate {number}: expected an object with a text field",
                         code="candidate.value", hint='use {"text": "…", "type": "rule"}')
    out: dict[str, Any] = {}
    for key, value in item.items():
        name = str(key).lower()
        if name == "number":
            continue
        if name.upper() not in FIELDS and name != "variants":
            raise UsageError(f"candidate {number}: unknown field {key}", code="candidate.field",
                             hint=f"known fields: {', '.join(f.lower() for f in FIELDS)}")
        out[name] = value
    return out


def _build(number: int, f: Mapping[str, Any]) -> Candidate:
    def fail(name: str, why: str, hint: str) -> UsageError:
        return UsageError(f"candidate {number}: {name} {why}", code="candidate.value", hint=hint)

    text = _text(f.get("text"))
    if not text:
        raise UsageError(f"candidate {number}: the text is empty", code="candidate.empty",
                         hint="give the memory text (TEXT: … in pipe form)")
    if not any(ch.isalnum() for ch in text):  # `|||||`: nothing a memory could say
        raise UsageError(f"candidate {number}: the text has no word in it",
                         code="candidate.empty", hint="give the memory text as a sentence, "
                         "e.g. Run the smoke suite before tagging a release")
    if len(text) > MAX_TEXT_CHARS:
        raise fail("TEXT", f"is {len(text)} characters long", f"keep it under {MAX_TEXT_CHARS}")
    mtype = _type(f.get("type"), text, number)
    variants = _variants(f, mtype, fail)
    level = _text(f.get("level")).lower() or None
    if level is not None and level not in LEVELS and not level.isdigit():
        raise fail("LEVEL", f"{level!r} is not allowed",
                   f"use one of {', '.join(LEVELS)} or a number")
    confidence = _text(f.get("confidence")).lower() or "high"
    if confidence not in CONFIDENCES:
        raise fail("CONFIDENCE", f"{confidence!r} is not allowed", f"use {', '.join(CONFIDENCES)}")
    update, supersedes = _one_id(f.get("update"), number), _one_id(f.get("supersedes"), number)
    if update and supersedes:
        raise fail("UPDATE", "and SUPERSEDES are both given", "a candidate updates or supersedes")
    renames = _renames(f.get("rename"), fail)
    if renames and not update:
        raise fail("RENAME", "needs UPDATE", "name the memory whose paths change: UPDATE: <id>")
    return Candidate(
        number=number, type=mtype, text=text, context=_text(f.get("context")),
        depends_on=tuple(validate_id(x) for x in _list(f.get("depends_on"))),
        level=level, update=update, supersedes=supersedes,
        role=_roles(f.get("role"), number),
        triggers=_list(f.get("triggers")), tags=tuple(x.lower() for x in _list(f.get("tags"))),
        confidence=confidence, variants=variants, renames=renames,
        source_files=_relative(_list(f.get("source_files")), "SOURCE_FILES", fail),
        anchors=_relative(_list(f.get("anchors")), "ANCHORS", fail),
    )


def _relative(items: tuple[str, ...], name: str, fail: Any) -> tuple[str, ...]:
    """Repository-relative paths or globs (`~/…` for a host's memory file): never absolute,
    never climbing out with `..`."""
    for item in items:
        parts = item.removeprefix("~/").replace("\\", "/").split("/")
        if item.startswith(("/", "\\")) or ".." in parts or ":" in parts[0] or "\0" in item:
            raise fail(name, f"{item!r} is not a repository-relative path",
                       "name files as the take-control pack shows them, e.g. CLAUDE.md")
    return items


def _roles(value: Any, number: int) -> tuple[str, ...]:
    try:
        return tuple(normalise_roles(_list(value)))
    except ConfigValueError as exc:
        raise UsageError(f"candidate {number}: ROLE {exc.message}", code="candidate.value",
                         hint=exc.hint) from exc
def _renames(value: Any, fail: Any) -> tuple[tuple[str, str], ...]:
    """`old -> new` pairs, separated by `;` (or a list of such strings)."""
    from engram.anchors.extract import path_shaped

    items = value if isinstance(value, list | tuple) else _text(value).split(";")
    out = []
    for item in items:
        text = _text(item)
        if not text:
            continue
        old, sep, new = text.partition("->")
        a, b = path_shaped(old), path_shaped(new)
        if not sep or a is None or b is None or a == b:
            raise fail("RENAME", f"{text!r} is not `old/path -> new/path`",
                       "give repository-relative paths, e.g. RENAME: ops/a.yaml -> infra/a.yaml")
        out.append((a, b))
    return tuple(out)


def _type(value: Any, text: str, number: int) -> MemoryType:
    name = _text(value).lower()
    if not name:
        return infer_type(text)
    if name not in TYPE_ALIASES:
        raise UsageError(f"candidate {number}: unknown type {name!r}", code="candidate.type",
                         hint="use rule, skill (or workflow) or knowledge")
    return TYPE_ALIASES[name]


def _variants(f: Mapping[str, Any], mtype: MemoryType, fail: Any) -> dict[str, str]:
    given = dict(f.get("variants") or {})
    for name in ("light", "balanced", "strict"):
        if _text(f.get(name)):
            given[name] = _text(f.get(name))
    unknown = set(given) - {"light", "balanced", "strict"}
    if unknown:
        raise fail("variants", f"has unknown names {sorted(unknown)}",
                   "use light, balanced, strict")
    if given and mtype != "rule":
        raise fail("LIGHT/BALANCED/STRICT", "only apply to rules", "drop them or use TYPE: rule")
    return {k: _text(v) for k, v in sorted(given.items()) if _text(v)}


def _one_id(value: Any, number: int) -> str | None:
    items = _list(value)
    if len(items) > 1:
        raise UsageError(f"candidate {number}: UPDATE/SUPERSEDES takes one id, got {items}",
                         code="candidate.value", hint="propose one candidate per target")
    return validate_id(items[0]) if items else None


def _text(value: Any) -> str:
    if value is None:
        return ""
    if not isinstance(value, str | int):
        raise UsageError(f"expected text, got {value!r}", code="candidate.value",
                         hint="fields are strings (lists may be comma-separated)")
    return str(value).strip()


def _list(value: Any) -> tuple[str, ...]:
    items = value if isinstance(value, list | tuple) else _text(value).split(",")
    seen: dict[str, None] = {}
    for item in items:
        s = _text(item)
        if s:
            seen.setdefault(s, None)
    return tuple(seen)


def infer_type(text: str) -> MemoryType:
    """Procedural → skill, imperative/always/never → rule, else knowledge (docs/saving.md)."""
    first = text.split(None, 1)[0].lower().strip(",.:;!") if text.split() else ""
    steps = len(_PROCEDURE.findall(text))
    if steps >= 2 or (steps == 1 and first not in {"always", "never", "must"}
                      and not _RULE_WORDS.search(text)):
        return "skill"
    if first in _RULE_START or _RULE_WORDS.search(text):
        return "rule"
    return "knowledge"
