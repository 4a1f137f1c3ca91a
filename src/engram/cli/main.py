"""Entry point of `engram`: finds the command, imports only its module, maps errors to exit codes.

Command modules are imported lazily so `engram --version` and hook calls start fast. A command
is one row of COMMANDS: (name, module, attribute stem, one-line help). The module defines
`configure_<stem>(parser)` and `run_<stem>(args, ctx) -> Outcome`. This is the only place that
knows exit codes and prints errors.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Sequence

from engram import __version__
from engram.errors import EXIT_USAGE, EngramError

# Not `typing.TYPE_CHECKING`: importing typing costs ~5 ms on the `--version` hot path, and
# mypy treats any constant named TYPE_CHECKING as true.
TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse
    from typing import Any

    from engram.outcome import Outcome
    from engram.workspace import Roots

# (command, module, stem, help, read command → gets --json)
COMMANDS: list[tuple[str, str, str, str, bool]] = [
    ('init', 'engram.cli.init', 'init', 'create the memory layout (idempotent)', False),
    ('load', 'engram.cli.read', 'load', 'route a task to a token-budgeted memory pack', True),
    ('route', 'engram.cli.read', 'route', 'classify a task and list what it routes to', True),
    ('search', 'engram.cli.read', 'search', 'ranked lexical search over memories', True),
    ('save', 'engram.cli.write', 'save', 'propose one memory; save it after approval', False),
    ('save-session', 'engram.cli.write', 'save_session',
     'propose several memories (stdin, --file or args); save after approval', False),
    ('archive', 'engram.cli.write', 'archive', 'move a memory to archive/ with a reason', False),
    ('notes', 'engram.cli.notes', 'notes', 'list or prune working notes', True),
    ('promote', 'engram.cli.notes', 'promote',
     'make a working note durable (with approval)', False),
    ('stale', 'engram.cli.stale', 'stale',
     'memories whose anchored code moved, vanished or changed', True),
    ('confirm', 'engram.cli.stale', 'confirm', 'record that a memory was re-read and holds',
     False),
    ('verify', 'engram.cli.integrity', 'verify', 'check every memory file against its hash', True),
    ('rehash', 'engram.cli.integrity', 'rehash', 're-approve hand edits (update hashes)', True),
    ('status', 'engram.cli.status', 'status', 'show roots, counts, invalid files, config', True),
    ('config', 'engram.cli.config_cmd', 'config', 'get, set or list configuration', True),
    ('set-role', 'engram.cli.settings', 'set_role', 'set the roles whose memories load', False),
    ('set-rule-variant', 'engram.cli.settings', 'set_rule_variant',
     'rule variant mode: off|light|balanced|strict|status', False),
    ('set-save-target', 'engram.cli.settings', 'set_save_target',
     'default save target: workspace|global|both', False),
    ('set-load-limit', 'engram.cli.settings', 'set_load_limit',
     'memories routed per load: 1..32 or reset', False),
    ('set-read', 'engram.cli.settings', 'set_read',
     'hook read mode: startup|auto|always|manual|off', False),
    ('link', 'engram.cli.link', 'link', 'connect an agent host (instructions, MCP, hooks)', True),
    ('unlink', 'engram.cli.link', 'unlink', 'remove exactly what link added', True),
    ('upgrade', 'engram.cli.upgrade', 'upgrade', 're-pin hosts, refresh blocks and hooks', True),
    ('doctor', 'engram.cli.doctor', 'doctor', 'check config, roots and linked hosts', True),
    ('agent-hook', 'engram.cli.hook', 'agent_hook', 'answer a host hook (stdin JSON)', False),
    ('bench', 'engram.cli.bench', 'bench', 'measure speed, size and routing quality', False),
    ('demo', 'engram.cli.demo', 'demo', 'see Engram work end to end in a throwaway project', False),
    ('export', 'engram.cli.export', 'export',
     'write approved memories as AGENTS.md, CLAUDE.md, .cursorrules or a JSON bundle', False),
    ('import', 'engram.cli.export', 'import_bundle',
     'propose the memories of an export bundle (preview, then approval)', False),
    ('take-control', 'engram.cli.takecontrol', 'take_control',
     "adopt the repository's existing agent guidance as memories (with approval)", False),
]
ALIASES = {"ss": "save-session", "tc": "take-control"}


class Context:
    """What a command gets besides its arguments: lazily resolved roots and output mode."""

    def __init__(self, args: argparse.Namespace) -> None:
        self.args = args

    @property
    def roots(self) -> Roots:
        if not hasattr(self, "_roots"):
            from engram.workspace import resolve

            self._roots = resolve(workspace=getattr(self.args, "workspace", None))
        return self._roots

    @property
    def json(self) -> bool:
        return bool(getattr(self.args, "json", False))


def _formatter(base: type[argparse.HelpFormatter]) -> Callable[..., argparse.HelpFormatter]:
    """`base` with the terminal's width asked of os directly.

    argparse builds a formatter on every `add_argument`, and the default one imports shutil
    (with bz2 and lzma) to learn the width: a few ms of every cold command, help or not."""

    def make(*, prog: str) -> argparse.HelpFormatter:
        try:
            width = os.get_terminal_size(sys.stdout.fileno()).columns
        except (OSError, ValueError):  # not a terminal, or stdout replaced
            width = 80
        return base(prog, width=max(width, 40) - 2)

    return make


def _top_parser() -> argparse.ArgumentParser:
    import argparse

    width = max(len(c[0]) for c in COMMANDS)
    epilog = "commands:\n" + "\n".join(f"  {c[0].ljust(width)}  {c[3]}" for c in COMMANDS)
    p = argparse.ArgumentParser(
        prog="engram",
        description="Human-owned, file-first memory for AI coding agents.",
        epilog=epilog + "\n\nRun `engram help <command>` (or `engram <command> --help`) for a "
        "command's options.",
        formatter_class=_formatter(argparse.RawDescriptionHelpFormatter),
    )
    p.add_argument("--version", action="version", version=f"engram {__version__}")
    p.add_argument("command", nargs="?", help="the command to run")
    return p


def _find(name: str) -> tuple[str, str, str, str, bool] | None:
    name = ALIASES.get(name, name)
    for row in COMMANDS:
        if row[0] == name:
            return row
    return None


def _did_you_mean(name: str) -> str:
    """`did you mean `engram load`?` for a typo of a command or alias, else where the list is."""
    import difflib

    names = [c[0] for c in COMMANDS] + list(ALIASES)
    close = difflib.get_close_matches(name.lower(), names, n=1, cutoff=0.6)
    if close:
        return f"did you mean `engram {close[0]}`?"
    return "run `engram --help` for the list"


def build_parser(row: tuple[str, str, str, str, bool]) -> tuple[argparse.ArgumentParser, Any]:
    import argparse
    import importlib

    name, module_name, stem, help_text, gets_json = row
    module = importlib.import_module(module_name)
    p = argparse.ArgumentParser(prog=f"engram {name}", description=help_text,
                                formatter_class=_formatter(argparse.HelpFormatter))
    p.add_argument("--workspace", metavar="DIR", help="project directory (default: auto-detect)")
    if gets_json:
        p.add_argument("--json", action="store_true", help="print the JSON envelope")
    getattr(module, f"configure_{stem}")(p)
    return p, getattr(module, f"run_{stem}")


def _emit(outcome: Outcome, as_json: bool) -> int:
    if as_json:
        import json

        from engram.outcome import terminal_safe

        text = json.dumps(outcome.envelope(), ensure_ascii=False, indent=2)
        if terminal_safe(text) != text:  # a bidi or C1 control json leaves raw: \u-escape all
            text = json.dumps(outcome.envelope(), ensure_ascii=True, indent=2)
        sys.stdout.write(text + "\n")
    elif outcome.text:
        stream = sys.stderr if outcome.to_stderr else sys.stdout
        from engram.outcome import terminal_safe

        stream.write(terminal_safe(outcome.text.rstrip("\n")) + "\n")
    return outcome.exit_code



def _auto_repin() -> None:
    """Re-pin linked hosts after a package update (docs/hosts.md); one stamp read when current."""
    from engram.hosts.autopin import maybe_repin

    maybe_repin()


def _coded(exc: BaseException) -> EngramError:
    """A storage fault or runaway nesting the command did not code itself: one mapping
    (`engram.storage`) for every command, so none ends in a traceback."""
    from engram.storage import coded_error, fault_text

    coded = coded_error(exc)
    if coded is not None:
        return coded
    message, code = fault_text(exc)
    return EngramError(message, code=code)


def _emit_error(exc: EngramError, as_json: bool) -> int:
    from engram.outcome import failure

    return _emit(failure(exc.code, exc.message, hint=exc.hint, exit_code=exc.exit_code), as_json)


def _hoist_shared_options(argv: list[str]) -> list[str]:
    """`engram --workspace DIR --json status` → `engram status --workspace DIR --json`: the
    options every command takes may also come before it, as in most CLIs. Without a command
    after them they are left in place (`main` then says a command is missing)."""
    moved: list[str] = []
    rest = list(argv)
    while rest:
        if rest[0] == "--json":
            moved.append(rest.pop(0))
        elif rest[0].startswith("--workspace=") or (rest[0] == "--workspace" and len(rest) > 1):
            n = 1 if "=" in rest[0] else 2
            moved += rest[:n]
            del rest[:n]
        else:
            break
    if not moved or not rest or rest[0].startswith("-"):
        return argv
    return [rest[0], *moved, *rest[1:]]


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv == ["--version"]:  # the hot path of scripts and host probes: import nothing else
        sys.stdout.write(f"engram {__version__}\n")
        return 0
    argv = _hoist_shared_options(argv)
    if argv and argv[0].startswith("--workspace"):
        sys.stderr.write("engram: --workspace needs a command, e.g. "
                         "`engram --workspace DIR status`; run `engram --help` for the list\n")
        return EXIT_USAGE
    if argv and argv[0] == "help":  # `engram help [command]` is `engram [command] --help`
        if len(argv) > 2:
            sys.stderr.write("engram: help takes one command, e.g. `engram help save`\n")
            return EXIT_USAGE
        argv = [*argv[1:], "--help"] if len(argv) == 2 else ["--help"]
        if _find(argv[0]) is None and argv[0] != "--help":
            sys.stderr.write(f"engram: unknown command {argv[0]!r}; {_did_you_mean(argv[0])}\n")
            return EXIT_USAGE
    if not argv or argv[0].startswith("-"):
        top = _top_parser()
        top.parse_args(argv)  # handles --version and --help, exits
        top.print_help()
        return EXIT_USAGE if argv else 0
    row = _find(argv[0])
    if row is None:
        sys.stderr.write(f"engram: unknown command {argv[0]!r}; {_did_you_mean(argv[0])}\n")
        return EXIT_USAGE
    parser, run = build_parser(row)
    # Intermixed: options may sit anywhere, also between positionals
    # (`engram save rule --role backend "text"`).
    args = parser.parse_intermixed_args(argv[1:])
    ctx = Context(args)
    try:
        if row[0] != "upgrade":
            _auto_repin()
        return _emit(run(args, ctx), ctx.json)
    except EngramError as exc:
        return _emit_error(exc, ctx.json)
    except BrokenPipeError:
        return 0
    except (OSError, RecursionError) as exc:
        return _emit_error(_coded(exc), ctx.json)
    except KeyboardInterrupt:
        sys.stderr.write("engram: interrupted; nothing was half-written\n")
        return 130
    except Exception as exc:
        if type(exc).__module__ != "sqlite3":
            raise
        return _emit_error(_coded(exc), ctx.json)
