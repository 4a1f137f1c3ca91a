"""Secret/PII/injection scans, redaction and path containment. Imports nothing from engram.

A leaf package: every other layer may import it, it imports only the standard library and its
own modules. The public API is re-exported here; the modules behind it are:

    rules.py       the rule table (data): kind, category, label, pattern, placeholder
    validators.py  checks a regex cannot make (Luhn, octets, placeholders, code vs literal)
    engine.py      where rules may match (hints), overlaps, key blocks, the injection line gate,
                   how a line is read (padding, Markdown wrappers, short labels)
    lookalike.py   letters, marks, digits drawn like Latin letters, read so by the injection rules
    lookalike_data.py  the generated table behind it (scripts/gen-lookalikes.py)
    scan.py        scan_text / scan_secrets / scan_injection -> list[Finding]
    redact.py      redact (placeholders) and strip_injection_lines (drop lines)
    paths.py       is_contained / contained_path / PathEscape
    names.py       shown_name (file names as printed: escaped, shortened, never an instruction),
                   withheld_id (ids nobody approved are never printed), shown_token /
                   shown_argv (host config values as reports print them)
    invisible.py   scan_invisible (tag, bidi, zero-width, control, escape) / printable
    model.py       Finding, Rule, describe
"""

from engram.safety.invisible import char_name, has_invisible, printable, scan_invisible
from engram.safety.model import Category, Finding, Rule, describe
from engram.safety.names import shown_argv, shown_name, shown_token, withheld_id
from engram.safety.paths import PathEscape, contained_path, is_contained
from engram.safety.redact import redact, strip_injection_lines
from engram.safety.rules import INJECTION_RULES, SECRET_RULES
from engram.safety.scan import scan_injection, scan_secrets, scan_text

__all__ = [
    "INJECTION_RULES",
    "SECRET_RULES",
    "Category",
    "Finding",
    "PathEscape",
    "Rule",
    "char_name",
    "contained_path",
    "describe",
    "has_invisible",
    "is_contained",
    "printable",
    "redact",
    "scan_injection",
    "scan_invisible",
    "scan_secrets",
    "scan_text",
    "shown_argv",
    "shown_name",
    "shown_token",
    "withheld_id",
    "strip_injection_lines",
]
