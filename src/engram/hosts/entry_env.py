"""What a host entry that launches Engram passes besides Engram's own command
(docs/safety.md "Class 5", docs/hosts.md "Doctor").

A host starts the server exactly as its entry says, with the entry's environment, and the human
approved *Engram* (Claude's "Pending approval", Gemini's folder trust, `engram link`), not that
environment. So:

- `host.entry_env`: any variable in `env` (OpenCode: `environment`), or assigned inline in a
  wrapped command, that is not Engram's own (`ENGRAM_…`): the host passes it to the approved
  server, and `PYTHONPATH`, `PYTHONSTARTUP`, `LD_PRELOAD`, `NODE_OPTIONS` or a `PATH` into the
  repository run code of the file's choosing inside it (also `cwd`, which decides the workspace
  the server reads). Nothing is kept as a list of dangerous names: every foreign name is
  reported, and the values are never printed.
- `host.dialog_off`: a variable the server itself reads as "this host answers no approval
  dialog" (asked of `config.read_env`, the one reader of the environment), or `--no-elicitation`
  hidden inside a wrapped command (the plain flag is `planted.dialog_off`).
- `host.wrapped_launch`: an entry that launches Engram inside another command (`env X=… engram-mcp`,
  `sh -c "…"`, `python -m engram.mcp`, `python -c …`): not a form `engram link` writes, so doctor
  neither checks nor starts it, and whatever wraps it runs with the approved server.

Pure: parsed entries in, findings out. Names are printed as plain tokens only.
"""

from __future__ import annotations

import re
import shlex
from typing import Any

from engram.config import read_env
from engram.hosts import command
from engram.hosts.findings import Finding, Level
from engram.hosts.mcpconf import NO_DIALOG
from engram.safety.names import shown_token

ENV_KEYS = ("env", "environment")
# Keys that load variables from a file or choose the folder the server starts in.
FILE_KEYS = ("envFile", "env_file", "cwd")
OWN_PREFIX = "ENGRAM_"
_ASSIGN = re.compile(r"[A-Za-z_][A-Za-z0-9_]*=")
_BASE_HOME = "/nonexistent-engram-home"


def _launches_engram(entry: Any) -> bool:
    return command.is_engrams(entry) or any(
        "engram" in token.lower() for token in command.argv_of(entry))


def _tokens(argv: list[str]) -> list[str]:
    """The argv with every token that holds a command line of its own (`sh -c "…"`) split."""
    out: list[str] = []
    for token in argv:
        if any(c.isspace() for c in token):
            try:
                out += _tokens(shlex.split(token))
                continue
            except ValueError:
                pass
        out.append(token)
    return out


def _inline(argv: list[str]) -> tuple[dict[str, str], list[str]]:
    """Variables assigned before the token that starts Engram, and the tokens after it."""
    tokens = _tokens(argv)
    start = next((i for i, t in enumerate(tokens)
                  if "engram" in t.lower() and not _ASSIGN.match(t)), len(tokens))
    assigned = dict(t.split("=", 1) for t in tokens[:start] if _ASSIGN.match(t))
    return assigned, tokens[start + 1:]


def environment(entry: Any) -> dict[str, str]:
    """Every variable the entry sets for the server: its env table and inline assignments."""
    out: dict[str, str] = {}
    for key in ENV_KEYS:
        table = entry.get(key) if isinstance(entry, dict) else None
        if isinstance(table, dict):
            out.update({str(k): str(v) for k, v in table.items()})
    out.update(_inline(command.argv_of(entry))[0])
    return out


def _dialog_var(name: str, value: str) -> bool:
    """Whether Engram's server, started with this variable, treats the host as one that
    answers no approval dialog (asked of the one reader of the environment)."""
    base = {"HOME": _BASE_HOME}
    return read_env({**base, name: value}).dialogless_host is not None \
        and read_env(base).dialogless_host is None


def _reads(name: str, value: str) -> list[str]:
    """Which of Engram's own inputs the variable changes (its state directory, PATH, …)."""
    base = {"HOME": _BASE_HOME}
    before, after = read_env(base)._asdict(), read_env({**base, name: value})._asdict()
    return [k for k in before if before[k] != after[k]]


def wrapped(entry: Any) -> bool:
    """An entry that launches Engram inside another command (not a form link writes)."""
    return _launches_engram(entry) and not command.is_engrams(entry)


def findings(where: str, entry: Any, fix: str, *, project: bool,
             named_engram: bool = False) -> list[Finding]:
    """`host.entry_env`, `host.dialog_off` and `host.wrapped_launch` for one entry that
    launches Engram, or that is named `engram` (which the host's approval and Engram's allow
    rules trust by that name), none for another entry. Errors in a project file (the
    repository's), warnings in the user's own."""
    if not (_launches_engram(entry) or named_engram):
        return []
    level: Level = "error" if project else "warn"
    out: list[Finding] = []
    env = environment(entry)
    dialog = sorted(k for k, v in env.items() if _dialog_var(k, v))
    foreign = sorted(k for k in env if not k.startswith(OWN_PREFIX) and k not in dialog)
    keys = [k for k in FILE_KEYS if isinstance(entry, dict) and entry.get(k) not in (None, "")]
    cwd = bool(keys)
    if foreign or cwd:
        names = [shown_token(k) for k in foreign] + keys
        moved = sorted({r for k in foreign for r in _reads(k, env[k])} - {"path"})
        extra = (f"; it also moves what Engram itself reads ({', '.join(moved)})"
                 if moved else "")
        why = ("a variable such as PYTHONPATH, PYTHONSTARTUP, LD_PRELOAD or a PATH into the "
               "repository runs code of the file's choosing inside the approved server"
               if foreign else "")
        if cwd:
            why += ("; " if why else "") + f"{'/'.join(keys)} loads variables from a file or " \
                "starts it in another folder, which decides the workspace it reads"
        out.append(Finding(
            "host.entry_env", level,
            f"{where}: the host starts Engram's server with {', '.join(names)} set by this "
            f"file: {why}{extra}",
            f"remove {', '.join(names)} from the entry unless you set them yourself, then "
            f"`{fix}`"))
    hidden_flag = NO_DIALOG in _inline(command.argv_of(entry))[1] \
        and NO_DIALOG not in command.argv_of(entry)
    if dialog or hidden_flag:
        what = [shown_token(k) for k in dialog] + ([NO_DIALOG] if hidden_flag else [])
        out.append(Finding(
            "host.dialog_off", "warn",
            f"{where}: {', '.join(what)} switches Engram's approval dialog off (the server "
            "then treats the host as one that answers no dialog), so a proposal is approved "
            "only through the host's prompt for engram_commit, which shows the agent's "
            "retelling and the token",
            f"remove {', '.join(what)} from the entry unless you set it yourself"))
    argv = command.argv_of(entry)
    if wrapped(entry):
        out.append(Finding(
            "host.wrapped_launch", level,
            f"{where}: Engram is launched inside `{shown_token(argv[0])}`, not by the "
            "command `engram link` writes: whatever wraps it runs with the approved server, "
            "and doctor neither checks nor starts it",
            f"`{fix} --force` writes Engram's own launch command (review the entry first)"))
    elif named_engram and not command.is_engrams(entry):
        started = f"`{shown_token(argv[0])}`" if argv else "a server that is no local command"
        out.append(Finding(
            "host.wrapped_launch", level,
            f"{where}: the entry named engram starts {started}, not Engram's server: the host's "
            "approval and the allow rules for Engram's read tools trust it by that name",
            f"remove the entry unless you wrote it; `{fix} --force` writes Engram's own"))
    return out


def servers(where: str, table: Any, fix: str, *, project: bool) -> list[Finding]:
    """`findings` for every entry of a host's server table that launches Engram (the `engram`
    entry, and one under another name, which `planted.renamed` reports as well)."""
    if not isinstance(table, dict):
        return []
    out: list[Finding] = []
    for name, entry in table.items():
        at = where if name == "engram" else f"{where} server {shown_token(str(name))}"
        out += findings(at, entry, fix, project=project, named_engram=name == "engram")
    return out


# A host's own settings `env` (Claude's `env` applies to the whole session, so to every server
# and hook it starts) holds the host's own variables too, so only those that change how
# Engram's process starts are reported: the interpreter's and the dynamic loader's, whatever
# their name after the prefix, and any Engram reads itself (asked of `config.read_env`).
RUNTIME_PREFIXES = ("PYTHON", "LD_", "DYLD_")


def settings_env(where: str, data: Any, *, project: bool) -> list[Finding]:
    """`host.entry_env` / `host.dialog_off` for a host settings file's session-wide `env`."""
    table = data.get("env") if isinstance(data, dict) else None
    if not isinstance(table, dict):
        return []
    env = {str(k): str(v) for k, v in table.items()}
    dialog = sorted(k for k, v in env.items() if _dialog_var(k, v))
    starts = sorted(k for k, v in env.items() if k not in dialog and not k.startswith(OWN_PREFIX)
                    and (k.startswith(RUNTIME_PREFIXES) or _reads(k, v)))
    out: list[Finding] = []
    if starts:
        names = ", ".join(shown_token(k) for k in starts)
        out.append(Finding(
            "host.entry_env", "error" if project else "warn",
            f"{where}: `env` sets {names} for the whole session, so for Engram's server and "
            "hook too: they change how the approved server starts (what Python imports, what "
            "the loader preloads, which programs and state it uses)",
            f"remove {names} from `env` unless you set them yourself"))
    if dialog:
        names = ", ".join(shown_token(k) for k in dialog)
        out.append(Finding(
            "host.dialog_off", "warn",
            f"{where}: `env` sets {names} for the whole session, which switches Engram's "
            "approval dialog off (the server treats the host as one that answers no dialog)",
            f"remove {names} from `env` unless you set it yourself"))
    return out


def hook_command(where: str, cmd: str) -> list[Finding]:
    """Variables assigned on the command line of Engram's own Claude hook (a project file)."""
    assigned, _ = _inline([cmd])
    foreign = sorted(k for k in assigned if not k.startswith(OWN_PREFIX))
    if not foreign:
        return []
    names = ", ".join(shown_token(k) for k in foreign)
    return [Finding("host.entry_env", "error",
                    f"{where}: Engram's hook runs with {names} set by this file: a variable "
                    "such as PYTHONPATH or LD_PRELOAD runs code of the file's choosing inside "
                    "the hook that prints memory to the agent",
                    f"remove {names} from the hook's command unless you set them yourself, "
                    "then `engram link claude`")]


def link_note(path: str, entry: Any) -> str | None:
    """What `engram link` says when it keeps an entry's environment or wrapper."""
    found = findings(path, entry, "engram link", project=True)
    if not found:
        return None
    codes = ", ".join(sorted({f.code for f in found}))
    names = sorted(environment(entry))
    kept = f" (kept: {', '.join(shown_token(n) for n in names)})" if names else ""
    return (f"{path}: the engram entry sets more than Engram's command ({codes}){kept}; "
            "run `engram doctor` and remove what you did not set")
