"""A memory file whose name is not UTF-8 (a checkout from a Latin-1 machine, or planted) is
reported by `verify`, and every other command works.

Before, the name reached the index as a lone surrogate and `load`, `search`, `verify`,
`status` and `doctor` all ended in `UnicodeEncodeError: surrogates not allowed`."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from tests.conftest import engram_cmd, subprocess_env
from tests.helpers import write_memory

BODY = (b"---\nid: cafe-menu\ntype: knowledge\ntags:\n  - zebra\n---\n# Cafe menu\n\n"
        b"## Content\n\n- Zebra crossings near the cafe.\n")


def test_a_file_name_that_is_not_utf8(engram_root: Path, project: Path) -> None:
    write_memory(engram_root, "run-smoke-suite", "knowledge",
                 content="- Zebra crossings need the smoke suite.")
    Path(os.fsdecode(os.fsencode(engram_root / "knowledge") + b"/caf\xe9.md")).write_bytes(BODY)
    env = subprocess_env(HOME=str(project.parent / "home"),
                         ENGRAM_CONFIG_DIR=str(project.parent / "home" / ".engram"))
    said = {}
    for args in (["load", "zebra crossings"], ["search", "zebra"], ["verify"], ["status"],
                 ["doctor"], ["rehash", "--all"], ["verify", "--json"]):
        done = subprocess.run([*engram_cmd(), *args], cwd=project, env=env, text=True,
                              errors="replace", capture_output=True, timeout=60, check=False)
        assert "Traceback" not in done.stderr, (args, done.stderr[-800:])
        said[args[0] + " ".join(args[1:])] = (done.returncode, done.stdout)
    assert said["load" + "zebra crossings"][0] == 0
    assert "Zebra crossings need the smoke suite" in said["load" + "zebra crossings"][1]
    code, out = said["verify"]
    assert code == 4
    assert "INVALID      workspace:knowledge/[file name withheld" in out  # names are untrusted
    assert "file name is not UTF-8: rename it" in out
