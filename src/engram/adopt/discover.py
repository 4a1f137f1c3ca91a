"""Which files in a repository hold guidance for agents (docs/adopting.md "Take control").

Only the places hosts read are looked at (a fixed list of names and globs, plus `--include`),
never a walk of the whole tree, so a repository of thousands of files is discovered in a few
stat calls. Engram's own memory root, exported files and files that hold nothing but Engram's
managed block are skipped with a reason; personal files (`CLAUDE.local.md`) are listed but only
proposed when named with `--file` or `--personal`. Reading is `sources.read`; nothing here writes.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from engram.adopt.sources import Source, read

# Files every host reads, as globs relative to the directory searched (the list).
GUIDANCE = (
    "AGENTS.md", "CLAUDE.md", ".claude/CLAUDE.md", ".claude/rules/*.md", "GEMINI.md",
    ".cursor/rules/*.mdc", ".cursor/rules/*.md", ".cursorrules", ".windsurfrules",
    ".windsurf/rules/*.md", ".clinerules", ".clinerules/*.md", ".github/copilot-instructions.md",
    ".github/instructions/*.instructions.md", "memory-bank/**/*.md", ".claude/skills/*/SKILL.md",
)
PERSONAL = ("CLAUDE.local.md", ".claude/CLAUDE.local.md")
MAX_SOURCES = 200
MAX_CHARS = 200_000
_ENGRAM_DIRS = (".agents/.engram", ".engram")


@dataclass
class Found:
    sources: list[Source] = field(default_factory=list)
    skipped: list[tuple[str, str]] = field(default_factory=list)  # (file, reason)


def discover(project: Path, *, base: str = "", files: Sequence[str] = (),
             include: Sequence[str] = (), exclude: Sequence[str] = (),
             max_sources: int = MAX_SOURCES, max_chars: int = MAX_CHARS,
             personal: bool = False) -> Found:
    """The guidance files under `project/base` (or exactly `files`), read, with skips."""
    found = Found()
    if files:
        names = [(_rel(project, f), False) for f in files]
    else:
        names = [(r, False) for r in _globbed(project, base, GUIDANCE + tuple(include))]
        names += [(r, True) for r in _globbed(project, base, PERSONAL)]
    seen: set[str] = set()
    for rel, is_personal in sorted(names, key=lambda n: n[0]):
        if rel in seen:
            continue
        seen.add(rel)
        reason = "outside the project (adopt a file of this repository)" \
            if Path(rel).is_absolute() or rel.startswith("../") else _excluded(rel, exclude)
        if reason is None and len(found.sources) >= max_sources:
            reason = f"beyond --max-sources {max_sources}"
        if reason is not None:
            found.skipped.append((rel, reason))
            continue
        got = read(project / rel, rel, max_chars, personal=is_personal and not personal)
        if isinstance(got, str):
            found.skipped.append((rel, got))
            continue
        why = skip_reason(got.text)
        if why:
            found.skipped.append((rel, why))
            continue
        found.sources.append(got)
    return found


def skip_reason(text: str) -> str:
    """Why a whole file is not adopted, or ""."""
    from engram.adopt.split import strip_frontmatter, strip_managed
    from engram.export.render import is_generated

    if is_generated(text):
        return "written by engram export (its memories are Engram's already)"
    rest, blocks = strip_managed(text)
    if not strip_frontmatter(rest)[0].strip():
        return "only Engram's managed block" if blocks else "empty"
    return ""


def _globbed(project: Path, base: str, patterns: Iterable[str]) -> list[str]:
    root = project / base if base else project
    out: list[str] = []
    for pattern in patterns:
        if any(ch in pattern for ch in "*?["):
            matches: Iterable[Path] = root.glob(pattern)
        else:
            p = root / pattern
            matches = [p] if p.is_file() or p.is_symlink() else []
        for path in matches:
            rel = path.relative_to(project).as_posix()
            if not rel.startswith(_ENGRAM_DIRS) and (path.is_file() or path.is_symlink()):
                out.append(rel)
    return out


def _excluded(rel: str, exclude: Sequence[str]) -> str | None:
    if rel.startswith(_ENGRAM_DIRS):
        return "inside Engram's memory root"
    for pattern in exclude:
        if fnmatch.fnmatch(rel, pattern) or fnmatch.fnmatch(Path(rel).name, pattern):
            return f"excluded by --exclude {pattern}"
    return None


def _rel(project: Path, name: str) -> str:
    path = Path(name)
    full = path if path.is_absolute() else Path.cwd() / path
    if not path.is_absolute() and not full.exists() and (project / path).exists():
        full = project / path  # --workspace DIR with a path relative to that project
    try:
        return full.resolve().relative_to(project.resolve()).as_posix()
    except ValueError:
        return path.as_posix()  # read() then says it is not there
