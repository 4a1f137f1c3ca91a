"""A very long task (a pasted log, 100 KB) is answered in bounded output.

`engram load`, `route` and `search` used to repeat every word of a task that routed nothing:
"no memories routed for: <12,000 words>", 119 KB of output for a 100 KB task."""

from __future__ import annotations

import random
import string
from pathlib import Path

import pytest

from tests.helpers import run_cli, write_memory


@pytest.fixture
def long_task(project: Path, capsys: pytest.CaptureFixture[str]) -> str:
    assert run_cli("init", capsys=capsys)[0] == 0
    write_memory(project / ".agents" / ".engram", "run-smoke-suite",
                 content="- Run the smoke suite before tagging a release.")
    rng = random.Random(7)
    return " ".join("".join(rng.choices(string.ascii_lowercase, k=8)) for _ in range(12_000))


@pytest.mark.parametrize("command", ["load", "route", "search"])
def test_a_long_task_that_routes_nothing_is_answered_briefly(
        long_task: str, command: str, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run_cli(command, long_task, capsys=capsys)
    assert code == 0, err
    assert len(out) < 2_000, out[:300]
    assert "more" in out


def test_a_long_task_still_routes_what_it_names(
        long_task: str, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli("load", long_task + " smoke suite release", capsys=capsys)
    assert code == 0 and "Run the smoke suite" in out


def test_many_unknown_ids_are_listed_briefly(long_task: str,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    """`engram load --id` with 3,000 unknown ids repeated all of them (29 KB) in the error."""
    ids = ",".join(f"nope{i}" for i in range(3000))
    code, out, err = run_cli("load", "--id", ids, capsys=capsys)
    assert code == 1
    assert len(out + err) < 2_000 and "2,980 more" in err
    code, out, _ = run_cli("load", "--id", ids + ",run-smoke-suite", capsys=capsys)
    assert code == 0 and "Run the smoke suite" in out and len(out) < 3_000


def test_a_query_level_of_5000_digits_is_a_usage_error(
        project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """It raised Python's int-conversion ValueError (a traceback)."""
    code, _, err = run_cli("save-session", "--query-level", "9" * 5000, capsys=capsys)
    assert code == 2 and "not a positive number of sessions" in err and len(err) < 500
