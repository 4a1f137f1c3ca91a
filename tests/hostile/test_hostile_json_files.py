"""Deeply nested JSON in any file Engram reads (config, hashes, pending approvals in the user's
state dir, note seals, usage) is a coded error or ignored: never a RecursionError traceback."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.helpers import run_cli, write_memory

NESTED = "[" * 100_000


@pytest.mark.parametrize(("name", "code"), [
    ("engram.config.json", "config.invalid"),
    ("memory.hashes.json", "integrity.hashes_invalid"),
    ("pending approvals", None),
    ("working/.seals.json", None),
    ("usage.json", None),
])
def test_deeply_nested_json_files_never_crash_a_command(
        project: Path, capsys: pytest.CaptureFixture[str], name: str, code: str | None) -> None:
    assert run_cli("init", capsys=capsys)[0] == 0
    root = project / ".agents" / ".engram"
    write_memory(root, "lint-first", content="- Always lint first.")
    from engram.workspace import resolve

    path = resolve().pending_file if name == "pending approvals" else root / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(NESTED, encoding="utf-8")
    seen = ""
    for argv in (["load", "lint"], ["verify"], ["status"], ["search", "lint"],
                 ["save-session", "--force", "TYPE: rule | TEXT: Never push to main directly"]):
        rc, out, err = run_cli(*argv, capsys=capsys)
        assert rc in (0, 1, 2, 3, 4), argv
        assert "Traceback" not in err and "RecursionError" not in out + err, argv
        seen += out + err
    if name == "engram.config.json":
        assert "nested too deeply" in seen and "fix:" in seen
    if code is not None:
        command = "status" if name == "engram.config.json" else "verify"
        rc, out, _ = run_cli(command, "--json", capsys=capsys)
        assert rc != 0 and code in out
