"""`engram-mcp`: parse the few flags, guard fd 1, serve stdio until stdin closes.

The fd-1 guard duplicates the real stdout for protocol output and points fd 1 and `sys.stdout`
at stderr, so a library `print`, a child process or a C extension can never corrupt the JSON
stream. Unknown options are ignored with one note on stderr (hosts sometimes pass extra args).
The engine is not imported here: `initialize` must answer within the cold-start budget.
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Sequence
from typing import IO

from engram import __version__
from engram.mcp.core import Core, EngineCore
from engram.mcp.server import Server, ServerOptions

USAGE = """\
usage: engram-mcp [--always-load] [--no-elicitation] [--workspace DIR]

Engram's MCP server over stdio (JSON-RPC, one message per line).
  --always-load     mark engram_load with _meta["anthropic/alwaysLoad"]: true
  --no-elicitation  always use the approval_token chat flow, never the approval dialog
  --workspace DIR   project directory (default: ENGRAM_WORKSPACE, else auto-detect)
"""


class Flags:
    def __init__(self) -> None:
        self.always_load = False
        self.no_elicitation = False
        self.workspace: str | None = None
        self.ignored: list[str] = []
        self.info: str | None = None  # --help / --version text; print it and exit


def parse(argv: Sequence[str]) -> Flags:
    flags = Flags()
    args = list(argv)
    while args:
        arg = args.pop(0)
        if arg == "--always-load":
            flags.always_load = True
        elif arg == "--no-elicitation":
            flags.no_elicitation = True
        elif arg == "--workspace" and args:
            flags.workspace = args.pop(0)
        elif arg.startswith("--workspace="):
            flags.workspace = arg.split("=", 1)[1] or None
        elif arg in {"-h", "--help"}:
            flags.info = USAGE
        elif arg in {"-V", "--version"}:
            flags.info = f"engram-mcp {__version__}\n"
        else:
            flags.ignored.append(arg)
    return flags


def guard_stdout() -> IO[bytes]:
    """Return a private handle on the real stdout; fd 1 and sys.stdout now go to stderr."""
    sys.stdout.flush()
    protocol_fd = os.dup(1)
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    return os.fdopen(protocol_fd, "wb")


def main(argv: Sequence[str] | None = None, *, core: Core | None = None,
         options: ServerOptions | None = None) -> int:
    flags = parse(sys.argv[1:] if argv is None else argv)
    if flags.info is not None:
        sys.stdout.write(flags.info)
        return 0
    if flags.ignored:
        sys.stderr.write(f"engram-mcp: ignoring unknown option(s): {' '.join(flags.ignored)}\n")
    from engram.config import read_env  # here: importing this module loads no engine module

    base = options or ServerOptions()
    dialogless = read_env().dialogless_host
    if dialogless and base.elicitation and not flags.no_elicitation:
        sys.stderr.write(f"engram-mcp: {dialogless} answers no approval dialog; saves use the "
                         "approval_token chat flow\n")
    options = base._replace(always_load=flags.always_load or base.always_load,
                            elicitation=(base.elicitation and not flags.no_elicitation
                                         and not dialogless))
    out = guard_stdout()
    server = Server(core or EngineCore(flags.workspace), options, out)
    with contextlib.suppress(KeyboardInterrupt):
        server.serve(sys.stdin.buffer)
    return 0
