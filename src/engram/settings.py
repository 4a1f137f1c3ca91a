"""Settings writes: the one path from a checked value to a config file.

`write_config(path, changes)` is how every setting is stored (`engram config set`, `set-role`,
`set-rule-variant`, `set-save-target`, `set-load-limit`, `set-read`, MCP `engram_set_role`):
each value passes `config.set_value` (the one validation, `config.KEYS`), then the file is
rewritten under the root lock with `atomic_write`. The `set_*` helpers change the workspace
root's `engram.config.json` (the project's own config, reviewed in git); a change that alters
what `load` returns ends with the agent action line, so an agent refreshes its context. Reading
settings is `Roots.settings()`. Settings are not proposals: nothing here needs an approval.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from engram.config import KEYS, normalise_roles, read_json_file, set_value
from engram.errors import ConfigValueError, NotFoundError
from engram.outcome import Outcome
from engram.store import jsonorder
from engram.store.fileio import atomic_write, root_lock
from engram.workspace import Roots

AGENT_ACTION = ('Agent action: rerun engram load "<current task>" and replace earlier '
                "Engram context.")
VARIANT_CHOICES = ("off", "light", "balanced", "strict", "status")


def set_role(roots: Roots, roles: Sequence[str]) -> Outcome:
    """Store the visible roles; an empty list clears them."""
    names = normalise_roles(roles)
    _write(roots, {"roles": names})
    shown = ", ".join(names) if names else "none (role-scoped memories are hidden)"
    return _changed(f"roles: {shown}", {"roles": names})


def set_rule_variant(roots: Roots, variant: str) -> Outcome:
    """off | light | balanced | strict change the mode; status only reports it."""
    choice = str(variant).strip().lower()
    if choice not in VARIANT_CHOICES:
        raise ConfigValueError(f"unknown rule variant mode {variant!r}",
                               hint=f"use one of: {', '.join(VARIANT_CHOICES)}")
    if choice == "status":
        s = roots.settings()
        enabled, active = bool(s.get("rule_variants.enabled")), str(s.get("rule_variants.active"))
        text = f"rule variants: {active if enabled else 'off'}"
        if not enabled:
            text += " (rules render their balanced wording)"
        return Outcome(text=text, data={"enabled": enabled, "active": active})
    if choice == "off":
        _write(roots, {"rule_variants.enabled": False})
        return _changed("rule variants: off (rules render their balanced wording)",
                        {"enabled": False})
    _write(roots, {"rule_variants.enabled": True, "rule_variants.active": choice})
    return _changed(f"rule variants: {choice}", {"enabled": True, "active": choice})


def set_save_target(roots: Roots, target: str) -> Outcome:
    choice = str(target).strip().lower()
    if choice in {"global", "both"} and not roots.has_global():
        raise NotFoundError(f"save target {choice!r} needs a global root",
                            hint="create one with `engram init --global PATH` first",
                            code="not_found.global")
    if choice == "workspace":
        _write(roots, {"scope": choice})
        return _changed(f"save target: {choice}", {"scope": choice}, action=False)
    # A repository's config may only keep saves in the workspace (config.REPO_NARROW): sending
    # them to the global memory is the user's own setting, and the workspace's narrowing goes.
    write_config(roots.user_config_file, {"scope": choice})
    if roots.workspace.exists() and "scope" in read_json_file(roots.workspace.config_file):
        _write(roots, {"scope": None})
    return _changed(f"save target: {choice} (in your user config, {roots.user_config_file})",
                    {"scope": choice}, action=False)


def set_load_limit(roots: Roots, limit: str | int) -> Outcome:
    if str(limit).strip().lower() == "reset":
        _write(roots, {"load.limit": None})
        default = KEYS["load.limit"].default
        return _changed(f"load limit: reset to the default ({default})", {"load.limit": default})
    _write(roots, {"load.limit": limit})
    value = roots.settings().int("load.limit")
    return _changed(f"load limit: {value}", {"load.limit": value})


def set_read(roots: Roots, mode: str) -> Outcome:
    choice = str(mode).strip().lower()
    _write(roots, {"read": choice})
    return _changed(f"read mode: {choice}", {"read": choice})


def _changed(text: str, data: dict[str, Any], *, action: bool = True) -> Outcome:
    # The save target does not change what load returns, so it needs no refresh.
    return Outcome(text=f"{text}\n{AGENT_ACTION}" if action else text, data=data)


def _write(roots: Roots, changes: dict[str, Any]) -> None:
    root = roots.workspace
    if not root.exists():
        raise NotFoundError(f"no Engram workspace at {root.path}",
                            hint="run `engram init` in the project first", code="not_found.root")
    write_config(root.config_file, changes)


def write_config(path: Path, changes: dict[str, Any]) -> None:
    """Apply checked key changes to one config file; None removes a key (back to default)."""
    with root_lock(path.parent):
        data = read_json_file(path)
        for name, value in changes.items():
            data = _unset(data, name) if value is None else set_value(data, name, value)
        old = jsonorder.read_or_none(path)  # a TypeScript-written file keeps its key order
        atomic_write(path, jsonorder.dumps_like(data, old))


def _unset(data: dict[str, Any], name: str) -> dict[str, Any]:
    out: dict[str, Any] = json.loads(json.dumps(data))
    parts = name.split(".")
    node = out
    for part in parts[:-1]:
        nxt = node.get(part)
        if not isinstance(nxt, dict):
            return out
        node = nxt
    node.pop(parts[-1], None)
    out.pop(name, None)  # a flat "load.limit" key written by hand
    return out
