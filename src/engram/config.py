"""Environment and layered configuration: the only module that reads `os.environ` and config files.

It owns the table of config keys (type, default, range), the layering defaults → user →
global root → workspace, clamping of hand-edited values (reported, never fatal) and the checked
`config set` path. It does not resolve roots (workspace.py) and does not know any command.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable, Collection, Iterable, Mapping
from pathlib import Path
from typing import Any, NamedTuple

from engram import jsontext
from engram.errors import ConfigValueError, UsageError
from engram.storage import read_text

CONFIG_FILE = "engram.config.json"


class Env(NamedTuple):
    """Everything Engram takes from the process environment, read once."""

    home: Path
    cwd: Path
    config_dir: Path
    workspace: str | None = None
    global_dir: str | None = None
    no_auto_upgrade: bool = False
    session_objective: str | None = None
    path: str = ""
    # The host that started this process and never answers an approval dialog, if known:
    # Claude Code in print mode (`claude -p`) sets CLAUDE_CODE_ENTRYPOINT=sdk-cli for its MCP
    # servers, declares the dialog capability, and lets every dialog run into its timeout.
    dialogless_host: str | None = None
    claude_config_dir: str | None = None  # Claude Code's CLAUDE_CONFIG_DIR (take-control)


def read_env(environ: Mapping[str, str] | None = None, cwd: Path | None = None) -> Env:
    """Snapshot the environment. Tests pass their own mapping instead of patching os.environ."""
    src = os.environ if environ is None else environ
    home = Path(src.get("HOME") or Path.home())
    config_dir = Path(src.get("ENGRAM_CONFIG_DIR") or home / ".engram")
    return Env(
        home=home,
        cwd=cwd or Path.cwd(),
        config_dir=config_dir,
        workspace=src.get("ENGRAM_WORKSPACE") or None,
        global_dir=src.get("ENGRAM_GLOBAL_DIR") or None,
        no_auto_upgrade=src.get("ENGRAM_NO_AUTO_UPGRADE", "") in {"1", "true", "yes"},
        session_objective=src.get("ENGRAM_SESSION_OBJECTIVE") or None,
        path=src.get("PATH", ""),
        dialogless_host=("Claude Code print mode (claude -p)"
                         if src.get("CLAUDE_CODE_ENTRYPOINT") == "sdk-cli" else None),
        claude_config_dir=src.get("CLAUDE_CONFIG_DIR") or None,
    )


_ROLE = re.compile(r"[a-z0-9][a-z0-9_.-]{0,39}")
ROLE_HINT = ("roles are short words of letters, digits, - _ . (no spaces or newlines), "
             "e.g. backend,ops")


def normalise_roles(raw: Iterable[str]) -> list[str]:
    """The one check of role names (config, set-role, save --role, candidates): comma-separated
    items, trimmed and lower-cased, each a short word; anything else (a space or newline inside
    a role, punctuation) is refused, never split or cleaned into something else."""
    names: list[str] = []
    for item in raw:
        for part in str(item).split(","):
            name = part.strip(" ").lower()
            if not name:
                continue
            if not _ROLE.fullmatch(name):
                raise ConfigValueError(f"invalid role {part.strip(' ')!r}", hint=ROLE_HINT)
            if name not in names:
                names.append(name)
    return names


class Key(NamedTuple):
    """One config key: its kind, default and allowed values or range."""

    name: str
    kind: str  # "int" | "bool" | "enum" | "list" | "str"
    default: Any
    lo: int = 0
    hi: int = 0
    choices: tuple[str, ...] = ()
    doc: str = ""
    items: Callable[[list[str]], list[str]] | None = None  # checks a list's items


KEYS: dict[str, Key] = {
    k.name: k
    for k in (
        Key("scope", "enum", None, choices=("workspace", "global", "both"),
            doc="save target (default: both when a global root exists, else workspace)"),
        Key("roles", "list", [], doc="roles whose role-scoped memories are visible",
            items=normalise_roles),
        Key("rule_variants.enabled", "bool", False, doc="render the active rule variant"),
        Key("rule_variants.active", "enum", "balanced", choices=("light", "balanced", "strict"),
            doc="which rule variant is active"),
        Key("load.limit", "int", 8, lo=1, hi=32, doc="memories routed per load"),
        Key("load.max_tokens", "int", 1600, lo=200, hi=16000, doc="default token budget"),
        Key("load.working_ttl_days", "int", 7, lo=1, hi=365, doc="lifetime of working notes"),
        Key("mcp.resource_limit", "int", 20, lo=0, hi=200, doc="memories in resources/list"),
        Key("read", "enum", "auto", choices=("startup", "auto", "always", "manual", "off"),
            doc="hook read mode"),
        Key("ignore.patterns", "list", [], doc="glob patterns of memory files to ignore",
            items=lambda raw: ignore_patterns(raw)),
        Key("global_path", "str", None, doc="global root (user config only)"),
        Key("semantic.enabled", "bool", False,
            doc="fill free pack slots by word-vector similarity (needs the semantic extra)"),
    )
}


# What a repository's own config (`<project>/.agents/.engram/engram.config.json`, a file anyone
# who can write the project wrote, a cloned repository included) may set for a key: only a
# narrowing. `scope` from there can keep saves in the workspace, never send them to the user's
# global memory, which every project reads (docs/safety.md); the user sets that in their own
# config (`engram config set scope both --user`) or per save (`--scope`).
REPO_NARROW: dict[str, frozenset[str]] = {"scope": frozenset({"workspace"})}


class Clamp(NamedTuple):
    """A hand-edited value Engram cannot use as written: out of range (clamped), of the wrong
    type, or a section that is not an object (the defaults are used). Reported by `engram
    status` and `engram doctor` through `message` and `fix`."""

    file: str
    key: str
    value: Any
    used: Any

    @property
    def shown_value(self) -> str | None:
        """The file's value as reports print it (JSON spelling), or None: a config file is text
        anyone who can write the project wrote (reports reach agents: `engram_status`), so only
        a number, a boolean or one short word is repeated."""
        v = self.value
        if isinstance(v, bool | int | float) or (
                isinstance(v, str) and v.isascii() and v.replace("-", "").isalnum()
                and len(v) <= 16):
            return json.dumps(v)
        return None

    @property
    def message(self) -> str:
        shown = self.shown_value
        what = (f"{self.key} = {shown} cannot be used" if shown is not None
                else f"{self.key} holds a value that is not allowed")
        used = ("the defaults" if self.used is _SECTION
                else "the default" if self.used is None else json.dumps(self.used))
        return f"{self.file}: {what}; using {used}"

    @property
    def fix(self) -> str:
        if self.key == "global_path":
            return "engram init --global PATH (creates the root and records it in your user config)"
        key = KEYS.get(self.key)
        if key is None:  # a section such as "load" that is not an object
            first = next(k for k in KEYS.values() if k.name.startswith(self.key + "."))
            leaf = first.name.removeprefix(self.key + ".")
            example = json.dumps({self.key: {leaf: first.default}})
            return f"make {self.key} an object such as {example}, or remove it"
        narrow = REPO_NARROW.get(self.key)
        if narrow is not None and self.value not in narrow and self.value in key.choices:
            return (f"nothing to do: saves stay in this workspace (a project's config may only "
                    f"set {self.key} to {', '.join(narrow)}); to save to your global memory "
                    f"too, set it for yourself: engram config set {self.key} {self.value} --user "
                    "(with a global root: engram init --global PATH)")
        return f"engram config set {self.key} <value> ({_range_hint(key)})"


_SECTION = object()  # Clamp.used of a config section that is not an object


def _is_section(name: str) -> bool:
    return any(k.startswith(name + ".") for k in KEYS)


_PATTERN = re.compile(r"[\w./*?\[\]!{}@+,=#%~^-]{1,200}")


def ignore_patterns(items: list[str]) -> list[str]:
    """Glob patterns of memory files: path characters and wildcards only (no spaces, quotes
    or markup: the list is shown back, in `engram config list` and `engram_status`)."""
    for item in items:
        if not _PATTERN.fullmatch(item.strip()):
            raise ConfigValueError("ignore.patterns: a pattern holds characters no file glob "
                                   "needs", hint="use path characters and * ? [ ] only")
    return [i.strip() for i in items]


class Settings(NamedTuple):
    values: dict[str, Any]
    sources: tuple[Path, ...] = ()
    clamped: tuple[Clamp, ...] = ()

    def get(self, key: str) -> Any:
        if key not in KEYS:
            raise UsageError(f"unknown config key {key!r}", hint=f"known keys: {', '.join(KEYS)}")
        return self.values[key]

    def int(self, key: str) -> int:
        return int(self.get(key))


def read_json_file(path: Path) -> dict[str, Any]:
    """Read a JSON config file; a missing file is empty, a broken one is an error with a fix."""
    try:
        text = read_text(path)
    except FileNotFoundError:
        return {}
    try:
        data = jsontext.loads(text)
    except json.JSONDecodeError as exc:
        raise UsageError(
            f"{path}: invalid JSON at line {exc.lineno}: {exc.msg}",
            hint="fix the file by hand; Engram never rewrites a file it cannot parse",
            code="config.invalid",
        ) from exc
    except RecursionError as exc:  # e.g. 100,000 `[`: the decoder recurses once per level
        raise UsageError(f"{path}: invalid JSON: nested too deeply", code="config.invalid",
                         hint="fix the file by hand; Engram never rewrites a file it cannot "
                         "parse") from exc
    if not isinstance(data, dict):
        raise UsageError(f"{path}: expected a JSON object", code="config.invalid",
                         hint="the file must hold an object such as {\"load\": {\"limit\": 8}}")
    return data


def flatten(data: Mapping[str, Any], prefix: str = "") -> dict[str, Any]:
    """{"load": {"limit": 8}} -> {"load.limit": 8}; unknown keys are kept (forward compatible)."""
    out: dict[str, Any] = {}
    for k, v in data.items():
        name = f"{prefix}{k}"
        if isinstance(v, dict) and name not in KEYS:
            out.update(flatten(v, name + "."))
        else:
            out[name] = v
    return out


def coerce(key: Key, raw: Any, *, strict: bool) -> Any:
    """Validate one value. strict=True raises (config set); False clamps (hand edits)."""
    def fail(why: str) -> ConfigValueError:
        return ConfigValueError(f"{key.name}: {why}", hint=_range_hint(key))

    if key.kind == "int":
        if isinstance(raw, bool) or not isinstance(raw, int | str):
            raise fail(f"expected an integer, got {raw!r}")
        try:
            n = int(raw)
        except ValueError as exc:
            raise fail(f"expected an integer, got {raw!r}") from exc
        if n < key.lo or n > key.hi:
            if strict:
                raise fail(f"{n} is out of range")
            return min(max(n, key.lo), key.hi)
        return n
    if key.kind == "bool":
        if isinstance(raw, bool):
            return raw
        if isinstance(raw, str) and raw.lower() in {"true", "false", "1", "0", "on", "off"}:
            return raw.lower() in {"true", "1", "on"}
        raise fail(f"expected true or false, got {raw!r}")
    if key.kind == "enum":
        if raw is None and key.default is None:
            return None
        if raw not in key.choices:
            raise fail(f"{raw!r} is not allowed")
        return raw
    if key.kind == "list":
        if isinstance(raw, str):
            items = [s.strip() for s in raw.split(",") if s.strip()]
        elif isinstance(raw, list) and all(isinstance(s, str) for s in raw):
            items = list(raw)
        else:
            raise fail(f"expected a list of strings, got {raw!r}")
        return key.items(items) if key.items is not None else items
    if raw is not None and not isinstance(raw, str):
        raise fail(f"expected a string, got {raw!r}")
    return raw


def _range_hint(key: Key) -> str:
    if key.kind == "int":
        return f"use an integer from {key.lo} to {key.hi} (default {key.default})"
    if key.kind == "enum":
        return f"use one of: {', '.join(key.choices)}"
    if key.kind == "bool":
        return "use true or false"
    if key.kind == "list":
        return "use a comma-separated list"
    return "use a string"


def load_settings(files: list[Path], repo: Collection[Path] = ()) -> Settings:
    """Layer the given config files (lowest precedence first) over the defaults. A value from a
    `repo` file (the workspace's own config) outside `REPO_NARROW` is not used (reported)."""
    values = {name: (list(k.default) if isinstance(k.default, list) else k.default)
              for name, k in KEYS.items()}
    clamped: list[Clamp] = []
    for path in files:
        for name, raw in flatten(read_json_file(path)).items():
            key = KEYS.get(name)
            if key is None:
                if _is_section(name):  # `"load": 5`: every key under it keeps its value
                    clamped.append(Clamp(str(path), name, raw, _SECTION))
                continue
            try:
                used = coerce(key, raw, strict=False)
            except ConfigValueError:
                clamped.append(Clamp(str(path), name, raw, values[name]))
                continue
            narrow = REPO_NARROW.get(name)
            if narrow is not None and path in repo and used not in narrow:
                clamped.append(Clamp(str(path), name, raw, values[name]))
                continue
            if used != raw:
                clamped.append(Clamp(str(path), name, raw, used))
            values[name] = used
    return Settings(values=values, sources=tuple(files), clamped=tuple(clamped))


def set_value(data: dict[str, Any], name: str, raw: Any) -> dict[str, Any]:
    """Return a copy of a config object with `name` set (strictly validated)."""
    key = KEYS.get(name)
    if key is None:
        raise UsageError(f"unknown config key {name!r}", hint=f"known keys: {', '.join(KEYS)}")
    value = coerce(key, raw, strict=True)
    out = json.loads(json.dumps(data))
    node = out
    parts = name.split(".")
    for part in parts[:-1]:
        nxt = node.get(part)
        if not isinstance(nxt, dict):
            nxt = {}
            node[part] = nxt
        node = nxt
    node[parts[-1]] = value
    return out  # type: ignore[no-any-return]
