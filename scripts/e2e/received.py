"""What a tool result reads as once the host's wrapping is taken off, and the map in it.

Pure functions over the text a host forwarded, shared by the mock model (which picks a map id
to fetch from what it received) and the checks.
"""

from __future__ import annotations

import json
import re
from typing import Any

# A map entry, `- <id>: <title>` (docs/reading.md "The map"); ids are Engram's slugs.
MAP_LINE = re.compile(r"^- ([a-z0-9][a-z0-9_.-]*): \S")
MAP_FETCH = "fetch one:"  # the map's last line says how to fetch a listed id
# What the scripted model fetches when no map reached it: an id no memory has, so the call
# still happens (the script stays in step) and the `map` check reports what was missing.
NO_MAP_ID = "no-map-reached-the-model"


def engram_part(received: str) -> str:
    """What Engram sent inside a host's wrapping: Codex's "Wall time … Output:" header,
    Gemini's {"output": …} object and <untrusted_context> tags are the host's, not Engram's."""
    text = received
    if text.startswith("Wall time:") and "Output:\n" in text:
        text = text.split("Output:\n", 1)[1]
    try:
        value = json.loads(text)
    except ValueError:
        value = None
    if isinstance(value, dict) and set(value) == {"output"} and isinstance(value["output"], str):
        text = value["output"]
    return re.sub(r"</?untrusted_context>\n?", "", text).strip()


def model_text(received: str) -> str:
    """Engram's model-facing text: `content[0].text` as Gemini CLI and OpenCode forward it, or
    the `text` of the structuredContent JSON that Claude Code and Codex forward instead."""
    part = engram_part(received)
    try:
        value: Any = json.loads(part)
    except ValueError:
        return part
    if isinstance(value, dict) and isinstance(value.get("text"), str):
        return str(value["text"])
    return part


def read_map(received: str) -> tuple[str, list[str]]:
    """(the text before the map, the map's ids in order) of a load result whose text ends with
    the map: `- id: title` lines, then the fetch line. No map at the end: (the text, [])."""
    lines = model_text(received).rstrip("\n").splitlines()
    if not lines or not lines[-1].startswith(MAP_FETCH):
        return "\n".join(lines), []
    start = len(lines) - 1
    while start > 0 and MAP_LINE.match(lines[start - 1]):
        start -= 1
    ids = [m.group(1) for line in lines[start:-1] if (m := MAP_LINE.match(line))]
    head = lines[:start - 1] if ids else lines  # without the map's heading line
    return "\n".join(head), ids


def named(text: str, memory_id: str) -> bool:
    """Does `text` name the id as a whole (not as the start of a longer id)?"""
    return re.search(rf"(?<![\w-]){re.escape(memory_id)}(?![\w-])", text) is not None


def map_pick(received: str) -> str | None:
    """The id a model reading this result would fetch from its map: the first listed id the
    pack above it does not name. None when the text ends with no such map."""
    pack, ids = read_map(received)
    return next((i for i in ids if not named(pack, i)), None)


def fetch_from_map(results: list[str]) -> dict[str, Any]:
    """The scripted model's `engram_load` arguments after a load: {"id": the id it picked from
    the map of the last result} (NO_MAP_ID when it found none)."""
    picked = map_pick(results[-1]) if results else None
    return {"id": picked or NO_MAP_ID}
