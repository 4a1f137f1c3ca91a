"""Checks that decide whether a regex match really is a secret or PII.

Owns the judgement a pattern cannot express: Luhn for card numbers, octet ranges and
documented exemptions for IP addresses, reserved documentation domains for e-mails, and the
"is this assigned value a literal secret or just code/a placeholder" test for assignments.
It does not own the patterns themselves (`rules.py`).
"""

from __future__ import annotations

import re

# RFC 2606 / RFC 6761 names reserved for documentation and tests: an address there is not PII.
_DOC_DOMAINS = ("example.com", "example.org", "example.net")
_DOC_SUFFIXES = (".example", ".test", ".invalid", ".localhost")
# `logo@2x.png` is a file name, not an address.
_FILE_TLDS = frozenset({"png", "jpg", "jpeg", "gif", "svg", "webp", "ico", "css", "js", "json"})
# Network addresses of the private blocks name the block, not a host.
_BLOCK_ADDRESSES = frozenset({"10.0.0.0", "172.16.0.0", "192.168.0.0"})

# Words that mark an assigned value as a stand-in a human writes in docs, not a real secret.
_PLACEHOLDER_WORDS = (
    "your", "example", "placeholder", "changeme", "change_me", "redacted", "dummy",
    "xxxx", "****", "...", "<", ">", "${", "{{", "%(", "[redacted:",
)
_PLACEHOLDER_VALUES = frozenset({
    "none", "null", "nil", "true", "false", "undefined", "required", "optional", "secret",
    "password", "passwd", "token", "str", "string", "bytes", "int", "env", "empty", "hidden",
})
_DOTTED_CODE = re.compile(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+")
_LETTERS_ONLY = re.compile(r"[A-Za-z_-]+")
_DIGIT = re.compile(r"\d")
_SPACE = re.compile(r"\s")
# A bare `key` name is too common (cache_key, primary_key): only these qualifiers make it secret.
_KEY_QUALIFIER = re.compile(
    r"(?:api|access|secret|private|signing|encryption|master|client)[_-]?\Z"
)


def luhn_ok(digits: str) -> bool:
    """The Luhn checksum every payment card number satisfies."""
    total = 0
    for i, ch in enumerate(reversed(digits)):
        d = ord(ch) - 48
        if i % 2:
            d = d * 2 - 9 if d > 4 else d * 2
        total += d
    return total % 10 == 0


def card(match: re.Match[str], _allow: frozenset[str]) -> bool:
    digits = match.group(0).replace(" ", "").replace("-", "")
    if digits[0] == "2" and not 2221 <= int(digits[:4]) <= 2720:
        return False  # the only cards starting with 2 are Mastercard 2221-2720; 20xx is a year
    return 13 <= len(digits) <= 19 and len(set(digits)) > 1 and luhn_ok(digits)


def internal_ip(match: re.Match[str], _allow: frozenset[str]) -> bool:
    """Octet ranges are in the pattern; what is left is the documented block exemption."""
    return match.group(0) not in _BLOCK_ADDRESSES


def _documentation_domain(domain: str) -> bool:
    if domain in _DOC_DOMAINS or domain.endswith(_DOC_SUFFIXES):
        return True
    return any(domain.endswith("." + d) for d in _DOC_DOMAINS)


def email(match: re.Match[str], allow: frozenset[str]) -> bool:
    address = match.group(0).lower()
    local, _, domain = address.partition("@")
    if address in allow or local == "git":  # git@host:org/repo is an SSH remote
        return False
    if _documentation_domain(domain):
        return False
    return domain.rsplit(".", 1)[-1] not in _FILE_TLDS


def _value(match: re.Match[str], groups: tuple[str, ...]) -> tuple[str, bool, int]:
    """The assigned value, whether it was quoted, and where it ends."""
    for name in groups:
        value = match.group(name)
        if value is not None:
            return value, name != "bare", match.end(name)
    return "", False, match.end()


def _placeholder(value: str) -> bool:
    low = value.lower()
    if low in _PLACEHOLDER_VALUES or len(set(low)) == 1:
        return True
    return any(word in low for word in _PLACEHOLDER_WORDS) or low.startswith(("$", "%"))


def _looks_like_code(match: re.Match[str], value: str, quoted: bool, end: int) -> bool:
    """A bare value followed by a call/index, or a dotted name, is an expression, not a literal."""
    if quoted:
        return False
    following = match.string[end : end + 1]
    if following in ("(", "[", ".") or value.startswith(("/", "./", "~/")):
        return True  # a call, an index or a file path
    return _DOTTED_CODE.fullmatch(value) is not None


_GROUPS = ("dq", "sq", "bare")


def password_value(match: re.Match[str], _allow: frozenset[str]) -> bool:
    """Quoted: any non-placeholder of 3+ chars. Bare: 4+ chars with a digit or a symbol."""
    value, quoted, end = _value(match, _GROUPS)
    if _placeholder(value) or _looks_like_code(match, value, quoted, end):
        return False
    if quoted:
        return len(value.strip()) >= 3
    return len(value) >= 4 and _LETTERS_ONLY.fullmatch(value) is None


def _secret_name(match: re.Match[str]) -> bool:
    if match.group("name").lower() != "key":
        return True
    before = match.string[max(0, match.start() - 12) : match.start()].lower()
    return _KEY_QUALIFIER.search(before) is not None


def token_value(match: re.Match[str], _allow: frozenset[str]) -> bool:
    """Token-like: 8+ chars, no spaces, a digit (or 20+ chars of mixed case), not a number."""
    value, quoted, end = _value(match, _GROUPS)
    if len(value) < 8 or _SPACE.search(value):
        return False
    if value.isdigit():
        return len(value) >= 16  # counts, ports and TTLs are short numbers
    mixed = value != value.lower() and value != value.upper()
    if _DIGIT.search(value) is None and not (mixed and len(value) >= 20):
        return False
    if not _secret_name(match):
        return False
    return not (_placeholder(value) or _looks_like_code(match, value, quoted, end))


def url_password(match: re.Match[str], _allow: frozenset[str]) -> bool:
    """A password in a URL, unless it is a placeholder or the host is a documentation domain."""
    value = match.group("v")
    host = match.group("host").lower().rstrip(".")
    return len(value) >= 3 and not _placeholder(value) and not _documentation_domain(host)


def has_digit(match: re.Match[str], _allow: frozenset[str]) -> bool:
    """Real keys and bearer tokens are random: a value without any digit is prose."""
    value = match.group("v") if "v" in match.re.groupindex else match.group(0)
    return _DIGIT.search(value) is not None and not _placeholder(value)
