"""Attack (issue 27, classes 2 and 6): another process holds the cache database locked
(`.cache/index.sqlite`, git-ignored, anyone in the workspace may open it). Reads must still
work: the cache is bypassed by an in-memory index (`cache.unusable`), never a failed load."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import engram_cmd, subprocess_env

RULE = "Always run the linter before committing code."
# Holds an exclusive lock in rollback-journal mode (readers blocked too) until stdin closes.
HOLDER = """
import sqlite3, sys
db = sqlite3.connect(sys.argv[1], isolation_level=None)
db.execute("PRAGMA journal_mode=DELETE")
db.execute("BEGIN EXCLUSIVE")
print("locked", flush=True)
sys.stdin.read()
"""


def _run(project: Path, *args: str) -> subprocess.CompletedProcess[str]:
    done = subprocess.run([*engram_cmd(), *args], cwd=project, env=subprocess_env(),
                          capture_output=True, text=True, check=False, timeout=120)
    assert "Traceback" not in done.stderr, done.stderr
    return done


@pytest.mark.slow  # each command waits SQLite's 10 s busy timeout before it bypasses
def test_a_locked_cache_never_blocks_a_read(project: Path) -> None:
    assert _run(project, "init").returncode == 0
    assert _run(project, "save", "-f", "rule", RULE).returncode == 0
    cache = project / ".agents/.engram/.cache/index.sqlite"
    assert cache.is_file()
    holder = subprocess.Popen([sys.executable, "-c", HOLDER, str(cache)], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "locked"
        # A memory the index has not seen yet: the read must refresh, and cannot write.
        other = project / ".agents/.engram/rules"
        assert _run(project, "save", "-f", "rule", "Use tabs in Makefiles always.").returncode \
            == 0, "a save must not fail on a locked cache either"
        load = _run(project, "load", "makefiles linter")
        assert load.returncode == 0, load.stdout + load.stderr
        assert RULE in load.stdout and "Makefiles" in load.stdout, load.stdout
        assert len(list(other.glob("*.md"))) == 2
    finally:
        holder.communicate("", timeout=30)
