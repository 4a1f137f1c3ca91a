"""Visibility policy for routing and search."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from pathlib import Path

from engram.search.visibility import make_policy
from engram.store.model import Memory

TODAY = dt.date(2026, 8, 10)


def test_hidden_reasons(make_mem: Callable[..., Memory], tmp_path: Path) -> None:
    policy = make_policy([], tmp_path, roles=["backend"], today=TODAY)
    assert policy.hidden_reason(make_mem("a")) is None
    assert policy.hidden_reason(make_mem("b", lifecycle="superseded")) == "superseded"
    assert policy.hidden_reason(make_mem("c", confidence="low")) == "low confidence"
    assert policy.hidden_reason(make_mem("d", role=["frontend"])) == "role frontend not active"
    assert policy.hidden_reason(make_mem("e", role=["backend"])) is None
    note = make_mem("n", tier="working", valid_until="2026-08-09")
    assert policy.hidden_reason(note) == "expired working note"
    assert policy.hidden_reason(make_mem("n2", tier="working", valid_until="2026-08-10")) is None


def test_search_still_shows_low_confidence(make_mem: Callable[..., Memory], tmp_path: Path) -> None:
    policy = make_policy([], tmp_path, roles=[], today=TODAY)
    assert policy.search_hidden_reason(make_mem("c", confidence="low")) is None


def test_ignore_patterns_come_from_config_and_engramignore(
        make_mem: Callable[..., Memory], tmp_path: Path) -> None:
    (tmp_path / ".engramignore").write_text("# old stuff\nknowledge/legacy-*\n", encoding="utf-8")
    policy = make_policy(["scratch-*"], tmp_path, roles=[], today=TODAY)
    assert policy.hidden_reason(make_mem("legacy-api")) == "ignored"
    assert policy.hidden_reason(make_mem("scratch-idea")) == "ignored"
    assert policy.hidden_reason(make_mem("api")) is None
