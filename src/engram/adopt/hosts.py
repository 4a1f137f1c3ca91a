"""Memory hosts keep for this project outside the repository (`--from-hosts`), read only.

- Claude Code auto memory: `~/.claude/projects/<slug>/memory/MEMORY.md` and its topic files,
  where `<slug>` is the project's absolute path with every character that is not a letter or
  digit replaced by `-` (`/home/ann/my.app` → `-home-ann-my-app`), as Claude Code names it.
- Gemini CLI: the `## Gemini Added Memories` section of `~/.gemini/GEMINI.md` (what its
  `save_memory` tool appends); the rest of that file is the user's own global guidance.

Every source is marked personal (listed, and proposed only as the human's pick) and carries its
host as origin, shown in the preview. Nothing here writes.
"""

from __future__ import annotations

import re
from pathlib import Path

from engram.adopt.sources import Source, digest, read

CLAUDE = "Claude Code auto memory"
GEMINI = "Gemini CLI added memories"
GEMINI_HEADING = "## Gemini Added Memories"


def claude_slug(project: Path) -> str:
    return re.sub(r"[^A-Za-z0-9]", "-", str(project))


def claude_memory_dir(home: Path, project: Path) -> Path:
    return home / ".claude" / "projects" / claude_slug(project) / "memory"


def host_sources(home: Path, project: Path, max_chars: int
                 ) -> tuple[list[Source], list[tuple[str, str]]]:
    """(sources, skipped) of every host memory file that exists for `project`."""
    sources: list[Source] = []
    skipped: list[tuple[str, str]] = []
    folder = claude_memory_dir(home, project.resolve())
    if folder.is_dir():
        for path in sorted(folder.glob("*.md")):
            rel = "~/" + path.relative_to(home).as_posix()
            got = read(path, rel, max_chars, personal=True, origin=CLAUDE)
            if isinstance(got, str):
                skipped.append((rel, got))
            else:
                sources.append(got)
    gemini = home / ".gemini" / "GEMINI.md"
    if gemini.is_file():
        rel = "~/.gemini/GEMINI.md"
        got = read(gemini, rel, max_chars, personal=True, origin=GEMINI)
        if isinstance(got, str):
            skipped.append((rel, got))
        else:
            section = gemini_section(got.text)
            if section:
                sources.append(Source(rel, section, got.size, digest(gemini.read_bytes()),
                                      True, GEMINI))
    return sources, skipped


def gemini_section(text: str) -> str:
    """Only the added-memories section, as its own text (headings and the rest left out)."""
    start = text.find(GEMINI_HEADING)
    if start < 0:
        return ""
    body = text[start + len(GEMINI_HEADING):]
    nxt = re.search(r"^#{1,2} ", body, re.M)
    section = body[: nxt.start()] if nxt else body
    # Gemini's save_memory keeps what the person asked it to remember: personal by default
    return "---\ntype: personal\n---\n" + GEMINI_HEADING + "\n" + section
