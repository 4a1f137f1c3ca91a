"""The scan rules as data: one row per kind of secret, PII or prompt-injection line.

Owns every pattern the safety package knows. Order matters: when two secret rules match
overlapping text, the earlier (more specific) row wins, so `STRIPE_API_KEY=sk_live_…` is
reported as a Stripe key, not as a generic assignment. Every quantifier is bounded and every
pattern starts at a token boundary (a negative lookbehind), so a long run of similar characters
has one start position, not one per character: scanning stays linear on hostile input.
It does not own the judgement regexes cannot make (`validators.py`) nor the scanning loop.
"""

from __future__ import annotations

import re

from engram.safety import validators as v
from engram.safety.model import Category, Rule

# --- assignments: NAME [:=] value ---------------------------------------------------------------
# The name may carry a prefix (`STRIPE_`, `db.`); it must end on the keyword, so
# `password_hash = …` and `max_tokens = …` are not assignments of a password or a token.
_NAME_START = r"(?<![A-Za-z0-9_.-])[A-Za-z0-9_.-]{0,60}?"
# `==` is a comparison, `::` a path, `:/` a URL scheme.
_SEP = r"""["']?[ \t]{0,8}(?::=|=(?!=)|:(?![:/]))[ \t]{0,8}"""
_VALUE = (
    r""""(?P<dq>[^"\n]{1,300})"|'(?P<sq>[^'\n]{1,300})'"""
    r"""|`?(?P<bare>[^\s"'`,;&()\[\]{}<>]{1,300})"""
)
_PASSWORD_NAME = r"(?i:password|passwd|passphrase)"
_TOKEN_NAME = (
    r"(?i:secret|token|api[_-]?key|apikey|access[_-]?key|secret[_-]?key|private[_-]?key"
    r"|signing[_-]?key|encryption[_-]?key|master[_-]?key|client[_-]?secret|credentials?)"
)
_VALUE_GROUPS = ("dq", "sq", "bare")


def _secret(kind: str, label: str, placeholder: str, pattern: str, *hints: str,
            validate: v.Validator | None = None, groups: tuple[str, ...] = (),
            category: Category = "secret") -> Rule:
    return Rule(
        kind=kind, category=category, label=label,
        pattern=re.compile(pattern), placeholder=placeholder, hints=hints,
        value_groups=groups, validate=validate,
    )


SECRET_RULES: tuple[Rule, ...] = (
    Rule(
        kind="secret.private_key", category="secret", label="private key",
        pattern=re.compile(r"-----BEGIN[A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----"),
        placeholder="private-key", hints=("private key",), multiline_block=True,
    ),
    _secret("secret.aws_access_key", "AWS access key", "aws-access-key",
            r"(?<![A-Za-z0-9])(?:AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AROA|AIPA|ANPA|ANVA|APKA)"
            r"[A-Z0-9]{16}(?![A-Za-z0-9])",
            "akia", "asia", "abia", "acca", "agpa", "aida", "aroa", "aipa", "anpa", "anva", "apka"),
    _secret("secret.aws_secret_key", "AWS secret key", "aws-secret-key",
            r"(?<![A-Za-z0-9])(?i:aws)[A-Za-z0-9_.-]{0,30}?(?i:secret)[A-Za-z0-9_.-]{0,30}?"
            + _SEP + r"""["']?(?P<v>[A-Za-z0-9/+]{40})(?![A-Za-z0-9/+=])""",
            "secret", groups=("v",)),
    _secret("secret.github_token", "GitHub token", "github-token",
            r"(?<![A-Za-z0-9_])(?:gh[pousr]_[A-Za-z0-9]{30,255}|github_pat_[A-Za-z0-9_]{30,255})",
            "ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"),
    _secret("secret.gitlab_token", "GitLab token", "gitlab-token",
            r"(?<![A-Za-z0-9_-])glpat-[A-Za-z0-9_-]{20,64}", "glpat-"),
    _secret("secret.slack_token", "Slack token", "slack-token",
            r"(?<![A-Za-z0-9-])(?:xox[abpsre]|xapp)-[A-Za-z0-9-]{10,250}",
            "xox", "xapp-", validate=v.has_digit),
    _secret("secret.slack_webhook", "Slack webhook URL", "slack-webhook",
            r"https://hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9_/-]{8,300}",
            "hooks.slack.com"),
    _secret("secret.stripe_key", "Stripe secret key", "stripe-key",
            r"(?<![A-Za-z0-9_])(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,247}", "_live_", "_test_"),
    _secret("secret.sk_api_key", "sk- API key (OpenAI/Anthropic style)", "api-key",
            r"(?<![A-Za-z0-9_-])sk-[A-Za-z0-9_-]{20,250}", "sk-", validate=v.has_digit),
    _secret("secret.google_api_key", "Google API key", "google-api-key",
            r"(?<![A-Za-z0-9_-])AIza[0-9A-Za-z_-]{35}(?![0-9A-Za-z_-])", "aiza"),
    _secret("secret.npm_token", "npm token", "npm-token",
            r"(?<![A-Za-z0-9_])npm_[A-Za-z0-9]{36}(?![A-Za-z0-9])", "npm_"),
    _secret("secret.jwt", "JSON Web Token", "jwt",
            r"(?<![A-Za-z0-9_-])eyJ[A-Za-z0-9_-]{5,2000}\.[A-Za-z0-9_-]{5,4000}"
            r"\.[A-Za-z0-9_-]{8,2000}", "eyj"),
    _secret("secret.url_credentials", "password in a URL", "url-password",
            r"(?<![A-Za-z0-9+.-])[A-Za-z][A-Za-z0-9+.-]{1,20}://[^\s:/@?#\[\]]{1,128}"
            r":(?P<v>[^\s:/@?#\[\]]{1,256})@[A-Za-z0-9]",
            "://", validate=v.url_password, groups=("v",)),
    _secret("secret.bearer_token", "bearer token", "bearer-token",
            r"(?<![A-Za-z0-9])(?i:bearer)[ \t]{1,4}(?P<v>[A-Za-z0-9._~+/-]{16,2000}=*)",
            "bearer", validate=v.has_digit, groups=("v",)),
    _secret("secret.password", "password assignment", "password",
            _NAME_START + _PASSWORD_NAME + _SEP + "(?:" + _VALUE + ")",
            "passw", "passphrase", validate=v.password_value, groups=_VALUE_GROUPS),
    _secret("secret.assignment", "secret/token/API key assignment", "secret",
            _NAME_START + _TOKEN_NAME + _SEP + "(?:" + _VALUE + ")",
            "secret", "token", "key", "credential",
            validate=v.token_value, groups=_VALUE_GROUPS),
    _secret("pii.card_number", "payment card number", "card-number",
            r"(?<![\w-])(?<!\d[ -])[2-6]\d{3}(?:[ -]?\d){9,15}(?!\w)(?!-\d)",
            validate=v.card, category="pii"),
    _secret("pii.email", "e-mail address", "email",
            r"(?<![\w.+%-])[A-Za-z0-9][A-Za-z0-9._%+-]{0,63}@[A-Za-z0-9][A-Za-z0-9-]{0,62}"
            r"(?:\.[A-Za-z0-9-]{1,63}){0,8}\.[A-Za-z]{2,24}(?![\w-])",
            "@", validate=v.email, category="pii"),
    _secret("pii.internal_ip", "internal IP address", "internal-ip",
            r"(?<![\w.])(?:10(?:\.\d{1,3}){3}|172\.(?:1[6-9]|2\d|3[01])(?:\.\d{1,3}){2}"
            r"|192\.168(?:\.\d{1,3}){2})(?!\w)(?!\.\d)",
            "10.", "172.", "192.168.", validate=v.internal_ip, category="pii"),
)

# --- prompt injection: judged per line, on the line's start --------------------------------------
# A line "starts" after indentation, block quotes, a list marker, an opening quote or bold, and
# an optional shouted label ("IMPORTANT:"). Unicode line separators also start a line, because
# a model reads them as line breaks even though `^` does not.
_LEAD = (
    r"(?:^|(?<=[\r\x0b\x0c\x85\u2028\u2029]))[ \t]{0,40}(?:>[ \t]{0,8}){0,4}"
    r"(?:(?:[-*+\u2022]|\d{1,4}[.)])[ \t]{1,8})?(?:\*\*|__|[\"'\u201c\u2018\u00ab(])?[ \t]{0,8}"
    r"(?:(?:important|note|attention|urgent|warning|system|admin|assistant|user)"
    r"[ \t]{0,4}[:!][ \t]{0,8})?"
)
_END = r"(?=[ \t]{0,8}(?:\r?$|[.,;:!]|and\b))"
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
    _LEAD + _VERB + r"\b[ \t,:-]{1,4}(?:"
    + _DET + _QUAL + r"(?:[ \t]+[a-z'-]{1,20})?[ \t]+" + _NOUN
    + r"|(?:all|any|every|your)[ \t]+(?:(?:of[ \t]+)?(?:the|your|my)[ \t]+)?" + _NOUN
    + r"|(?:everything|anything|all)[ \t]+you(?:'ve|'re|[ \t]+have|[ \t]+were|[ \t]+was)?"
    r"[ \t]+(?:been[ \t]+)?(?:told|taught|given|instructed|trained)"
    r"|(?:everything|anything|all)(?:[ \t]+(?:that[ \t]+)?(?:(?:was|is|i|we)[ \t]+)?"
    r"(?:said|written|stated|told[ \t]+you))?[ \t]+(?:above|before|earlier|previously|so[ \t]+far)"
    r"(?:[ \t]+(?:this[ \t]+(?:line|point|message)|here))?" + _END
    + r"|(?:all[ \t]+of[ \t]+)?the[ \t]+above" + _END
    + r"|(?:previous|prior|above)" + _END + r")"
    r"|" + _LEAD + r"(?:ignora|olvida|descarta|omite)[ \t]+(?:(?:todas|todo)[ \t]+)?"
    r"(?:(?:las|tus|lo)[ \t]+)?(?:(?:instrucciones|reglas|indicaciones)[ \t]+(?:anteriores|previas)"
    r"|anterior\b)"
)
_ROLE = _LEAD + (
    r"(?:you[ \t]+are[ \t]+now[ \t]+(?:a|an|the|my|no[ \t]+longer|free|unrestricted|unfiltered"
    r"|uncensored|jailbroken|dan|in[ \t]+(?:dan|god|jailbreak|unrestricted|developer)[ \t]+mode"
    r"|acting|going[ \t]+to|called|named|operating[ \t]+as|playing)\b"
    r"|(?:act|behave|respond|answer)[ \t]+as[ \t]+(?:(?:if|though)[ \t]+you\b"
    r"|(?:(?:a|an|the|my|your)[ \t]+)?(?:[\w'-]{1,30}[ \t]+){0,3}?"
    r"(?:assistant|ai|chatbot|llm|gpt|chatgpt|dan|persona|character|jailbroken|unrestricted"
    r"|unfiltered|uncensored)\b)"
    r"|pretend[ \t]+(?:to[ \t]+be|that[ \t]+you|you(?:'re|[ \t]+are))\b"
    r"|role[ -]?play[ \t]+as\b"
    r"|from[ \t]+now[ \t]+on,?[ \t]+you[ \t]+(?:are|will[ \t]+be|shall[ \t]+be)[ \t]+"
    r"(?:a|an|my|no[ \t]+longer|free|unrestricted|dan)\b"
    r"|i[ \t]+want[ \t]+you[ \t]+to[ \t]+(?:act|behave|pretend|role[ -]?play)\b)"
)
_JAILBREAK = _LEAD + (
    r"(?:(?:enable|enter|activate|switch[ \t]+to|turn[ \t]+on)[ \t]+"
    r"(?:dan|jailbreak|god|unrestricted)[ \t]+mode\b"
    r"|(?:dan|jailbreak)[ \t]+mode[ \t]+(?:enabled|activated|on)\b)"
)
_MARKUP = _LEAD + (
    r"(?:</?(?:system|sys)(?:[-_ ]?(?:prompt|message|instructions?|reminder))?[ \t]*>"
    r"|<\|(?:im_start|im_end|system|user|assistant|endoftext|eot_id|start_header_id"
    r"|end_header_id|begin_of_text)\|>|\[/?INST\]|<</?SYS>>|\[/?SYSTEM\])"
)
_HEADER = _LEAD + (
    r"(?:\#{1,6}[ \t]*)?(?:system[ \t]+(?:prompt|message|override|instructions?|update)"
    r"|(?:new|updated|real|hidden|secret|true)[ \t]+(?:system[ \t]+)?instructions?"
    r"|admin(?:istrator)?[ \t]+override|developer[ \t]+override)[ \t]*:"
)
_LEAK = _LEAD + (
    r"(?:reveal|print|show|repeat|output|display|leak|dump|tell[ \t]+me|give[ \t]+me"
    r"|what[ \t]+(?:is|are|was|were))[ \t]+(?:me[ \t]+)?your[ \t]+"
    r"(?:(?:full|entire|original|hidden|initial|secret|exact)[ \t]+)?"
    r"(?:system[ \t]+(?:prompt|message)|instructions|prompt)\b"
)


def _injection(kind: str, label: str, pattern: str, *hints: str) -> Rule:
    return Rule(kind=kind, category="injection", label=label,
                pattern=re.compile(pattern, re.IGNORECASE | re.MULTILINE), hints=hints)


INJECTION_RULES: tuple[Rule, ...] = (
    _injection("injection.ignore_instructions", "ignore-previous-instructions line", _IGNORE,
               "ignor", "forget", "disregard", "overr", "bypass", "discard", "abandon",
               "follow", "obey", "olvida", "descarta", "omite"),
    _injection("injection.role_override", "role/persona override line", _ROLE,
               "now", "act", "behave", "respond", "answer", "pretend", "play", "want"),
    _injection("injection.jailbreak_mode", "jailbreak-mode line", _JAILBREAK, "mode"),
    _injection("injection.chat_markup", "chat-template markup line", _MARKUP,
               "<", "[inst", "[/inst", "[system", "[/system"),
    _injection("injection.fake_header", "fake system/instructions header", _HEADER,
               "instruction", "system", "override"),
    _injection("injection.prompt_leak", "system-prompt extraction line", _LEAK, "your"),
)
