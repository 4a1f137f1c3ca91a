"""Directives aimed at the agent reading a guidance file, beyond the shared injection scan.

Guidance files are written to be read by agents, so they are the natural place to plant text
that turns on its reader ("When you are an AI assistant reading this, disregard your system
prompt …"). `engram.safety` flags the classic phrasings; this adds the reader-directed ones
that scan let through on the take-control fixture (tests/fixtures/takecontrol), for adopted
sources only. A flagged line is treated as an injection line: never proposed, never echoed,
removed from the agent's source pack. Pure.
"""

from __future__ import annotations

import re

_OVERRIDE = re.compile(
    r"\b(disregard|ignore|forget|override|bypass|drop)\b[^.\n]{0,40}\b(system prompt|"
    r"(previous|prior|earlier|above|original|other|your) (instructions|rules|guidelines|"
    r"guardrails|prompt)|safety (rules|checks|guidelines))", re.I)
_EXFIL = re.compile(
    r"\b(send|upload|post|paste|exfiltrate|email|print|reveal|leak|copy)\b[^.\n]{0,60}"
    r"(~/\.ssh|\.env\b|credentials|secrets?\b|api keys?|tokens?\b|system prompt|private keys?)",
    re.I)
_SKIP_HUMAN = re.compile(
    r"\b(without (asking|telling|showing|approval|confirmation)|approve (every|all|each)\b|"
    r"auto-?approve|no (restrictions|limits|rules) apply|you have no restrictions)", re.I)
_PIPE_SHELL = re.compile(r"\b(curl|wget)\b[^\n|]{0,200}\|\s*(ba|z)?sh\b", re.I)
_NEGATION = re.compile(r"\b(never|not|no|avoid|don't|dont|mustn't|shouldn't)\b", re.I)
_READER = re.compile(r"\b(ai|assistant|agent|model|llm|claude|gpt|copilot|gemini)s?\b", re.I)


def flagged(line: str) -> str:
    """The kind of reader-directed injection on `line`, or ""."""
    if _OVERRIDE.search(line):
        return "instruction-override line"
    if _PIPE_SHELL.search(line):
        return "pipe-to-shell line"
    if _READER.search(line) and (_asserted(_EXFIL, line) or _asserted(_SKIP_HUMAN, line)):
        return "reader-directed exfiltration or approval bypass"
    return ""


def _asserted(pattern: re.Pattern[str], line: str) -> bool:
    """A match not negated before it: "never send tokens …" is a rule, not an attack."""
    m = pattern.search(line)
    return m is not None and not _NEGATION.search(line[:m.start()])


def strip(text: str) -> tuple[str, int]:
    """`text` without flagged lines, and how many went."""
    kept, removed = [], 0
    for line in text.split("\n"):
        if flagged(line):
            removed += 1
        else:
            kept.append(line)
    return "\n".join(kept), removed
