"""Rewrite repository paths in memory text (the path fixes `engram stale --propose` drafts)."""

from __future__ import annotations

import re
from collections.abc import Sequence


def rewrite_paths(text: str, renames: Sequence[tuple[str, str]]) -> str:
    """Replace each old path by its new one where it stands as a whole path: not inside a
    longer path (`a/x.py` is not rewritten in `b/a/x.py` nor in `a/x.pyc`)."""
    for old, new in renames:
        pattern = re.compile(r"(?<![\w./-])" + re.escape(old) + r"(?![\w/-]|\.\w)")
        text = pattern.sub(new.replace("\\", "\\\\"), text)
    return text
