"""The scan rules as data: one row per kind of secret, PII or prompt-injection line.

Owns every pattern the safety package knows. Order matters: when two secret rules match
overlapping text, the earlier (more specific) row wins, so `STRIPE_API_KEY=sk_live_…` is
reported as a Stripe key, not as a generic assignment. Every quantifier is bounded and every
token pattern checks a boundary before its start (a lookbehind), so a long run of similar
characters has one start position, not one per character: scanning stays linear on hostile
input. It does not own the judgement regexes cannot make (`validators.py`) nor the scan loop.
"""

from __future__ import annotations

import re

from engram.safety import validators as v
from engram.safety.model import Category, Rule, Validator


def _ci(word: str) -> str:
    """`pass` -> `[Pp][Aa][Ss][Ss]`: case-insensitive without `(?i)`, which `re` runs slowly."""
    return "".join(f"[{c.upper()}{c}]" if c.isalpha() else re.escape(c) for c in word)


# --- assignments: NAME [:=] value ----------------------------------------------------------------
# Matched from the keyword on (any prefix may precede it: `STRIPE_`, `db.`), and the keyword
# must be followed by the separator, so `password_hash = …` and `max_tokens = …` are not
# assignments of a password or a token. `==` is a comparison, `::` a path, `:/` a URL scheme.
_SEP = r"""["']?[ \t]{0,8}(?::=|=(?!=)|:(?![:/]))[ \t]{0,8}"""
_VALUE = (
    r"""(?:"(?P<dq>[^"\n]{1,300})"|'(?P<sq>[^'\n]{1,300})'"""
    r"""|`?(?P<bare>[^\s"'`,;&()\[\]{}<>]{1,300}))"""
)
_VALUE_GROUPS = ("dq", "sq", "bare")
# 0-255 without zero padding (`10.01.02.03` is a version string or an OID, not an address).
_OCTET = r"(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)"
_PASSWORD_NAME = _ci("pass") + "(?:" + "|".join(_ci(w) for w in ("word", "wd", "phrase")) + ")"
# `…key` only counts with a qualifier in front (api_key, SECRET_KEY): the validator checks it.
_TOKEN_NAME = (
    "(?P<name>" + "|".join(_ci(w) for w in ("token", "secret", "key", "credentials", "credential"))
    + ")"
)


def _secret(kind: str, label: str, placeholder: str, pattern: str, *hints: str,
            validate: Validator | None = None, groups: tuple[str, ...] = (),
            category: Category = "secret", anchored: bool = False) -> Rule:
    return Rule(
        kind=kind, category=category, label=label, pattern=re.compile(pattern),
        placeholder=placeholder, hints=hints, value_groups=groups, validate=validate,
        anchored=anchored,
    )


# Patterns that begin with a literal need no hints: `re` skips to that literal by itself. The
# boundary check then comes *after* the literal, as a lookbehind over it (`sk-(?<![\w-].{3})`),
# because a leading lookbehind would make `re` try every position of the text.
SECRET_RULES: tuple[Rule, ...] = (
    Rule(
        kind="secret.private_key", category="secret", label="private key",
        pattern=re.compile(r"-----BEGIN[A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----"),
        placeholder="private-key", multiline_block=True,
    ),
    _secret("secret.aws_access_key", "AWS access key", "aws-access-key",
            r"(?:AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AROA|AIPA|ANPA|ANVA|APKA)(?<![A-Za-z0-9].{4})"
            r"[A-Z0-9]{16}(?![A-Za-z0-9])"),
    _secret("secret.aws_secret_key", "AWS secret key", "aws-secret-key",
            _ci("aws") + r"(?<![A-Za-z0-9].{3})[A-Za-z0-9_.-]{0,30}?" + _ci("secret")
            + r"[A-Za-z0-9_.-]{0,30}?" + _SEP
            + r"""["']?(?P<v>[A-Za-z0-9/+]{40})(?![A-Za-z0-9/+=])""",
            "aws", groups=("v",), anchored=True),
    _secret("secret.github_token", "GitHub token", "github-token",
            r"(?:gh[pousr]_(?<![A-Za-z0-9_].{4})[A-Za-z0-9]{30,255}"
            r"|github_pat_(?<![A-Za-z0-9_].{11})[A-Za-z0-9_]{30,255})"),
    _secret("secret.gitlab_token", "GitLab token", "gitlab-token",
            r"glpat-(?<![A-Za-z0-9_-].{6})[A-Za-z0-9_-]{20,64}"),
    _secret("secret.slack_token", "Slack token", "slack-token",
            r"x(?:ox[abpsre]|app)-(?<![A-Za-z0-9-].{5})[A-Za-z0-9-]{10,250}",
            validate=v.has_digit),
    _secret("secret.slack_webhook", "Slack webhook URL", "slack-webhook",
            r"https://hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9_/-]{8,300}"),
    _secret("secret.stripe_key", "Stripe secret key", "stripe-key",
            r"[sr]k_(?<![A-Za-z0-9_].{3})(?:live|test)_[A-Za-z0-9]{16,247}",
            "sk_live_", "sk_test_", "rk_live_", "rk_test_", anchored=True),
    _secret("secret.sk_api_key", "sk- API key (OpenAI/Anthropic style)", "api-key",
            r"sk-(?<![A-Za-z0-9_-].{3})[A-Za-z0-9_-]{20,250}", validate=v.has_digit),
    _secret("secret.google_api_key", "Google API key", "google-api-key",
            r"AIza(?<![A-Za-z0-9_-].{4})[0-9A-Za-z_-]{35}(?![0-9A-Za-z_-])"),
    _secret("secret.npm_token", "npm token", "npm-token",
            r"npm_(?<![A-Za-z0-9_].{4})[A-Za-z0-9]{36}(?![A-Za-z0-9])"),
    _secret("secret.jwt", "JSON Web Token", "jwt",
            r"eyJ(?<![A-Za-z0-9_-].{3})[A-Za-z0-9_-]{5,2000}\.[A-Za-z0-9_-]{5,4000}"
            r"\.[A-Za-z0-9_-]{8,2000}"),
    _secret("secret.url_credentials", "password in a URL", "url-password",
            r"://[^\s:/@?#\[\]]{1,128}:(?P<v>[^\s:/@?#\[\]]{1,256})"
            r"@(?P<host>[A-Za-z0-9][A-Za-z0-9.-]{0,252})",
            validate=v.url_password, groups=("v",)),
    _secret("secret.bearer_token", "bearer token", "bearer-token",
            _ci("bearer") + r"(?<![A-Za-z0-9].{6})[ \t]{1,4}(?P<v>[A-Za-z0-9._~+/-]{16,2000}=*)",
            "bearer", validate=v.has_digit, groups=("v",), anchored=True),
    _secret("secret.password", "password assignment", "password",
            _PASSWORD_NAME + _SEP + _VALUE,
            "pass", validate=v.password_value, groups=_VALUE_GROUPS, anchored=True),
    _secret("secret.assignment", "secret/token/API key assignment", "secret",
            _TOKEN_NAME + _SEP + _VALUE,
            "token", "secret", "key", "credential",
            validate=v.token_value, groups=_VALUE_GROUPS, anchored=True),
    _secret("pii.card_number", "payment card number", "card-number",
            r"[2-6](?<![\w-].)(?<!\d[ -].)\d{3}(?:[ -]?\d){9,15}(?!\w)(?!-\d)",
            "2", "3", "4", "5", "6", validate=v.card, category="pii"),
    _secret("pii.email", "e-mail address", "email",
            r"(?<![\w.+%-])[A-Za-z0-9][A-Za-z0-9._%+-]{0,63}@[A-Za-z0-9][A-Za-z0-9-]{0,62}"
            r"(?:\.[A-Za-z0-9-]{1,63}){0,8}\.[A-Za-z]{2,24}(?![\w-])",
            "@", validate=v.email, category="pii"),
    _secret("pii.internal_ip", "internal IP address", "internal-ip",
            r"(?:10(?<![\w.]..)(?:\." + _OCTET + r"){3}"
            r"|172(?<![\w.]...)\.(?:1[6-9]|2\d|3[01])(?:\." + _OCTET + r"){2}"
            r"|192(?<![\w.]...)\.168(?:\." + _OCTET + r"){2})(?!\w)(?!\.\d)",
            validate=v.internal_ip, category="pii"),
)


# --- prompt injection: judged per line, on the line's start --------------------------------------
# Each pattern is `_LEAD` + a body, tried at the start of one line (`engine.injection_lines`
# splits the text). A line "starts" after indentation, block quotes, a list marker, an opening
# quote or bold, and an optional shouted label ("IMPORTANT:"). Bodies are written in lower case.
_LEAD = (
    r"[ \t]{0,40}(?:>[ \t]{0,8}){0,4}"
    r"(?:(?:[-*+\u2022]|\d{1,4}[.)])[ \t]{1,8})?(?:\*\*|__|[\"'\u201c\u2018\u00ab(])?[ \t]{0,8}"
    r"(?:(?:please[ \t]+)?(?:important|note|attention|urgent|warning|system|admin|assistant|user)"
    r"[ \t]{0,4}[:!][ \t]{0,8})?(?:(?:please|kindly|now)[ \t]*,?[ \t]{1,8})?"
)
_END = r"(?=[ \t]{0,8}(?:$|[.,;:!]|and\b))"
_VERB = (
    r"(?:ignore|forget|disregard|override|overrule|bypass|discard|abandon"
    r"|(?:do[ \t]+not|don'?t|never|stop)[ \t]+(?:follow(?:ing)?|obey(?:ing)?))"
)
_DET = r"(?:(?:all|any|every|each|of|the|your|my|our|its|their|these|those|such|other)[ \t]+){0,3}"
# Qualifiers that point at *earlier instructions to the model*, not at a project's files.
_QUAL = (
    r"(?:previous(?:ly[ \t]+given)?|prior|preceding|above|earlier|foregoing|former|original"
    r"|initial|system|safety|developer|hidden)"
)
_NOUN = (
    r"(?:instructions?|prompts?|rules|directives?|directions|guidelines|guardrails|constraints"
    r"|commands|orders|programming|messages|context|conversation|training|polic(?:y|ies)"
    r"|restrictions|limitations|safeguards)\b"
)
_IGNORE = (
    r"(?:" + _VERB + r"\b[ \t,:-]{1,4}(?:"
    + _DET + _QUAL + r"(?:[ \t]+[a-z'-]{1,20})?[ \t]+" + _NOUN
    + r"|(?:all|any|every|your)[ \t]+(?:(?:of[ \t]+)?(?:the|your|my)[ \t]+)?" + _NOUN
    + r"|" + _DET + _NOUN + r"[ \t]+(?:(?:above|before|earlier|previously|so[ \t]+far)" + _END
    + r"|you(?:'ve|[ \t]+have|[ \t]+were)?[ \t]+(?:been[ \t]+)?(?:given|received|told)\b)"
    + r"|(?:everything|anything|all)[ \t]+you(?:'ve|'re|[ \t]+have|[ \t]+were|[ \t]+was)?"
    r"[ \t]+(?:been[ \t]+)?(?:told|taught|given|instructed|trained)"
    r"|(?:everything|anything|all)(?:[ \t]+(?:that[ \t]+)?(?:(?:was|is|i|we)[ \t]+)?"
    r"(?:said|written|stated|told[ \t]+you))?[ \t]+(?:above|before|earlier|previously|so[ \t]+far)"
    r"(?:[ \t]+(?:this(?:[ \t]+(?:line|point|message))?|here))?" + _END
    + r"|(?:all[ \t]+of[ \t]+)?the[ \t]+above" + _END
    + r"|(?:previous|prior|above)" + _END + r")"
    r"|(?:ignora|olvida|descarta|omite)[ \t]+(?:(?:todas|todo)[ \t]+)?"
    r"(?:(?:las|tus|lo)[ \t]+)?(?:(?:instrucciones|reglas|indicaciones)[ \t]+(?:anteriores|previas)"
    r"|anterior\b))"
)
_ROLE = (
    r"(?:you[ \t]+are[ \t]+now[ \t]+(?:a|an|the|my|no[ \t]+longer|free|unrestricted|unfiltered"
    r"|uncensored|jailbroken|dan|chatgpt|gpt|claude|gemini|llama"
    r"|in[ \t]+(?:dan|god|jailbreak|unrestricted|developer)[ \t]+mode"
    r"|acting|going[ \t]+to|called|named|operating[ \t]+as|playing)\b"
    r"|(?:act|behave|respond|answer)[ \t]+as[ \t]+(?:(?:if|though)[ \t]+you\b"
    r"|(?:(?:a|an|the|my|your)[ \t]+)?(?:[\w'-]{1,30}[ \t]+){0,3}?"
    r"(?:assistant|ai|chatbot|llm|gpt|chatgpt|dan|persona|character|jailbroken|unrestricted"
    r"|unfiltered|uncensored)\b)"
    r"|pretend[ \t]+(?:to[ \t]+be|that[ \t]+you|you(?:'re|[ \t]+are))\b"
    r"|role[ -]?play[ \t]+as\b"
    r"|from[ \t]+now[ \t]+on,?[ \t]+you[ \t]+(?:(?:are|will[ \t]+be|shall[ \t]+be)[ \t]+"
    r"(?:a|an|my|no[ \t]+longer|free|unrestricted|dan)\b|will[ \t]+(?:act|behave|pretend)\b)"
    r"|i[ \t]+want[ \t]+you[ \t]+to[ \t]+(?:act|behave|pretend|role[ -]?play)\b)"
)
_JAILBREAK = (
    r"(?:(?:enable|enter|activate|switch[ \t]+to|turn[ \t]+on)[ \t]+"
    r"(?:dan|jailbreak|god|unrestricted)[ \t]+mode\b"
    r"|(?:dan|jailbreak)[ \t]+mode[ \t]+(?:enabled|activated|on)\b)"
)
_MARKUP = (
    r"(?:</?(?:system|sys)(?:[-_ ]?(?:prompt|message|instructions?|reminder))?[ \t]*>"
    r"|<\|(?:im_start|im_end|system|user|assistant|endoftext|eot_id|start_header_id"
    r"|end_header_id|begin_of_text)\|>|\[/?inst\]|<</?sys>>|\[/?system\])"
)
_HEADER = (
    r"(?:\#{1,6}[ \t]*)?(?:system[ \t]+(?:prompt|message|override|instructions?|update)"
    r"|(?:new|updated|real|hidden|secret|true)[ \t]+(?:system[ \t]+)?instructions?"
    r"|admin(?:istrator)?[ \t]+override|developer[ \t]+override)[ \t]*:"
)
_LEAK = (
    r"(?:reveal|print|show|repeat|output|display|leak|dump|tell[ \t]+me|give[ \t]+me"
    r"|what[ \t]+(?:is|are|was|were))[ \t]+(?:me[ \t]+)?your[ \t]+"
    r"(?:(?:full|entire|original|hidden|initial|secret|exact)[ \t]+)?"
    r"(?:system[ \t]+(?:prompt|message)|instructions|prompt)\b"
)


# The words a line can open with (after `_LEAD`) for any pattern above to match, plus the
# labels `_LEAD` skips. The scanner runs the patterns only on lines that open with one of these
# (or with `<`, `[` or `#`), which keeps plain prose cheap. Keep in sync with the patterns.
INJECTION_OPENERS = frozenset({
    # _IGNORE
    "ignore", "forget", "disregard", "override", "overrule", "bypass", "discard", "abandon",
    "do", "don't", "dont", "never", "stop", "ignora", "olvida", "descarta", "omite",
    # _ROLE, _JAILBREAK
    "you", "act", "behave", "respond", "answer", "pretend", "role", "role-play", "roleplay",
    "from", "i", "enable", "enter", "activate", "switch", "turn", "dan", "jailbreak",
    # _HEADER, _LEAK
    "system", "new", "updated", "real", "hidden", "secret", "true", "admin", "administrator",
    "developer", "reveal", "print", "show", "repeat", "output", "display", "leak", "dump", "tell",
    "give", "what",
    # labels in _LEAD
    "please", "kindly", "now", "important", "note", "attention", "urgent", "warning", "assistant",
    "user",
})
INJECTION_OPENING_MARKS = "<[#"
# Characters `_LEAD` may skip before the first word (a superset is fine: it only gates).
LEAD_CHARS = " \t>-*+\u2022\"'\u201c\u2018\u00ab(_0123456789.)"


def _injection(kind: str, label: str, body: str) -> Rule:
    return Rule(kind=kind, category="injection", label=label,
                pattern=re.compile(_LEAD + body, re.IGNORECASE))


_INJECTION_BODIES = (
    ("injection.ignore_instructions", "ignore-previous-instructions line", _IGNORE),
    ("injection.role_override", "role/persona override line", _ROLE),
    ("injection.jailbreak_mode", "jailbreak-mode line", _JAILBREAK),
    ("injection.chat_markup", "chat-template markup line", _MARKUP),
    ("injection.fake_header", "fake system/instructions header", _HEADER),
    ("injection.prompt_leak", "system-prompt extraction line", _LEAK),
)
INJECTION_RULES: tuple[Rule, ...] = tuple(_injection(*row) for row in _INJECTION_BODIES)


# Letters another letter or pair draws (UTS #39 lists `rn` for `m`, `vv` for `w`, `cl` for `d`;
# capital I, small l and one are one bar): the rules accept either spelling.
_BLIND = {"i": "[il]", "l": "[il]", "m": "(?:m|rn)", "w": "(?:w|vv)", "d": "(?:d|cl)"}


def blind_word(word: str) -> str:
    """A lower-case word as the gate compares it: each spelling `lookalike_blind` accepts for a
    letter written one way (`systern` and `system` are both `system`, `lgnore` is `lgnore`)."""
    return word.replace("rn", "m").replace("vv", "w").replace("cl", "d").replace("i", "l")


def lookalike_blind(source: str) -> str:
    """`source` with each literal letter of `_BLIND` read in every spelling that draws it:
    `lgnore aII prevlous`, `1gnore` (digits folded to `l`), Cherokee `Ꭵ` (folded to `l`),
    `<systern>`, `novv`, `disregarcl` read as the words they draw.

    Escapes, group syntax and repeat counts are copied as they are; those letters inside a
    character class are not supported (none of the bodies has one)."""
    out: list[str] = []
    at = 0
    while at < len(source):
        ch = source[at]
        if ch == "\\":
            width = {"u": 6, "U": 10, "x": 4}.get(source[at + 1], 2)
            out.append(source[at:at + width])
            at += width
            continue
        end = at + 1
        if ch == "[":
            end = source.index("]", at + 2) + 1
            if re.search(r"(?<!\\)[ilmwd]", source[at:end]):
                raise ValueError(f"lookalike_blind: a class holds a letter: {source[at:end]}")
        elif source.startswith("(?P<", at):
            end = source.index(">", at) + 1
        elif source.startswith("(?", at):
            end = at + 2 + len(re.match(r"<?[:=!]", source[at + 2:]).group())  # type: ignore[union-attr]
        elif ch == "{":
            end = source.index("}", at) + 1
        out.append(_BLIND.get(ch, source[at:end]))
        at = end
    return "".join(out)


# All bodies behind one `_LEAD`, for a lower-cased line: one match call per line instead of one
# per rule, and no IGNORECASE (slow in `re`). Group `r<i>` names the rule; order is precedence.
# It reads `i` and `l` as one letter, `rn` as `m`, … (`lookalike_blind`).
INJECTION_LINE = re.compile(lookalike_blind(
    _LEAD + "(?:" + "|".join(f"(?P<r{i}>{row[2]})" for i, row in enumerate(_INJECTION_BODIES)) + ")"
))
# The same words as the gate reads them (`blind_word`).
INJECTION_OPENERS_BLIND = frozenset(blind_word(w) for w in INJECTION_OPENERS)
