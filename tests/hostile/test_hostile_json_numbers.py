"""A JSON file holding an integer longer than Python's int conversion limit (4,300 digits) is
reported like any other broken JSON file, never a traceback.

`json.loads` raises a plain `ValueError` ("Exceeds the limit (4300 digits) for integer string
conversion") for such a number, which the `JSONDecodeError` handlers did not catch: every
command ended in a traceback when `engram.config.json` or `memory.hashes.json` held one."""

from __future__ import annotations

import hashlib
import subprocess
from pathlib import Path

import pytest

from tests.conftest import engram_cmd, subprocess_env
from tests.helpers import write_memory

HUGE = "9" * 5000
FILES = {
    "config": (".agents/.engram/engram.config.json", '{"load": {"limit": %s}}'),
    "hashes": (".agents/.engram/memory.hashes.json", '{"rules/run-smoke-suite.md": %s}'),
    "usage": (".agents/.engram/usage.json", '{"counts": %s}'),
    "ts_index": (".agents/.engram/memory.index.json", '{"version": %s, "entries": []}'),
    "seals": (".agents/.engram/working/.seals.json", '{"entries": %s}'),
    "mcp_json": (".mcp.json", '{"mcpServers": {"engram": {"command": %s}}}'),
    "user_config": ("../home/.engram/engram.config.json", '{"load": {"limit": %s}}'),
    "hosts": ("../home/.engram/hosts.json", '{"version": %s, "links": []}'),
    "pending": ("../home/.engram/pending/{pending}.json", '{"version": %s}'),
}


@pytest.mark.parametrize("which", sorted(FILES))
def test_a_huge_integer_in_a_json_file_is_never_a_traceback(
        engram_root: Path, project: Path, which: str) -> None:
    write_memory(engram_root, "run-smoke-suite", content="- Run the smoke suite.")
    rel, template = FILES[which]
    pending = hashlib.sha256(str(engram_root.resolve()).encode("utf-8")).hexdigest()[:32]
    path = (project / rel.format(pending=pending)).resolve()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(template % HUGE)
    env = subprocess_env(HOME=str(project.parent / "home"),
                         ENGRAM_CONFIG_DIR=str(project.parent / "home" / ".engram"))
    for args in (["status"], ["verify"], ["load", "smoke suite"], ["doctor"],
                 ["save", "rule", "Tag releases from main only.", "--answer", "C"],
                 ["link", "claude", "--plan"]):
        done = subprocess.run([*engram_cmd(), *args], cwd=project, env=env, text=True,
                              capture_output=True, timeout=60, check=False)
        assert "Traceback" not in done.stderr, (args, done.stderr[-600:])
        assert done.returncode in (0, 1, 2, 4), (args, done.returncode)
