"""The host's own gate on Engram's tools: `engram_commit` must ask, read-only tools may run.

`engram link` writes the host's permission rules next to its other edits (docs/hosts.md "Per host").
"Read-only tools" below means READ_ONLY plus the propose-only tools (ALLOWED):

- Claude Code: `permissions.ask` gets `mcp__engram__engram_commit`; `permissions.allow` gets the
  read-only tools (unless `--no-allow`). Claude evaluates deny, then ask, then allow, so the
  ask rule holds even beside a broader allow.
- OpenCode: `permission.engram_engram_commit = "ask"` and `"allow"` for the read-only tools,
  appended last because OpenCode's last matching rule wins.
- Gemini CLI: a project link adds the read-only tools to `tools.allowed` in
  `.gemini/settings.json` (commit keeps Gemini's default: ask); a user link writes the policy
  `~/.gemini/policies/engram.toml`, whose ask rule also outranks `trust: true` and `--yolo`
  (project policy files are switched off in Gemini CLI 0.61).

Every rule link adds is recorded (`added` in `hosts.json`) and unlink takes out exactly those;
a rule that was already there is the user's and stays.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from engram.errors import HostConfigError
from engram.hosts import blocks, jsonc
from engram.hosts.files import Bench
from engram.hosts.mcpconf import EMPTY_JSON, prune_created

SERVER = "engram"
COMMIT = "engram_commit"
READ_ONLY = ("engram_load", "engram_search", "engram_route", "engram_status", "engram_verify")
# Tools that only propose: they write nothing durable (a pending proposal outside the workspace,
# or a dialog the human answers). Allowing them lets a headless or busy session still show the
# human the exact candidates; `engram_commit` stays the gate.
PROPOSE_ONLY = blocks.PROPOSE_ONLY
ALLOWED = READ_ONLY + PROPOSE_ONLY
CLAUDE_PREFIX = f"mcp__{SERVER}__"
OPENCODE_PREFIX = f"{SERVER}_"
GEMINI_POLICY = ".gemini/policies/engram.toml"
GEMINI_MARKER = "# engram: managed by `engram link --global gemini`"


def claude_rules(allow: bool) -> list[tuple[str, str]]:
    """(list, rule) pairs for a Claude settings file."""
    rules = [("ask", CLAUDE_PREFIX + COMMIT)]
    if allow:
        rules += [("allow", CLAUDE_PREFIX + t) for t in ALLOWED]
    return rules


def opencode_rules(allow: bool) -> list[tuple[str, str]]:
    """(tool key, decision) pairs for OpenCode's `permission` object."""
    rules = [(OPENCODE_PREFIX + COMMIT, "ask")]
    if allow:
        rules += [(OPENCODE_PREFIX + t, "allow") for t in ALLOWED]
    return rules


def _added(bench: Bench, path: Path) -> list[list[Any]]:
    record = bench.state.record(path)
    added: list[list[Any]] = record.setdefault("added", [])
    return added


def _remember(bench: Bench, path: Path, entry: list[Any]) -> None:
    added = _added(bench, path)
    if entry not in added:
        added.append(entry)


def _note_created(bench: Bench, path: Path, made: list[list[str]]) -> None:
    keys = bench.state.record(path)["keys"]
    for k in made:
        if k not in keys:
            keys.append(k)


def _put_items(bench: Bench, path: Path, rules: list[tuple[list[str], str]]) -> None:
    """Put each (list path, value) into its JSON list, recording only what was added."""
    text = bench.read(path)
    text = EMPTY_JSON if text is None or not text.strip() else text
    for keys, rule in reversed(rules):
        arr = jsonc.find(jsonc.parse(text, str(path)), keys)
        if arr is None:
            text, made = jsonc.set_path(text, keys, [rule])
            _note_created(bench, path, [*made, keys])
        elif arr.kind != "array":
            raise HostConfigError(f"{path}: {'.'.join(keys)} is not a list", code="host.shape",
                                  hint="fix the file by hand so it holds a list")
        elif rule in arr.value:
            continue  # already there: the user's rule, not ours to record
        else:
            text = jsonc.insert_first(text, arr, None, rule)
        _remember(bench, path, [keys, rule])
    bench.write(path, text)


def put_claude(bench: Bench, path: Path, allow: bool) -> None:
    """Add the ask (and allow) rules to `permissions` of a Claude settings file."""
    _put_items(bench, path, [(["permissions", name], rule) for name, rule in claude_rules(allow)])


def put_gemini_allowed(bench: Bench, path: Path, allow: bool) -> None:
    """Project Gemini settings: `tools.allowed` for the read-only tools (so headless `gemini -p`
    keeps them). Commit gets no rule: Gemini's default for MCP tools is to ask (headless: the
    tool is withheld)."""
    if allow:
        _put_items(bench, path, [(["tools", "allowed"], f"mcp_{SERVER}_{t}") for t in ALLOWED])


def put_opencode(bench: Bench, path: Path, allow: bool) -> str | None:
    """Add Engram's keys to OpenCode's `permission` object; a note when it cannot."""
    text = bench.read(path)
    text = EMPTY_JSON if text is None or not text.strip() else text
    node = jsonc.find(jsonc.parse(text, str(path)), ["permission"])
    if node is not None and node.kind != "object":
        if node.value != "allow":
            return None  # "ask" / "deny" for every tool already gates commit
        return (f"{path}: `permission` is \"allow\" for every tool, so engram_commit runs "
                f'unasked; make it an object with "{OPENCODE_PREFIX}{COMMIT}": "ask" last')
    kept = []
    for key, decision in opencode_rules(allow):
        node = jsonc.find(jsonc.parse(text, str(path)), ["permission"])
        if node is None:
            text, made = jsonc.set_path(text, ["permission"], {key: decision})
            _note_created(bench, path, [*made, ["permission"]])
        elif key in node.value:
            if node.value[key] != decision:
                kept.append(f"{key} = {node.value[key]!r}")
            continue
        else:
            text = jsonc.insert_last(text, node, key, decision)
        _remember(bench, path, [["permission", key], decision])
    bench.write(path, text)
    if kept:
        return f"{path}: kept your permission " + ", ".join(kept)
    return None


def take_out(bench: Bench, path: Path) -> None:
    """Remove exactly the rules link recorded for this file, then containers it created."""
    text = bench.read(path)
    added = bench.state.peek(path).get("added", [])
    if text is None or not text.strip() or not added:
        return
    for keys, value in added:
        node = jsonc.find(jsonc.parse(text, str(path)), list(keys))
        if node is not None and node.kind == "array":
            hits = [i for i, it in enumerate(node.items) if it.node.value == value]
            if hits:
                text = jsonc.remove_item(text, node, hits[-1])
        elif node is not None and node.value == value:
            text = jsonc.delete_path(text, list(keys))  # OpenCode: unchanged since link
    bench.state.record(path)["added"] = []
    pruned = prune_created(bench, path, text)
    if pruned is None:
        bench.delete(path)
    else:
        bench.write(path, pruned)


def gemini_policy(allow: bool) -> str:
    """Gemini CLI policy rules: user tier, so they outrank `trust` (4.2) and yolo's allow-all."""
    lines = [
        GEMINI_MARKER,
        "# engram_commit writes memory: Gemini asks the human every time (headless: refused).",
        "[[rule]]",
        f'mcpName = "{SERVER}"',
        f'toolName = "{COMMIT}"',
        'decision = "ask_user"',
        "priority = 900",
    ]
    if allow:
        names = ", ".join(f'"{t}"' for t in ALLOWED)
        lines += [
            "",
            "# Engram's read-only and propose-only tools run without a prompt (also headless).",
            "[[rule]]",
            f'mcpName = "{SERVER}"',
            f"toolName = [{names}]",
            'decision = "allow"',
            "priority = 200",
        ]
    return "\n".join(lines) + "\n"


def put_gemini_policy(bench: Bench, path: Path, allow: bool, force: bool) -> str | None:
    text = bench.read(path)
    if text is not None and not text.startswith(GEMINI_MARKER) and not force:
        return f"kept {path}: it exists and is not Engram's (use --force)"
    bench.write(path, gemini_policy(allow))
    return None


def take_out_gemini_policy(bench: Bench, path: Path) -> None:
    text = bench.read(path)
    if text is not None and text.startswith(GEMINI_MARKER):
        bench.delete(path)
