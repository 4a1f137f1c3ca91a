"""The export marker (engram/export/render.py): a file export wrote is recognised, an edit to it
is noticed, and no other file is taken for one, whatever it says in its first lines."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from engram.export.render import is_generated, state
from tests.conftest import engram_cmd, subprocess_env


@pytest.fixture
def exports(project: Path) -> dict[str, str]:
    def run(*args: str) -> str:
        done = subprocess.run([*engram_cmd(), *args], cwd=project, env=subprocess_env(),
                              text=True, capture_output=True, timeout=60, check=True)
        return done.stdout

    run("init")
    run("save", "rule", "Never force-push to main.", "--answer", "A")
    return {fmt: run("export", "--format", fmt)
            for fmt in ("agents-md", "claude-md", "cursorrules", "json")}


def test_what_export_prints_is_recognised_as_untouched(exports: dict[str, str]) -> None:
    for fmt, text in exports.items():
        assert state(text) == "generated", fmt
        assert is_generated(text)


def test_an_edit_anywhere_is_noticed(exports: dict[str, str]) -> None:
    for fmt, text in exports.items():
        edited = text.replace("force-push", "push")
        assert edited != text
        assert state(edited) == "edited", fmt
        assert is_generated(edited)


@pytest.mark.parametrize("text", [
    "# Agents\n\n- Keep PRs small.\n",
    "<!-- engram:start -->\nUse engram_load before work.\n<!-- engram:end -->\n",
    "<!-- engram:export agents-md digest=nothex -->\n",
    "Intro\n<!-- engram:export agents-md digest=" + "0" * 64 + " : x -->\n",
    '{"format": "something-else", "version": 1, "digest": "' + "0" * 64 + '"}',
    '{"memories": [], "format": "engram-export"}',
    "",
])
def test_no_other_file_passes_for_an_export(text: str) -> None:
    assert state(text) == "foreign"
    assert not is_generated(text)


def test_nothing_there_is_absent() -> None:
    assert state(None) == "absent"
