"""Memory hosts keep for this project outside the repository (`--from-hosts`), read only.

- Claude Code auto memory: `<config>/projects/<slug>/memory/MEMORY.md` and its topic files.
  `<config>` is `$CLAUDE_CONFIG_DIR` or `~/.claude`; `<slug>` is the project's absolute path
  with every character that is not an ASCII letter or digit replaced by `-` (`/home/ann/my.app`
  → `-home-ann-my-app`), cut to 200 characters plus `-` and a base-36 hash when longer. Checked
  against Claude Code 2.1.197's own code (2026-12-06); an `autoMemoryDirectory` setting, which
  moves the folder, is not followed.
- Gemini CLI: the `## Gemini Added Memories` section of `~/.gemini/GEMINI.md` (what its
  `save_memory` tool appends); the rest of that file is the user's own global guidance.

Every source is marked personal (listed, and proposed only as the human's pick) and carries its
host as origin, shown in the preview. Nothing here writes.
"""

from __future__ import annotations

import re
import unicodedata
from pathlib import Path

from engram.adopt.sources import Source, digest, read

CLAUDE = "Claude Code auto memory"
GEMINI = "Gemini CLI added memories"
GEMINI_HEADING = "## Gemini Added Memories"


SLUG_MAX = 200


def claude_slug(project: Path) -> str:
    text = unicodedata.normalize("NFC", str(project))
    slug = re.sub(r"[^A-Za-z0-9]", "-", text)
    if len(slug) <= SLUG_MAX:
        return slug
    return f"{slug[:SLUG_MAX]}-{_base36(abs(_string_hash(text)))}"


def _string_hash(text: str) -> int:
    """JavaScript's `h = (h << 5) - h + charCode | 0` over UTF-16 code units."""
    h = 0
    data = text.encode("utf-16-le")
    for i in range(0, len(data), 2):
        h = (h * 31 + int.from_bytes(data[i:i + 2], "little")) & 0xFFFFFFFF
    return h - (1 << 32) if h >= 1 << 31 else h


def _base36(n: int) -> str:
    digits = "0123456789abcdefghijklmnopqrstuvwxyz"
    out = ""
    while True:
        n, r = divmod(n, 36)
        out = digits[r] + out
        if n == 0:
            return out


def claude_memory_dir(config: Path, project: Path) -> Path:
    return config / "projects" / claude_slug(project) / "memory"


def host_sources(home: Path, project: Path, max_chars: int, claude_config: Path | None = None
                 ) -> tuple[list[Source], list[tuple[str, str]]]:
    """(sources, skipped) of every host memory file that exists for `project`."""
    sources: list[Source] = []
    skipped: list[tuple[str, str]] = []
    folder = claude_memory_dir(claude_config or home / ".claude", project.resolve())
    if folder.is_dir():
        for path in sorted(folder.glob("*.md")):
            try:
                rel = "~/" + path.relative_to(home).as_posix()
            except ValueError:
                rel = path.as_posix()
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
