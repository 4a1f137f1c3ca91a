"""Read an export bundle back as candidates (`engram import`, docs/adopting.md "Export").

A bundle is text anyone may have written or edited, so it is only ever turned into candidate
fields: what the proposal path already checks (scans, verdicts, the human's approval). Its ids,
files and hashes are provenance for a reader, never trusted: the proposal computes its own.
"""

from __future__ import annotations

import json
from typing import Any, NamedTuple

from engram import jsontext
from engram.errors import UsageError
from engram.export.render import BUNDLE_FORMAT, BUNDLE_VERSION, state

# The bundle fields a candidate takes (proposals/candidates.py); the rest is provenance.
CANDIDATE_FIELDS = ("text", "type", "context", "tags", "triggers", "depends_on", "role",
                    "confidence", "variants", "level")
_HINT = "export one with `engram export --format json --out bundle.json`"


class Bundle(NamedTuple):
    candidates: list[dict[str, Any]]
    skipped: list[str]  # files the exporting side left out, as it named them
    edited: bool  # the text no longer matches the digest the export wrote


def parse(text: str, name: str) -> Bundle:
    try:
        data = jsontext.loads(text)
    except json.JSONDecodeError as exc:
        raise UsageError(f"{name} is not JSON (line {exc.lineno}: {exc.msg})",
                         code="import.bundle", hint=_HINT) from exc
    if not isinstance(data, dict) or data.get("format") != BUNDLE_FORMAT:
        raise UsageError(f'{name} is not an Engram export bundle (no "format": '
                         f'"{BUNDLE_FORMAT}")', code="import.bundle", hint=_HINT)
    version = data.get("version")
    if not isinstance(version, int) or isinstance(version, bool) or version > BUNDLE_VERSION:
        raise UsageError(f"{name} is bundle version {version!r}; this engram reads version "
                         f"{BUNDLE_VERSION}", code="import.version",
                         hint="upgrade engram (pipx upgrade engram-protocol), then import again")
    memories = data.get("memories")
    if not isinstance(memories, list):
        raise UsageError(f'{name} has no "memories" list', code="import.bundle", hint=_HINT)
    return Bundle([_candidate(n, m) for n, m in enumerate(memories, 1)],
                  _skipped(data.get("skipped")), state(text) == "edited")


def _candidate(number: int, item: Any) -> dict[str, Any]:
    if not isinstance(item, dict):
        raise UsageError(f"memory {number} of the bundle is not an object",
                         code="import.bundle", hint='each memory is {"text": "…", "type": …}')
    return {k: item[k] for k in CANDIDATE_FIELDS if k in item and item[k] not in (None, "")}


def _skipped(value: Any) -> list[str]:
    if not isinstance(value, list):
        return []
    return [str(s.get("file")) for s in value if isinstance(s, dict) and s.get("file")]
