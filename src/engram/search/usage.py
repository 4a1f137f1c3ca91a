"""Recall counts (docs/reading.md): `usage.json` in each root, `{"<scope>:<id>": {recalls,
last_recalled}}`.

A load by id and a resource read each count one recall. The file is git-ignored and rewritten
atomically under the root's write lock, so concurrent CLI and MCP processes never lose a count.
A missing or unreadable file counts as empty (usage is a convenience, never a reason to fail).
This module does not decide what counts as a recall; its callers do.
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Iterable
from typing import Any

from engram import clock, jsontext
from engram.errors import StorageError
from engram.storage import read_text
from engram.store.fileio import atomic_write, root_lock
from engram.workspace import Root


def read_usage(root: Root) -> dict[str, dict[str, Any]]:
    try:
        data = jsontext.loads(read_text(root.usage_file))
    except (OSError, StorageError, json.JSONDecodeError, UnicodeDecodeError, RecursionError):
        return {}
    if not isinstance(data, dict):
        return {}
    return {k: v for k, v in data.items() if isinstance(v, dict)}


def record(root: Root, keys: Iterable[str], now: dt.datetime | None = None) -> None:
    """Add one recall to each key (a `scope:id` of this root)."""
    keys = list(keys)
    if not keys or not root.exists():
        return
    stamp = (now or clock.utcnow()).replace(microsecond=0).isoformat()
    # Read-modify-write inside the lock: two processes counting at once both land.
    with root_lock(root.path):
        data = read_usage(root)
        for key in keys:
            entry = data.setdefault(key, {})
            recalls = entry.get("recalls")
            entry["recalls"] = (recalls if isinstance(recalls, int) else 0) + 1
            entry["last_recalled"] = stamp
        atomic_write(root.usage_file, json.dumps(data, indent=2, sort_keys=True) + "\n")


def recalls(usage: dict[str, dict[str, Any]], key: str) -> int:
    n = usage.get(key, {}).get("recalls")
    return n if isinstance(n, int) else 0
