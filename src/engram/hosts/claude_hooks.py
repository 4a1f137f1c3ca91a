"""Claude Code hook registrations: Engram's SessionStart and UserPromptSubmit entries.

Claude Code reads hooks from `settings.json`-style files as
`{"hooks": {"<Event>": [{"hooks": [{"type": "command", "command": "…"}]}]}}`. Engram's group is
the one whose command runs `engram agent-hook --host claude` (bare or pinned); this module adds,
re-pins or removes only that group and leaves every other hook, permission and comment alone.
The runtime that answers these hooks is `hosts/hooks.py`.
"""

from __future__ import annotations

import os
import shlex
from pathlib import Path
from typing import Any

from engram.errors import HostConfigError
from engram.hosts import command, jsonc
from engram.hosts.files import Bench
from engram.hosts.mcpconf import EMPTY_JSON, prune_created

EVENTS = ("SessionStart", "UserPromptSubmit")
HOOK_ARGS = ("agent-hook", "--host", "claude")


def hook_command(path_env: str, launcher: str = "auto", shared: bool = False) -> str:
    """`engram agent-hook --host claude` launched the way the server is (hosts/command.py):
    `shared` for the team's `.claude/settings.json`."""
    launch = command.launch_for(path_env, "engram", launcher, shared)
    return " ".join(shlex.quote(a) for a in launch.argv(list(HOOK_ARGS)))


def kept_command(text: str | None, wanted: str) -> str:
    """A re-pin keeps an installed Engram hook whose absolute `engram` path still exists."""
    for cmd in _commands(text):
        argv = shlex.split(cmd)
        head = Path(argv[0]) if argv else None
        if head is not None and head.is_absolute() and head.name == "engram" \
                and os.access(head, os.X_OK) and not wanted.startswith("uvx "):
            return cmd
    return wanted


def _commands(text: str | None) -> list[str]:
    try:
        data = jsonc.loads(text) if text else None
    except HostConfigError:
        return []
    return engram_commands(data)


def engram_commands(data: Any) -> list[str]:
    """The commands of Engram's hook groups in a parsed settings object."""
    hooks = data.get("hooks") if isinstance(data, dict) else None
    out: list[str] = []
    for event in EVENTS:
        groups = hooks.get(event) if isinstance(hooks, dict) else None
        for group in groups if isinstance(groups, list) else []:
            if is_engram_group(group):
                out += [h["command"] for h in group["hooks"]
                        if isinstance(h, dict) and isinstance(h.get("command"), str)]
    return out


def is_engram_group(group: Any) -> bool:
    if not isinstance(group, dict) or not isinstance(group.get("hooks"), list):
        return False
    for hook in group["hooks"]:
        cmd = hook.get("command") if isinstance(hook, dict) else None
        if isinstance(cmd, str) and "engram" in cmd and " ".join(HOOK_ARGS) in cmd:
            return True
    return False


def has_engram_hook(text: str | None) -> bool:
    if not text:
        return False
    try:
        data = jsonc.loads(text)
    except HostConfigError:  # an unreadable file simply has no hook we can see
        return False
    hooks = data.get("hooks") if isinstance(data, dict) else None
    if not isinstance(hooks, dict):
        return False
    return any(isinstance(hooks.get(ev), list) and any(is_engram_group(g) for g in hooks[ev])
               for ev in EVENTS)


def install(bench: Bench, path: Path, cmd: str) -> None:
    text = bench.read(path)
    text = EMPTY_JSON if text is None or not text.strip() else text  # an empty file is {}
    group = {"hooks": [{"type": "command", "command": cmd}]}
    for event in reversed(EVENTS):  # each goes first: reversed keeps the file in EVENTS order
        root = jsonc.parse(text, str(path))
        arr = jsonc.find(root, ["hooks", event])
        if arr is None:
            text, made = jsonc.set_path(text, ["hooks", event], [group])
            record = bench.state.record(path)
            for keys in [*made, ["hooks", event]]:
                if keys not in record["keys"]:
                    record["keys"].append(keys)
            continue
        if arr.kind != "array":
            raise HostConfigError(f"{path}: hooks.{event} is not a list", code="host.shape",
                                  hint="fix the file by hand so it holds a list of hook groups")
        ours = [i for i, item in enumerate(arr.items) if is_engram_group(item.node.value)]
        if not ours:
            text = jsonc.insert_first(text, arr, None, group)
        elif arr.items[ours[0]].node.value != group:
            text = jsonc.replace_value(text, arr.items[ours[0]].node, group)
    bench.write(path, text)


def uninstall(bench: Bench, path: Path) -> None:
    text = bench.read(path)
    if text is None or not text.strip():
        return
    for event in EVENTS:
        while True:
            arr = jsonc.find(jsonc.parse(text, str(path)), ["hooks", event])
            if arr is None or arr.kind != "array":
                break
            ours = [i for i, item in enumerate(arr.items) if is_engram_group(item.node.value)]
            if not ours:
                break
            text = jsonc.remove_item(text, arr, ours[-1])
    pruned = prune_created(bench, path, text)
    if pruned is None:
        bench.delete(path)
    else:
        bench.write(path, pruned)
