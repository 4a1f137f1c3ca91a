"""The memory model: what one memory file means once parsed. Pure data, no I/O.

A `Memory` keeps the full frontmatter (`meta`, canonical v3 keys) and the Markdown body; the
fields the engine needs often (id, type, title, tags, …) are lifted out for speed and clarity.
"""

from __future__ import annotations

from typing import Any, Literal, NamedTuple

from engram.workspace import Scope

MemoryType = Literal["rule", "skill", "knowledge"]
TYPES: tuple[MemoryType, ...] = ("rule", "skill", "knowledge")
TYPE_DIR: dict[str, str] = {"rule": "rules", "skill": "skills", "knowledge": "knowledge"}
DIR_TYPE: dict[str, MemoryType] = {
    "rules": "rule", "skills": "skill", "knowledge": "knowledge"}
TYPE_ALIASES: dict[str, MemoryType] = {
    "rule": "rule", "rules": "rule", "constraint": "rule", "preference": "rule",
    "correction": "rule", "skill": "skill", "skills": "skill", "workflow": "skill",
    "procedure": "skill", "knowledge": "knowledge", "fact": "knowledge", "decision": "knowledge",
}
AUTHORITY: dict[str, str] = {
    "rule": "instruction", "skill": "instruction", "knowledge": "reference"}
VARIANTS: tuple[str, ...] = ("light", "balanced", "strict")
SCHEMA_VERSION = 3


class Memory(NamedTuple):
    """One parsed memory file.

    `body` is the Markdown after the frontmatter, exactly as in the file. `content` is the text of
    its `## Content` section; `variants` maps light/balanced/strict to their text (rules only).
    `rel_path` is the posix path relative to its root; `scope` says which root. A NamedTuple:
    immutable, and cheap to define on every cold command (outcome.py says why).
    """

    id: str
    type: MemoryType
    title: str
    meta: dict[str, Any]
    body: str
    content: str
    rel_path: str
    scope: Scope = "workspace"
    variants: dict[str, str] = {}  # shared default: a Memory is never mutated in place
    schema_version: int = SCHEMA_VERSION

    @property
    def key(self) -> str:
        return f"{self.scope}:{self.id}"

    @property
    def tags(self) -> list[str]:
        return _str_list(self.meta.get("tags"))

    @property
    def triggers(self) -> list[str]:
        return _str_list(self.meta.get("triggers"))

    @property
    def depends_on(self) -> list[str]:
        return _str_list(self.meta.get("depends_on"))

    @property
    def roles(self) -> list[str]:
        return _str_list(self.meta.get("role"))

    @property
    def lifecycle(self) -> str:
        if self.rel_path.startswith("archive/"):
            return "archived"
        return str(self.meta.get("lifecycle") or "active")

    @property
    def confidence(self) -> str:
        return str(self.meta.get("confidence") or "high")

    @property
    def tier(self) -> str:
        return str(self.meta.get("tier") or "durable")

    @property
    def is_note(self) -> bool:
        return self.tier == "working"

    @property
    def valid_until(self) -> str | None:
        v = self.meta.get("valid_until")
        return str(v) if v else None

    @property
    def updated(self) -> str:
        return str(self.meta.get("updated") or self.meta.get("created") or "")


def _str_list(value: Any) -> list[str]:
    """A list field as words; scalars of other YAML types spelt as YAML spells them (`true`,
    not Python's `True`), and what is no word (null, a nested list or mapping) left out."""
    if isinstance(value, list):
        return [t for t in map(_yaml_text, value) if t]
    return [s.strip() for s in _yaml_text(value).split(",") if s.strip()]


def _yaml_text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value) if isinstance(value, str | int | float) else ""
