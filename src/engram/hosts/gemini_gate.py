"""Does anything let Gemini CLI run `engram_commit` without asking? (doctor; read only)

Gemini CLI 0.61 decides with a policy engine: the highest-priority matching rule wins. Engram's
user policy (`~/.gemini/policies/engram.toml`, hosts/gates.py) asks for commit at user-tier
priority 900 (4.9). Below it sit `tools.allowed` in settings (4.3) and `trust: true` on the server
entry (4.2), which allow; a user policy rule that allows commit above priority 900 beats it.
Without Engram's policy, any of them lets commit run unasked.
"""

from __future__ import annotations

import fnmatch
import tomllib
from pathlib import Path
from typing import Any

from engram import tomltext
from engram.hosts import gates

FQN = f"mcp_{gates.SERVER}_{gates.COMMIT}"
OURS_PRIORITY = 900


def has_engram_policy(home: Path) -> bool:
    try:
        text = (home / gates.GEMINI_POLICY).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return False
    return text.startswith(gates.GEMINI_MARKER)


def _names(rule: dict[str, Any]) -> list[str]:
    raw = rule.get("toolName")
    names = raw if isinstance(raw, list) else [raw]
    return [str(n) for n in names if isinstance(n, str)]


def rule_allows_commit(rule: Any) -> bool:
    if not isinstance(rule, dict) or rule.get("decision") != "allow":
        return False
    server = rule.get("mcpName")
    if server is None:
        return any(fnmatch.fnmatchcase(FQN, n) for n in _names(rule))
    if server not in (gates.SERVER, "*"):
        return False
    return any(n in ("*", gates.COMMIT, FQN) for n in _names(rule))


def allowing_policies(home: Path, above: int | None) -> list[Path]:
    """User policy files with a rule that allows commit (above `above` priority, if given)."""
    found: list[Path] = []
    directory = home / gates.GEMINI_POLICY
    for path in sorted(directory.parent.glob("*.toml")):
        if path.name == directory.name:
            continue
        try:
            rules = tomltext.loads(path.read_text(encoding="utf-8")).get("rule", [])
        except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
            continue
        for rule in rules if isinstance(rules, list) else []:
            priority = rule.get("priority", 0) if isinstance(rule, dict) else 0
            if rule_allows_commit(rule) and (above is None or (
                    isinstance(priority, int) and priority > above)):
                found.append(path)
                break
    return found


def unreadable_policies(home: Path) -> list[Path]:
    """User policy files doctor cannot read (Gemini may still load them): not UTF-8, not TOML,
    or nested past tomltext's limits."""
    directory = home / gates.GEMINI_POLICY
    found: list[Path] = []
    for path in sorted(directory.parent.glob("*.toml")):
        try:
            tomltext.loads(path.read_text(encoding="utf-8"))
        except (UnicodeDecodeError, tomllib.TOMLDecodeError):
            found.append(path)
        except OSError:
            continue
    return found


def settings_allow(data: Any) -> list[str]:
    """`tools.allowed` entries of a Gemini settings object that cover the commit tool."""
    tools = data.get("tools") if isinstance(data, dict) else None
    allowed = tools.get("allowed") if isinstance(tools, dict) else None
    if not isinstance(allowed, list):
        return []
    return [str(a) for a in allowed if isinstance(a, str) and fnmatch.fnmatchcase(FQN, a)]
