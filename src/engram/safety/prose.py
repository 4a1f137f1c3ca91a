"""Secrets written in prose: `the password is hunter2-Blue-Sky`, `token: abc123`, `key = v9x`.

The assignment rules (`rules.py`) block `PASSWORD=…` and `api_key: …` forms; a sentence that
names a credential and then gives a value slips past them (their validators reject values that
read like words). This rule is a warning, not a block (prose says "the key is to test early"),
with code `safety.prose_secret`: the preview shows it before anyone approves. The value span is
also what `proposals.plan` leaves out of a new memory's id, so a secret never becomes a file
name. Pure, linear regexes (bounded quantifiers), no I/O.
"""

from __future__ import annotations

import re
from typing import NamedTuple

_NAME = (r"(?:pass(?:word|wd|phrase)|pass[ \t]phrase|pwd|token|secret|credentials?"
         r"|(?:api|access|secret|private|signing)?[ \t_-]?key)")
_SEP = (r"(?:[ \t]{1,4}(?:is|was|are|equals|=|:)|[ \t]{0,4}[:=])"
        r"(?:[ \t]{1,4}(?:set[ \t]to|now))?[ \t]{0,4}")
_VALUE = r"""(?:["'`](?P<q>[^"'`\n]{1,200})["'`]|(?P<bare>[^\s"'`,;()\[\]{}<>]{1,200}))"""
PROSE = re.compile(r"(?<![\w-])" + _NAME + r"(?![\w-])" + _SEP + _VALUE, re.IGNORECASE)
_PLACEHOLDER = re.compile(r"^(?:x+|\*+|\.+|<.*>|\$\{.*\}|\{\{.*\}\}|changeme|redacted|example|"
                          r"placeholder|dummy|your[\w-]*|none|null|empty|required)$", re.I)


class ProseSecret(NamedTuple):
    start: int  # the value's span in the text
    end: int
    name: str  # the word that names it ("password", "token", …)


def _secret_like(value: str, quoted: bool) -> bool:
    """A value that reads like a credential: a digit, a symbol, or a case change inside it
    (`hunter2`, `s3cr3t!`, `BlueSky`); a plain word (`stored`, `to`) is prose."""
    v = value.rstrip(".!?")
    if len(v) < 4 or _PLACEHOLDER.match(v):
        return False
    if quoted and " " not in v:
        return True
    return bool(re.search(r"\d", v) or re.search(r"[!@#$%^&*+=~]", v)
                or re.search(r"[a-z][A-Z]", v))


def prose_secrets(text: str) -> list[ProseSecret]:
    """Every `NAME is VALUE` / `NAME: VALUE` / `NAME = VALUE` whose value reads like a
    credential, by position."""
    out: list[ProseSecret] = []
    for m in PROSE.finditer(text):
        group = "q" if m.group("q") is not None else "bare"
        value = m.group(group)
        if _secret_like(value, group == "q"):
            end = m.end(group) - (len(value) - len(value.rstrip(".!?")))
            out.append(ProseSecret(m.start(group), end, m.group(0).split()[0].rstrip(":=")))
    return out


def without_prose_secrets(text: str) -> str:
    """`text` with every prose secret value cut out (for ids and file names)."""
    for s in reversed(prose_secrets(text)):
        text = text[:s.start] + text[s.end:]
    return text
