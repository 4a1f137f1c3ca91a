"""The one clock: every date and time Engram stores or compares is UTC.

Note expiry, visibility of working notes, `status`, approvals, changelog stamps and recall stamps
all take "now" and "today" from here, so a note never expires at a different moment for `load`
than for `notes prune`. Local time appears only where text is printed for a human
(`local_text`). Functions that need time take a `Clock` argument so tests can fix it.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, date, datetime

Clock = Callable[[], datetime]


def utcnow() -> datetime:
    return datetime.now(UTC)


def today(clock: Clock | None = None) -> date:
    """The UTC date now (of `clock` when given)."""
    return (clock or utcnow)().date()


def stamp(clock: Clock | None = None) -> str:
    """`2026-08-01T09:30:00Z`: how stored timestamps are written."""
    return (clock or utcnow)().strftime("%Y-%m-%dT%H:%M:%SZ")


def local_text(moment: datetime) -> str:
    """A UTC moment as the reader's local time, for printed text only."""
    return moment.astimezone().strftime("%Y-%m-%d %H:%M %Z")
