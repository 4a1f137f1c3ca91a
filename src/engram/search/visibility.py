"""Which memories routing may show (docs/reading.md), and why a hidden one is hidden.

Routing hides memories that are ignored (config `ignore.patterns` plus `.engramignore` at the
project root), archived, superseded, of low confidence, scoped to roles the user has not set, or
working notes past their `valid_until`. Search hides only ignored and archived ones
(docs/reading.md), and `load --id` hides nothing. This module decides; it neither reads memory files
nor ranks.
"""

from __future__ import annotations

import datetime as dt
import fnmatch
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import NamedTuple, Protocol

from engram import clock
from engram.errors import StorageError
from engram.storage import read_text

IGNORE_FILE = ".engramignore"


class Visible(Protocol):
    """The fields visibility needs; both `Memory` and an index row provide them."""

    @property
    def id(self) -> str: ...
    @property
    def rel_path(self) -> str: ...
    @property
    def lifecycle(self) -> str: ...
    @property
    def confidence(self) -> str: ...
    @property
    def roles(self) -> list[str]: ...
    @property
    def is_note(self) -> bool: ...
    @property
    def valid_until(self) -> str | None: ...


class Policy(NamedTuple):
    """The user's view: ignore patterns, active roles and today's date."""

    ignore: tuple[str, ...] = ()
    roles: frozenset[str] = frozenset()
    today: str = ""

    def is_ignored(self, rel_path: str, memory_id: str) -> bool:
        if not self.ignore:
            return False
        name = rel_path.rsplit("/", 1)[-1]
        for pattern in self.ignore:
            pat = pattern.strip().lstrip("/")
            if pat.endswith("/"):
                # A directory pattern hides everything below it, as in .gitignore.
                if rel_path.startswith(pat) or f"/{pat}" in f"/{rel_path}":
                    return True
                continue
            if fnmatch.fnmatchcase(rel_path, pat) or fnmatch.fnmatchcase(name, pat) \
                    or fnmatch.fnmatchcase(memory_id, pat):
                return True
        return False

    def hidden_reason(self, m: Visible) -> str | None:
        """Why routing must not show `m`, or None when it may."""
        if self.is_ignored(m.rel_path, m.id):
            return "ignored"
        life = m.lifecycle
        if life in ("archived", "superseded"):
            return life
        if m.confidence == "low":
            return "low confidence"
        if m.roles and not (self.roles & {r.lower() for r in m.roles}):
            return f"role {', '.join(m.roles)} not active"
        if m.is_note and (m.valid_until or "") < self.today:
            return "expired working note"
        return None

    def search_hidden_reason(self, m: Visible) -> str | None:
        """Search shows everything that is neither ignored nor archived."""
        if self.is_ignored(m.rel_path, m.id):
            return "ignored"
        return "archived" if m.lifecycle == "archived" else None


def read_ignore_file(project: Path) -> list[str]:
    """Patterns of `<project>/.engramignore`: one glob per line, `#` comments, blanks skipped."""
    try:
        text = read_text(project / IGNORE_FILE)
    except (OSError, StorageError, UnicodeDecodeError):
        return []
    lines = (ln.strip() for ln in text.splitlines())
    return [ln for ln in lines if ln and not ln.startswith("#")]


def make_policy(patterns: Iterable[str], project: Path | None, roles: Sequence[str],
                today: dt.date | None = None) -> Policy:
    extra = read_ignore_file(project) if project is not None else []
    return Policy(
        ignore=(*patterns, *extra),
        roles=frozenset(r.lower() for r in roles),
        today=(today or clock.today()).isoformat(),
    )
