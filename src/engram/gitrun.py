"""The command line of every git Engram runs (docs/safety.md, "Threat model: reading").

An agent that can write the repository can write `.git/config` and `.git/hooks/`. Git runs
commands named there even for the read-only questions Engram asks: `core.fsmonitor` for
`ls-files`, `check-attr` and `check-ignore`; hooks when an index refresh writes the index;
`gpg.program` when `log.showSignature` is on; `core.sshCommand` (or any transport) when a
repository configured as a partial clone is missing an object git reads, which it then fetches
lazily from the "promisor" remote. Engram asks them from the prompt hook, the MCP
server and `load` with no human in the loop, so each of those settings is overridden on the
command line, which wins over every config file: Engram's git never runs a command the
repository names.
"""

from __future__ import annotations

import os
from pathlib import Path

SAFE_CONFIG: tuple[str, ...] = (
    "-c", "core.fsmonitor=false",
    "-c", f"core.hooksPath={os.devnull}",
    "-c", "log.showSignature=false",
    "-c", "core.pager=cat",
    "-c", "protocol.allow=never",  # no lazy fetch: Engram's git never reaches a remote
)


def git_argv(cwd: Path | str, *args: str) -> list[str]:
    """`git -c … -C cwd args…`: the repository's config cannot make it run a command."""
    return ["git", *SAFE_CONFIG, "-C", str(cwd), *args]
