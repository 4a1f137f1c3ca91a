"""A one-line progress counter for long operations, shown only to a human at a terminal.

Owns when progress is worth showing (more than `threshold` items, and the stream is a TTY) and
how it looks (`\\r`-rewritten counter, throttled, one final line). It never writes to stdout:
stdout carries command output, `--json` envelopes and the MCP server's JSON-RPC lines. It does
not know what is being counted; callers (the index build) name it.
"""

from __future__ import annotations

import sys
import time
from typing import TextIO

THRESHOLD = 500  # below this a build is quick enough that a counter is only noise
INTERVAL_S = 0.1


def _is_tty(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError, OSError):  # a closed or replaced stream
        return False


class Progress:
    """Counts `advance()` calls towards `total`; prints only when enabled (see module doc)."""

    def __init__(self, label: str, total: int, *, stream: TextIO | None = None,
                 threshold: int = THRESHOLD) -> None:
        self.label, self.total, self.done = label, total, 0
        self.stream = sys.stderr if stream is None else stream
        self.enabled = total > threshold and _is_tty(self.stream)
        self._start = self._last = time.monotonic()

    def advance(self, n: int = 1) -> None:
        self.done += n
        if not self.enabled:
            return
        now = time.monotonic()
        if now - self._last >= INTERVAL_S or self.done == self.total:
            self._last = now
            self._write(f"\r{self.label} {self.done:,}/{self.total:,}")

    def close(self) -> None:
        if self.enabled:
            took = time.monotonic() - self._start
            self._write(f"\r{self.label} {self.done:,}/{self.total:,} ({took:.1f} s)\n")
            self.enabled = False

    def _write(self, text: str) -> None:
        try:
            self.stream.write(text)
            self.stream.flush()
        except (OSError, ValueError):  # the terminal went away: progress is not worth a crash
            self.enabled = False
