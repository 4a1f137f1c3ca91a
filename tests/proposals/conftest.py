"""Fixtures of the write-path tests: an initialised workspace and helpers to seed memories."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

import pytest

from engram.store.layout import init_root
from engram.workspace import Roots, resolve


@pytest.fixture
def roots(project: Path) -> Roots:
    """An initialised workspace root in the temp project (the cwd)."""
    r = resolve()
    init_root(r.workspace)
    return r


class FakeClock:
    """A clock tests move by hand (token expiry, note TTL)."""

    def __init__(self, start: datetime | None = None) -> None:
        self.now = start or datetime(2026, 8, 1, 12, 0, tzinfo=UTC)

    def __call__(self) -> datetime:
        return self.now


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


Seeder = Callable[..., str]


def seed(roots: Roots, text: str, mtype: str = "rule") -> str:
    """Save one memory through the force path; return its id."""
    from engram.proposals import api

    prep = api.prepare(roots, f"TYPE: {mtype} | TEXT: {text}", single=True)
    out = api.save_now(prep, roots)
    [written] = out.data["written"]
    return str(written["id"])


@pytest.fixture
def seeder(roots: Roots) -> Seeder:
    return lambda text, mtype="rule": seed(roots, text, mtype)
