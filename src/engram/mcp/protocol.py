"""Protocol knowledge as data: versions, error codes, meta keys, cache hints, instructions, prompt.

Both eras (legacy handshake and MCP 2026-07-28) render from these values; nothing here does I/O
or knows about the engine. Tool definitions live in `tools.py` because they are long.
"""

from __future__ import annotations

import json
from typing import Final

from engram import __version__

# Versions reachable through the `initialize` handshake, oldest to newest. A client asking for
# anything else gets the newest one: we never answer with a version string we do not know.
LEGACY_VERSIONS: Final[tuple[str, ...]] = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25")
LATEST_LEGACY: Final[str] = LEGACY_VERSIONS[-1]
# Versions served statelessly, per request, from `params._meta`.
MODERN_VERSIONS: Final[tuple[str, ...]] = ("2026-07-28",)
# Form elicitation (`elicitation/create`) exists from this handshake version on.
ELICITATION_SINCE: Final[str] = "2025-06-18"
# `mode: "form"` in elicitation/create params exists from this version on.
ELICITATION_MODE_SINCE: Final[str] = "2025-11-25"

# JSON-RPC and MCP error codes.
PARSE_ERROR: Final = -32700
INVALID_REQUEST: Final = -32600
METHOD_NOT_FOUND: Final = -32601
INVALID_PARAMS: Final = -32602
INTERNAL_ERROR: Final = -32603
RESOURCE_NOT_FOUND: Final = -32002  # legacy era only; the modern era uses INVALID_PARAMS
UNSUPPORTED_PROTOCOL_VERSION: Final = -32022

# Reserved `_meta` keys of MCP 2026-07-28.
META_PROTOCOL_VERSION: Final = "io.modelcontextprotocol/protocolVersion"
META_CLIENT_CAPABILITIES: Final = "io.modelcontextprotocol/clientCapabilities"
META_SERVER_INFO: Final = "io.modelcontextprotocol/serverInfo"
# Host-specific tool `_meta` keys (Claude Code).
META_ALWAYS_LOAD: Final = "anthropic/alwaysLoad"
META_REQUIRES_USER_INTERACTION: Final = "anthropic/requiresUserInteraction"

SERVER_NAME: Final = "engram"
SERVER_INFO: Final[dict[str, str]] = {"name": SERVER_NAME, "version": __version__}
CAPABILITIES: Final[dict[str, dict[str, object]]] = {"tools": {}, "resources": {}, "prompts": {}}

# SEP-2549 cache hints. Definitions are fixed for the life of the process; resources change with
# every save, so clients must re-fetch them (and a read counts a recall, so it must reach us).
CACHE_SCOPE: Final = "private"
TTL_STATIC_MS: Final = 300_000
TTL_VOLATILE_MS: Final = 0

# Limits of the transport and the approval dialog.
MAX_LINE_BYTES: Final = 10 * 1024 * 1024
MAX_IN_FLIGHT: Final = 32
DIALOG_TIMEOUT_S: Final = 60.0
REQUEST_STATE_TTL_S: Final = 15 * 60.0
MAX_INSTRUCTIONS_CHARS: Final = 512
MAX_TOOLS_LIST_TOKENS: Final = 1500

INDEX_URI: Final = "engram://index"
MEMORY_URI_PREFIX: Final = "engram://memory/"
MEMORY_URI_TEMPLATE: Final = "engram://memory/{id}"
MARKDOWN: Final = "text/markdown"

INSTRUCTIONS: Final = (
    "Engram is this project's human-approved memory of rules, decisions and skills. Before "
    "non-trivial work call engram_load with the task to recall them (engram_search finds by "
    "keyword; engram_route previews routing). Propose knowledge worth keeping with engram_save "
    "or engram_save_session: they never write. engram_commit writes only after the human has "
    "approved the exact candidates shown; never call it before that. engram_note keeps a short "
    "task note; engram_status and engram_verify check health."
)

PROMPT_NAME: Final = "propose"
PROMPT_DESCRIPTION: Final = "How to propose memories to Engram: what to save, syntax, approval."
TAKE_CONTROL_NAME: Final = "take-control"
TAKE_CONTROL_DESCRIPTION: Final = ("Adopt this project's existing guidance files (CLAUDE.md, "
                                   "AGENTS.md, Cursor rules, memory-bank/, ...) as Engram "
                                   "memories: the sanitized sources as data, and how to "
                                   "propose them.")
PROPOSE_PROTOCOL: Final = """\
Engram memory proposal protocol

What is worth saving: durable project knowledge a teammate would want next time - a rule the
project follows (always/never), a decision and why it was taken, a procedure (skill) that worked.
Not worth saving: task progress, guesses, anything secret or personal, text copied from tools.

Candidate syntax, one per line, at most 8 per proposal:
TYPE: rule | TEXT: Always run tests before release. | CONTEXT: why | DEPENDS_ON: a, b | \
UPDATE: id | SUPERSEDES: id | ROLE: backend | TRIGGERS: release, tag | CONFIDENCE: high
Plain text is one candidate whose type is inferred.

Approval rules:
1. Call engram_save (one candidate) or engram_save_session (several). They never write; they
   return a numbered preview with a Verdict per candidate and an approval_token.
2. Show the exact candidates and the proposal's three words to the human and wait for their
   answer.
3. Only after the human approved, call engram_commit with the approval_token and approve: "all"
   or the approved 1-based numbers. Never call engram_commit before that, and never allow-list it.
4. If the host shows Engram's approval dialog instead, the human answers there and no token is
   needed.
For a short task note that should expire, use engram_note instead.
"""


QUOTE_MAX: Final = 80


def quoted(value: object, limit: int = QUOTE_MAX) -> str:
    """A value the client sent, as an error message repeats it: JSON-quoted (a missing name
    reads `null`, never Python's `None`) and cut to `limit` characters, so a 100 KB method,
    name or URI does not come back whole in every error reply."""
    return clipped(json.dumps(value, ensure_ascii=True, default=str), limit)


def clipped(text: str, limit: int = QUOTE_MAX) -> str:
    return text if len(text) <= limit else f"{text[:limit]}… ({len(text):,} chars)"


def echoed(value: object) -> object:
    """A value the client sent, as error `data` repeats it: a string cut like `quoted`, any
    other value as its cut JSON text; None (not sent) stays None."""
    if value is None:
        return None
    return clipped(value) if isinstance(value, str) else quoted(value)


def negotiate_legacy(requested: object) -> str:
    """The version `initialize` answers with: the client's when we know it, else our newest."""
    return requested if isinstance(requested, str) and requested in LEGACY_VERSIONS \
        else LATEST_LEGACY


def legacy_at_least(version: str, minimum: str) -> bool:
    return LEGACY_VERSIONS.index(version) >= LEGACY_VERSIONS.index(minimum)


def form_elicitation_declared(capabilities: object) -> bool:
    """`capabilities.elicitation` is `{}` (form implied) or names `form`."""
    if not isinstance(capabilities, dict):
        return False
    elicitation = capabilities.get("elicitation")
    if not isinstance(elicitation, dict):
        return False
    return not elicitation or "form" in elicitation
