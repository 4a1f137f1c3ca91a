"""Secret/PII/injection scans, redaction and path containment. Imports nothing from engram.

A leaf package: every other layer may import it, it imports only the standard library and its
own modules. The public API is re-exported here; the modules behind it are:

    rules.py       the rule table (data): kind, category, label, pattern, placeholder
    validators.py  checks a regex cannot make (Luhn, octets, placeholders, code vs literal)
    engine.py      where rules may match (hints), overlaps, key blocks, the injection line gate
    scan.py        scan_text / scan_secrets / scan_injection -> list[ScanFinding]
    redact.py      redact (placeholders) and strip_injection_lines (drop lines)
    paths.py       is_contained / contained_path / PathEscape
    model.py       ScanFinding, Rule, describe
"""

from engram.safety.model import Category, Rule, ScanFinding, describe
from engram.safety.paths import PathEscape, contained_path, is_contained
from engram.safety.redact import redact, strip_injection_lines
from engram.safety.rules import INJECTION_RULES, SECRET_RULES
from engram.safety.scan import scan_injection, scan_secrets, scan_text

__all__ = [
    "INJECTION_RULES",
    "SECRET_RULES",
    "Category",
    "ScanFinding",
    "PathEscape",
    "Rule",
    "contained_path",
    "describe",
    "is_contained",
    "redact",
    "scan_injection",
    "scan_secrets",
    "scan_text",
    "strip_injection_lines",
]
