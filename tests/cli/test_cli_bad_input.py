"""Bad input gets one consistent answer (issue 28 finding 5), through the real CLI: a flag's bad
value is named with the user's word, an empty query is the same usage error for load, route
and search, messages quote the words the user typed (not their stems), and `engram help`
works like `--help`."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from tests.conftest import engram_cmd, subprocess_env


def _run(*args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run([*engram_cmd(), *args], input=stdin, capture_output=True, text=True,
                          env=subprocess_env(), timeout=60, check=False)


def test_a_word_given_to_limit_is_named_as_not_a_number(engram_root: Path) -> None:
    got = _run("search", "--limit", "invoice")
    assert got.returncode == 2
    assert "--limit needs a number, got 'invoice'" in got.stderr
    assert "required: query" not in got.stderr


@pytest.mark.parametrize("command", ["search", "load", "route"])
@pytest.mark.parametrize("query", [[""], ["   "], []])
def test_an_empty_query_is_one_usage_error_everywhere(engram_root: Path, command: str,
                                                       query: list[str]) -> None:
    got = _run(command, *query)
    assert got.returncode == 2, got.stdout + got.stderr
    assert "is empty" in got.stderr
    as_json = _run(command, *query, "--json")
    doc = json.loads(as_json.stdout)
    assert as_json.returncode == 2 and doc["ok"] is False
    assert doc["diagnostics"][0]["code"] == "usage.empty_query"


@pytest.mark.parametrize("command", ["search", "load", "route"])
def test_messages_quote_the_words_the_user_typed(engram_root: Path, command: str) -> None:
    got = _run(command, "xyzzy plugh")
    assert got.returncode == 0
    said = got.stdout + got.stderr
    assert "xyzzy, plugh" in said
    assert "xyzzi" not in said


def test_generic_words_are_not_an_empty_query(engram_root: Path) -> None:
    got = _run("load", "the memory rules")
    assert got.returncode == 0 and "no meaningful words" in got.stdout + got.stderr


def test_help_is_a_command(engram_root: Path) -> None:
    top = _run("help")
    assert top.returncode == 0 and top.stdout == _run("--help").stdout
    assert "save-session" in top.stdout
    one = _run("help", "search")
    assert one.returncode == 0 and one.stdout == _run("search", "--help").stdout
    assert "--limit" in one.stdout


def test_help_of_an_unknown_command_suggests_the_near_one(engram_root: Path) -> None:
    got = _run("help", "serch")
    assert got.returncode == 2 and "did you mean `engram search`" in got.stderr
