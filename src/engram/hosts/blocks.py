"""Managed text blocks: Engram's part of a Markdown instruction file and of Codex's config.toml.

A managed block sits between a start and an end marker. `upsert` replaces the block in place or
appends it after one blank line; `remove` deletes exactly what `upsert` appended, so a link and
an unlink give the user's file back (a file that did not end in a newline gets one). Human text
outside the markers is never touched. Codex's TOML block is checked with `tomltext` after every
edit, and a user-written `[mcp_servers.engram]` outside the block is removed with tomlkit (which
keeps comments) only when it is Engram's or `--force` was given.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from typing import Any

import tomlkit

from engram import tomltext
from engram.errors import HostConfigError


@dataclass(frozen=True)
class Markers:
    start: str
    end: str


MD = Markers("<!-- engram:start -->", "<!-- engram:end -->")
TOML = Markers("# engram:start (managed by `engram link codex`; edit outside this block)",
               "# engram:end")


def span(text: str, markers: Markers) -> tuple[int, int] | None:
    """Start and end (after the end marker's line break) of the block, if present."""
    start = _marker_line(text, markers.start)
    if start < 0:
        return None
    end = text.find(markers.end, start)
    if end < 0:
        return None
    end += len(markers.end)
    if text.startswith("\n", end):
        end += 1
    return start, end


def _marker_line(text: str, marker: str) -> int:
    """Find a marker only at the start of a line (a mention in prose is not a block)."""
    pos = 0
    while True:
        at = text.find(marker, pos)
        if at < 0 or at == 0 or text[at - 1] == "\n":
            return at
        pos = at + 1


def current(text: str, markers: Markers) -> str | None:
    found = span(text, markers)
    return None if found is None else text[found[0]: found[1]]


def upsert(text: str, block: str, markers: Markers) -> str:
    """Put `block` (markers included, ending in a newline) into `text`."""
    found = span(text, markers)
    if found is not None:
        return text[: found[0]] + block + text[found[1]:]
    if not text:
        return block
    if not text.endswith("\n"):
        text += "\n"
    return text + ("\n" if text.strip() else "") + block


def remove(text: str, markers: Markers) -> str:
    found = span(text, markers)
    if found is None:
        return text
    before, after = text[: found[0]], text[found[1]:]
    if not after and before.endswith("\n\n"):
        before = before[:-1]  # the blank line upsert put before an appended block
    return before + after


# ---- Codex config.toml ----------------------------------------------------------------------

def toml_loads(text: str, source: str) -> dict[str, Any]:
    try:
        return tomltext.loads(text)  # never RecursionError or a runaway parse (tomltext.py)
    except tomllib.TOMLDecodeError as exc:
        raise HostConfigError(
            f"{source}: cannot parse TOML: {exc}",
            hint="fix the file by hand (Engram left it untouched), then rerun the command",
            code="host.unparseable",
        ) from exc


def codex_entry(data: dict[str, Any]) -> Any:
    servers = data.get("mcp_servers")
    return servers.get("engram") if isinstance(servers, dict) else None


def _toml_str(value: str) -> str:
    return tomlkit.string(value).as_string()


PROPOSE_ONLY = ("engram_save", "engram_save_session", "engram_note")  # as hosts/gates.py


def codex_block(argv: list[str]) -> str:
    """The managed block: the server table plus `approval_mode = "prompt"` for commit (docs/hosts.md
    "What each link writes")."""
    args = ", ".join(_toml_str(a) for a in argv[1:])
    return (
        f"{TOML.start}\n"
        "[mcp_servers.engram]\n"
        f"command = {_toml_str(argv[0])}\n"
        f"args = [{args}]\n"
        "\n"
        "# engram_commit writes memory: Codex must ask the human every time (never \"approve\").\n"
        "[mcp_servers.engram.tools.engram_commit]\n"
        'approval_mode = "prompt"\n'
        + "".join(f"\n# {t} only proposes (nothing durable): it may run unprompted.\n"
                  f"[mcp_servers.engram.tools.{t}]\n"
                  'approval_mode = "approve"\n' for t in PROPOSE_ONLY)
        + f"{TOML.end}\n"
    )


def drop_outside_entry(text: str) -> str:
    """Remove a `[mcp_servers.engram]` written outside the block, keeping all comments."""
    outside = remove(text, TOML)
    doc = tomlkit.parse(outside)
    servers = doc.get("mcp_servers")
    if servers is None or "engram" not in servers:
        return text
    del servers["engram"]
    if not servers:
        del doc["mcp_servers"]
    found = span(text, TOML)
    rebuilt = tomlkit.dumps(doc)
    return rebuilt if found is None else upsert(rebuilt, text[found[0]: found[1]], TOML)


def codex_upsert(text: str, argv: list[str], source: str) -> str:
    """Insert or refresh the managed block and check the result still parses."""
    new = upsert(text, codex_block(argv), TOML)
    toml_loads(new, source)
    return new
