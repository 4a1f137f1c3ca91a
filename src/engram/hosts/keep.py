"""What link leaves in a repository besides its entries: backups and the `.gitignore` line.

- Backups: before Engram's first change to a user file, `Bench.apply` copies it under the user
  config dir (`~/.engram/backups/<absolute path>`), never next to the file, so `git status`
  stays clean. `engram unlink <host> --restore` puts those copies back after the unlink (a file
  another linked host still uses is left alone) and deletes them.
- `.claude/settings.local.json` is personal (Claude's hooks and approvals), and so is a project
  MCP file linked with `--launcher path` (this machine's absolute path): when Engram creates
  one in a git project, its path is appended to the project's `.gitignore`; unlink takes that
  line out again once the file is gone.
"""

from __future__ import annotations

from pathlib import Path

from engram.hosts.files import Bench, backup_path
from engram.store.fileio import atomic_write, remove

GITIGNORE = ".gitignore"
COVERING = {".claude", ".claude/", "/.claude", "/.claude/", "settings.local.json",
            ".claude/settings.local.json", "/.claude/settings.local.json", "*.local.json"}


def stage_ignore(bench: Bench, project: Path, settings: Path) -> None:
    """Git-ignore `settings` (relative to the project) when Engram created it."""
    if not bench.created(settings) or not (project / ".git").exists():
        return
    path = project / GITIGNORE
    text = bench.read(path) or ""
    line = settings.relative_to(project).as_posix()
    covering = (COVERING if line == ".claude/settings.local.json" else set()) | {line, "/" + line}
    if any(x.strip() in covering for x in text.splitlines()):
        return
    if text and not text.endswith("\n"):
        text += "\n"
    bench.write(path, text + line + "\n")
    lines: list[str] = bench.state.record(path).setdefault("lines", [])
    if line not in lines:
        lines.append(line)


def stage_unignore(bench: Bench, project: Path, settings: Path) -> None:
    """Take out the line `stage_ignore` added once the settings file is gone."""
    path = project / GITIGNORE
    line = settings.relative_to(project).as_posix()
    if bench.read(settings) is not None or line not in bench.state.peek(path).get("lines", []):
        return
    text = bench.read(path)
    if text is None:
        return
    kept = [x for x in text.splitlines(keepends=True) if x.rstrip("\r\n") != line]
    bench.state.record(path)["lines"].remove(line)
    rest = "".join(kept)
    if bench.created(path) and not rest.strip():
        bench.delete(path)
    else:
        bench.write(path, rest)


def restorable(config_dir: Path, files: list[Path]) -> list[tuple[Path, Path]]:
    """(file, backup) for each file that has a backup."""
    return [(f, backup_path(config_dir, f)) for f in files
            if backup_path(config_dir, f).is_file()]


def restore(pairs: list[tuple[Path, Path]]) -> None:
    """Put each backup back in place of its file, then delete the backup."""
    for path, backup in pairs:
        atomic_write(path, backup.read_bytes())
        remove(backup)
