"""JSON files rewritten without reordering someone else's keys.

Engram writes its own JSON files with sorted keys. A file another tool wrote in its own key order
(the TypeScript Engram's `engram.config.json` and `memory.hashes.json` keep insertion order)
keeps that order when Engram rewrites it: changed values stay where they were, new keys go last,
so `set-role` or a `rehash` that changes nothing leaves no diff.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from engram import jsontext


def _sorted_everywhere(value: Any) -> bool:
    if isinstance(value, dict):
        keys = list(value)
        return keys == sorted(keys) and all(_sorted_everywhere(v) for v in value.values())
    if isinstance(value, list):
        return all(_sorted_everywhere(v) for v in value)
    return True


def keeps_own_order(old_text: str | None) -> bool:
    """True when the old file has keys out of sorted order somewhere (another tool's order)."""
    if not old_text:
        return False
    try:
        return not _sorted_everywhere(jsontext.loads(old_text))
    except (ValueError, RecursionError):
        return False


def dumps_like(data: Any, old_text: str | None) -> str:
    """`data` as indented JSON: the old file's key order if it had its own, else sorted keys."""
    if keeps_own_order(old_text):
        return json.dumps(data, indent=2, ensure_ascii=False) + "\n"
    return json.dumps(data, indent=2, sort_keys=True) + "\n"


def read_or_none(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None
