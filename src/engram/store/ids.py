"""Ids, slugs and titles (README.md#how-it-works). Pure functions, no I/O.

An id names a file inside a root, so every id that comes from outside (CLI argument, MCP argument,
candidate field) passes `validate_id`: it must be a plain ASCII slug-like name, which rules out
`..`, separators, absolute paths, NUL and Unicode look-alikes in one check.
"""

from __future__ import annotations

import re

from engram.errors import InvalidIdError

MAX_ID = 80
MAX_TITLE = 70
_ID_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,199}")
_NON_SLUG = re.compile(r"[^a-z0-9]+")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s")
_DEVICES = frozenset({"con", "prn", "aux", "nul", *(f"com{n}" for n in range(1, 10)),
                      *(f"lpt{n}" for n in range(1, 10))})


def slugify(text: str, limit: int = MAX_ID) -> str:
    """Lower-case slug: runs of non [a-z0-9] become '-', cut at a '-' boundary within `limit`."""
    slug = _NON_SLUG.sub("-", text.lower()).strip("-")
    if len(slug) > limit:
        cut = slug[:limit]
        slug = cut.rsplit("-", 1)[0] if "-" in cut else cut
    slug = slug.strip("-")
    return f"{slug}-memory" if is_reserved(slug) else slug


# New ids (revised, issue 28): a few content words of the title, not the whole sentence, so a
# file name stays short and says less of what the memory holds. Negations stay: they flip the
# meaning (`never-force-push-main`). Existing ids are never renamed.
ID_WORDS = 5
MAX_NEW_ID = 48
_STOP_TEXT = """
a an the is are was were be been being am of to in on at for with by from as into onto over
this that these those it its and or but so if than then our your their my we you they i he she
them us me his her do does did has have had will would shall should can could may might also
just very there here which who whom whose what when where how
"""
_ID_STOP = frozenset(_STOP_TEXT.split())


def id_from_title(title: str) -> str:
    """`Run the smoke suite before tagging a release` → `run-smoke-suite-before-tagging`: the
    first ID_WORDS words that are not stop words, at most MAX_NEW_ID characters."""
    words = _NON_SLUG.split(title.lower().replace("'", "").replace("\u2019", ""))
    kept = [w for w in words if w and w not in _ID_STOP]
    return slugify("-".join(kept[:ID_WORDS]), MAX_NEW_ID) or slugify(title, MAX_NEW_ID)


def is_valid_id(value: object) -> bool:
    """Whether `value` has the shape of a memory id (cheap; no error to build)."""
    return isinstance(value, str) and _ID_RE.fullmatch(value) is not None and len(value) <= 200


def validate_id(value: str) -> str:
    """Return `value` if it is a safe memory id, else raise InvalidIdError saying why."""
    hint = "use a slug such as `run-tests-before-release` (letters, digits, '-', '_', '.')"
    if not isinstance(value, str) or not value.strip():
        raise InvalidIdError("memory id is empty", hint=hint)
    if "\x00" in value:
        raise InvalidIdError("memory id contains a NUL byte", hint=hint)
    if "/" in value or "\\" in value:
        raise InvalidIdError(f"memory id {value!r} contains a path separator", hint=hint)
    if ".." in value:
        raise InvalidIdError(f"memory id {value!r} contains '..'", hint=hint)
    if not _ID_RE.fullmatch(value):
        raise InvalidIdError(
            f"memory id {value!r} has characters outside ASCII letters, digits, '.', '-', '_'",
            hint=hint,
        )
    if is_reserved(value):
        raise InvalidIdError(
            f"memory id {value!r} is a Windows device name: a repository holding "
            f"{value}.md cannot be checked out on Windows", hint=hint)
    return value


def is_reserved(name: str) -> bool:
    """True for Windows device names (con, prn, aux, nul, com1-9, lpt1-9), in any case and with
    any extension (`nul.txt`), refused as ids on every platform so a memory repository stays
    portable."""
    return name.split(".", 1)[0].rstrip(" ").lower() in _DEVICES


def split_ids(value: str) -> list[str]:
    """'a, b' -> ['a', 'b'], each validated."""
    ids = [p.strip() for p in value.split(",")]
    if not any(ids):
        raise InvalidIdError("no memory id given", hint="pass one or more ids: --id a,b")
    return [validate_id(i) for i in ids if i]


def title_from_text(text: str) -> str:
    """First sentence, no trailing punctuation, capitalised, cut at a word boundary ≤ 70 chars."""
    first = text.strip().splitlines()[0] if text.strip() else ""
    first = _SENTENCE_END.split(first, maxsplit=1)[0].strip()
    first = first.lstrip("-*# ").rstrip(" .!?:;,")
    if len(first) > MAX_TITLE:
        cut = first[: MAX_TITLE + 1]
        first = cut.rsplit(" ", 1)[0] if " " in cut else first[:MAX_TITLE]
        first = first.rstrip(" .!?:;,")
    return first[:1].upper() + first[1:]


def unique_id(base: str, taken: set[str]) -> str:
    """`base` if free, else `base-<short hash>` (deterministic for the same base and set)."""
    if base not in taken:
        return base
    for n in range(1, 1000):
        import hashlib

        suffix = hashlib.sha256(f"{base}:{n}".encode()).hexdigest()[:6]
        candidate = f"{base[: MAX_ID - 7]}-{suffix}"
        if candidate not in taken:
            return candidate
    raise InvalidIdError(f"cannot find a free id for {base!r}", hint="choose another title")
