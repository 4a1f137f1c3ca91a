"""Whether a request may use the semantic extra, and its table loaded (or why not).

Never imports numpy unless the channel is on: `semantic.enabled` false (the default) returns
`OFF` at once. When it is on and numpy or the table is missing or broken, routing stays lexical
and the reason is kept for `--explain` and `engram doctor`, never raised.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from engram.errors import VectorTableError

if TYPE_CHECKING:
    from engram.search.semantic import Embedder

INSTALL_HINT = "install the extra: pip install 'engram-protocol[semantic]'"
# A one-shot CLI process loads the table too: measured cold `engram load` at 1,000 memories
# with the channel on stays within the 250 ms (BENCHMARKS.md, "Semantic extra").
COLD_CLI = True


class Semantic(NamedTuple):
    """The channel for one request: an embedder, or the reason (code, message, fix) it is off."""

    embedder: Embedder | None = None
    code: str = ""
    message: str = ""
    hint: str = ""


OFF = Semantic()
SKIPPED_COLD = Semantic(None, "semantic.cold_cli",
                        "skipped in a one-shot CLI process (cold-start budget); the MCP server "
                        "uses it", "")


def file_key(path: Path) -> tuple[int, ...]:
    try:
        st = path.stat()
    except OSError:
        return ()
    return (st.st_ino, st.st_size, st.st_mtime_ns)


def load(path: Path) -> Semantic:
    """The embedder for the table at `path`, or why the channel is off for now."""
    try:
        from engram.search import semantic
    except ImportError:
        return Semantic(None, "semantic.no_numpy", "semantic.enabled is true but numpy is not "
                        "installed; routing is lexical only", INSTALL_HINT)
    try:
        return Semantic(semantic.load(path))
    except VectorTableError as exc:
        return Semantic(None, exc.code, f"{exc.message}; routing is lexical only", exc.hint)
