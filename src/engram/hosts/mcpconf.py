"""Engram's MCP entry inside one host config file: add or re-pin it, or take it out.

Used by the link engine for every JSON/JSONC host (`mcpServers.engram`, OpenCode's `mcp.engram`) and
for Codex's TOML block. Ownership and re-pinning follow docs/hosts.md "Ownership, re-pinning,
force": an entry that is Engram's gets the current launch command with its flags kept (`refresh` —
upgrade or `--force` — may also add or drop `--always-load`); an entry that is not Engram's is
replaced only with `force`. Containers and files this module creates are recorded on the bench so
`take_out` removes them again.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from engram.errors import HostConfigError
from engram.hosts import blocks, command, jsonc
from engram.hosts.files import Bench

EMPTY_JSON = "{}\n"


@dataclass(frozen=True)
class Wish:
    """What the caller wants for the entry."""

    launch: command.Launch
    always_load: bool  # only ever true for configs Claude Code reads
    force: bool
    refresh: bool
    repin: bool = False  # upgrade / automatic re-pin: keep an absolute path that still starts


def _entry_for(style: str, launch: command.Launch, flags: list[str],
               old: dict[str, Any] | None) -> dict[str, Any]:
    if style == "opencode":
        return command.opencode_entry(launch, flags, old)
    return command.std_entry(launch, flags, old)


def desired(style: str, existing: Any, wish: Wish) -> tuple[Any, str | None]:
    """The entry to write (None: leave it) and a note for the user."""
    fresh_flags = command.with_always_load([], wish.always_load)
    if existing is None:
        return _entry_for(style, wish.launch, fresh_flags, None), None
    from engram.hosts import entry_env

    if not command.is_engrams(existing):
        if wish.force:
            return _entry_for(style, wish.launch, fresh_flags, None), None
        if entry_env.wrapped(existing):
            return None, ("kept an existing `engram` entry that launches Engram inside another "
                          "command (host.wrapped_launch: run `engram doctor`; --force writes "
                          "Engram's own)")
        return None, "kept an existing `engram` entry that does not launch Engram (use --force)"
    flags = command.flags_of(existing)
    if wish.refresh or wish.force:
        flags = command.with_always_load(flags, wish.always_load)
    launch = command.kept_launch(existing, wish.launch) if wish.repin else wish.launch
    # Kept (the entry's flags are the user's), but said: a repository may have planted it.
    note = (f"kept {NO_DIALOG} on the `engram` entry: the approval dialog is off, so only the "
            f"host's prompt for engram_commit gates a write; remove {NO_DIALOG} unless you set "
            "it") if NO_DIALOG in flags else None
    kept_env = entry_env.link_note("the `engram` entry", existing)
    note = "; ".join(n for n in (note, kept_env) if n) or None
    return _entry_for(style, launch, flags, existing if isinstance(existing, dict) else None), note


def put_json(bench: Bench, path: Path, keys: list[str], style: str, wish: Wish) -> str | None:
    """Add or re-pin `<keys>.engram` in a JSON/JSONC file; returns a note, if any."""
    text = bench.read(path)
    base = EMPTY_JSON if text is None or not text.strip() else text  # an empty file is {}
    root = jsonc.parse(base, str(path))
    if root.kind != "object":
        raise HostConfigError(f"{path}: the top level is not an object", code="host.shape",
                              hint="fix the file by hand so it holds a JSON object")
    leaf = [*keys, "engram"]
    node = jsonc.find(root, leaf)
    entry, note = desired(style, None if node is None else node.value, wish)
    if entry is None or (node is not None and node.value == entry):
        return note
    new, created = jsonc.set_path(base, leaf, entry)
    bench.write(path, new)
    record = bench.state.record(path)
    for made in created[:-1] if created and created[-1] == leaf else created:
        if made not in record["keys"]:
            record["keys"].append(made)
    return note


def prune_created(bench: Bench, path: Path, text: str) -> str | None:
    """Drop containers link created that are now empty; None when the file should go."""
    record = bench.state.peek(path)
    for keys in sorted(record.get("keys", []), key=len, reverse=True):
        node = jsonc.find(jsonc.parse(text, str(path)), list(keys))
        if node is not None and node.kind in ("object", "array") and not node.items:
            text = jsonc.delete_path(text, list(keys))
    if record.get("file") and jsonc.loads(text, str(path)) == {}:
        return None
    return text


def take_out_json(bench: Bench, path: Path, keys: list[str]) -> str | None:
    """Remove Engram's entry (never another one); returns a note when one is kept."""
    text = bench.read(path)
    if text is None or not text.strip():
        return None
    node = jsonc.find(jsonc.parse(text, str(path)), [*keys, "engram"])
    note = None
    if node is not None:
        if command.is_engrams(node.value):
            text = jsonc.delete_path(text, [*keys, "engram"])
        else:
            note = f"{path}: kept an `engram` entry that does not launch Engram"
    pruned = prune_created(bench, path, text)
    if pruned is None:
        bench.delete(path)
    else:
        bench.write(path, pruned)
    return note


def put_codex(bench: Bench, path: Path, wish: Wish) -> str | None:
    text = bench.read(path) or ""
    data = blocks.toml_loads(text, str(path))
    entry = blocks.codex_entry(data)
    has_block = blocks.span(text, blocks.TOML) is not None
    if entry is not None and not has_block:
        if not (command.is_engrams(entry) or wish.force):
            return "kept an existing [mcp_servers.engram] that does not launch Engram (use --force)"
        text = blocks.drop_outside_entry(text)
    elif has_block and wish.force and not command.is_engrams(entry):
        entry = None
    flags: list[str] = [NO_DIALOG]
    launch = wish.launch
    if entry is not None and command.is_engrams(entry):
        # Codex never gets --always-load (docs/hosts.md "Per host"); every other flag is kept.
        flags = command.with_always_load(command.flags_of(entry), False)
        flags += [NO_DIALOG] if NO_DIALOG not in flags else []
        launch = command.kept_launch(entry, wish.launch) if wish.repin else wish.launch
    new = blocks.codex_upsert(text, launch.argv(flags), str(path))
    bench.write(path, new)
    return None


# `codex exec` declines an MCP approval dialog at once, with no human asked; a declined
# proposal is revoked, so the model never saw the candidates. Codex gets the chat flow instead:
# the preview and token in the tool result, and `engram_commit` behind approval_mode = "prompt".
NO_DIALOG = "--no-elicitation"


def take_out_codex(bench: Bench, path: Path) -> None:
    text = bench.read(path)
    if text is None:
        return
    new = blocks.remove(text, blocks.TOML)
    if bench.created(path) and not new.strip():
        bench.delete(path)
    else:
        bench.write(path, new)
