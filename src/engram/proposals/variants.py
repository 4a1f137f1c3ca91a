"""Generated rule variants (docs/saving.md): light, balanced and strict wordings of one rule.

Rules proposed without LIGHT/BALANCED/STRICT get three wordings from plain text transforms, no
model involved, so the same text always yields the same variants. Balanced is the rule as the
human wrote it; light softens the modal ("when practical"); strict makes it unconditional and
names the exception path. Given variants always win over generated ones.
"""

from __future__ import annotations

import re

_POSITIVE = re.compile(
    r"^(always|you must|must|you should|should|make sure to|be sure to)\s+", re.I)
_NEGATIVE = re.compile(
    r"^(never|do not|don't|dont|must not|you must not|should not|shouldn't|you should not)\s+",
    re.I)
_AVOID = re.compile(r"^avoid\s+", re.I)
_EXCEPTION = "no exceptions without explicit approval from the team"


def sentence(text: str) -> str:
    """One line, capitalised, ending with a full stop (unless it already ends with punctuation)."""
    s = " ".join(text.split())
    if not s:
        return s
    s = s[0].upper() + s[1:]
    return s if s[-1] in ".!?" else s + "."


def _core(text: str) -> str:
    return " ".join(text.split()).rstrip(".!?; ")


def _lower_first(s: str) -> str:
    # Keep acronyms and identifiers ("API", "README") as written.
    if len(s) > 1 and s[1].isupper():
        return s
    return s[:1].lower() + s[1:]


def generate(text: str) -> dict[str, str]:
    """Light, balanced and strict wordings of a rule's text."""
    core = _core(text)
    balanced = sentence(core)
    if m := _NEGATIVE.match(core):
        rest = core[m.end():]
        light = f"Where practical, do not {rest}"
        strict = f"Never {rest}; {_EXCEPTION}"
    elif m := _AVOID.match(core):
        rest = core[m.end():]
        light = f"Where practical, avoid {rest}"
        strict = f"Never resort to {rest}; {_EXCEPTION}"
    elif m := _POSITIVE.match(core):
        rest = core[m.end():]
        light = f"When practical, {rest}"
        strict = f"Always {rest}; {_EXCEPTION}"
    else:
        light = f"When practical: {_lower_first(core)}"
        strict = f"{core}, always; {_EXCEPTION}"
    return {"light": sentence(light), "balanced": balanced, "strict": sentence(strict)}


def variants_for(text: str, given: dict[str, str]) -> dict[str, str]:
    """Generated wordings with any human-given variant taking precedence."""
    out = generate(text)
    out.update({k: sentence(v) for k, v in given.items() if v.strip()})
    return out
