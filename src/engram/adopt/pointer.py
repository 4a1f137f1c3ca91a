"""Stop loading the same guidance twice: replace what was adopted with a pointer to Engram.

After an adoption, a guidance file still holds every item Engram now loads. `plan_pointer`
computes, per repository source, the file with each item Engram holds (a memory whose
`source_files` names that file) removed, emptied sections dropped, and one pointer line added
under its first heading; the CLI shows it as a unified diff and writes it only after the
human's answer. The original bytes are kept under the memory root's `.cache/pointer/`, so
`--undo` gives the file back as long as nobody edited it since. Pure apart from `Backup`.
"""

from __future__ import annotations

import difflib
import json
import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from engram.adopt.sources import digest
from engram.adopt.split import split
from engram.proposals.similarity import content_key

POINTER = ("<!-- engram:pointer --> The guidance adopted from this file now lives in Engram "
           "(`.agents/.engram/`); agents load it with `engram load \"<task>\"`. Undo: "
           "`engram take-control --pointer --undo`.")
_HEADING = re.compile(r"^(#{1,6})\s")
_MARKER = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+")


def item_key(text: str) -> str:
    """The same key for an item as split and as written (list markers dropped)."""
    return content_key(" ".join(_MARKER.sub("", ln) for ln in text.splitlines()))


@dataclass(frozen=True)
class Change:
    rel: str
    before: str
    after: str
    removed: int  # items removed

    def diff(self) -> str:
        return "".join(difflib.unified_diff(self.before.splitlines(True),
                                            self.after.splitlines(True),
                                            f"a/{self.rel}", f"b/{self.rel}"))


def rewrite(text: str, held: set[str]) -> tuple[str, int]:
    """The text without the items whose content key is in `held`, and how many went."""
    drop: set[int] = set()
    count = 0
    for item in split(text).items:
        if item_key(item.text) in held:
            drop.update(range(item.line, item.last + 1))
            count += 1
    if not count:
        return text, 0
    lines = [ln for n, ln in enumerate(text.split("\n"), 1) if n not in drop]
    lines = _drop_empty_sections(lines)
    top = _after_frontmatter(lines)
    at = next((i + 1 for i, ln in enumerate(lines) if i >= top and _HEADING.match(ln)), top)
    lines[at:at] = (["", POINTER] if at else [POINTER, ""])
    out = re.sub(r"\n{3,}", "\n\n", "\n".join(lines))
    return out if out.endswith("\n") else out + "\n", count


def _after_frontmatter(lines: list[str]) -> int:
    """The index of the first line after a leading `---` frontmatter block (0 without one)."""
    if not lines or lines[0] != "---":
        return 0
    end = next((i for i in range(1, len(lines)) if lines[i] == "---"), -1)
    return end + 1 if end > 0 else 0


def _drop_empty_sections(lines: list[str]) -> list[str]:
    """Headings with nothing but blank lines (or emptier subsections) before the next heading
    of the same or a higher level."""
    out = list(lines)
    changed = True
    while changed:
        changed = False
        for i, ln in enumerate(out):
            m = _HEADING.match(ln)
            if not m or i == 0 and len(m.group(1)) == 1:
                continue
            level = len(m.group(1))
            j = i + 1
            while j < len(out) and not out[j].strip():
                j += 1
            nxt = _HEADING.match(out[j]) if j < len(out) else None
            if j >= len(out) or (nxt and len(nxt.group(1)) <= level):
                del out[i:j]
                changed = True
                break
    return out


def plan_pointer(project: Path, memories: Iterable[tuple[str, list[str]]]) -> list[Change]:
    """One change per repository file that adopted memories name: (memory text, files)."""
    held: dict[str, set[str]] = {}
    for text, files in memories:
        for f in files:
            if not f.startswith("~/"):
                held.setdefault(f, set()).add(item_key(text))
    changes = []
    for rel, keys in sorted(held.items()):
        path = project / rel
        if not path.is_file() or path.is_symlink():
            continue
        before = path.read_text(encoding="utf-8", errors="replace")
        if "<!-- engram:pointer -->" in before:
            continue
        after, removed = rewrite(before, keys)
        if removed:
            changes.append(Change(rel, before, after, removed))
    return changes


class Backup:
    """Originals of pointer rewrites: `<root>/.cache/pointer/index.json` + one file each."""

    def __init__(self, root: Path) -> None:
        self.dir = root / ".cache" / "pointer"
        self.index = self.dir / "index.json"

    def entries(self) -> dict[str, dict[str, str]]:
        try:
            data = json.loads(self.index.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}
        return data if isinstance(data, dict) else {}

    def save(self, change: Change) -> None:
        from engram.store.fileio import atomic_write

        self.dir.mkdir(parents=True, exist_ok=True)
        name = digest(change.rel.encode()) + ".orig"
        atomic_write(self.dir / name, change.before)
        entries = self.entries()
        entries[change.rel] = {"backup": name,
                               "written_sha256": digest(change.after.encode("utf-8"))}
        atomic_write(self.index, json.dumps(entries, indent=2, sort_keys=True) + "\n")

    def restore(self, project: Path) -> list[tuple[str, str]]:
        """(file, what happened) for every rewrite on record."""
        from engram.store.fileio import atomic_write

        entries = self.entries()
        done: list[tuple[str, str]] = []
        for rel, entry in sorted(entries.items()):
            path = project / rel
            try:
                now = path.read_bytes()
            except OSError:
                now = b""
            if digest(now) != entry.get("written_sha256"):
                done.append((rel, "edited since the pointer was written; left as it is"))
                continue
            original = (self.dir / entry["backup"]).read_text(encoding="utf-8")
            atomic_write(path, original)
            done.append((rel, "restored"))
            del entries[rel]
        atomic_write(self.index, json.dumps(entries, indent=2, sort_keys=True) + "\n")
        return done
