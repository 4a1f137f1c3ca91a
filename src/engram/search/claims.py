"""One id, several files: which one a read shows (docs/reading.md "What routing can see").

Files declare ids, and nothing stops two files from declaring one: a copy left behind by a
merge, or an agent that drops an unapproved file with the id of an approved memory so that the
approved one disappears from what agents load. The index cannot decide between them (it does
not know what a human approved), so whenever an id has more than one file the read path asks
the guard about each, in a fixed order, and shows the first that passes. Every other file is
reported by name, never shown.

The order: the workspace before the global root (the workspace shadows a global memory only
with a file that passes the guard), durable files before working notes, the file at the
canonical path of its type (`rules/<id>.md`) before any other, then by path.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

from engram.search.docs import Doc
from engram.search.guard import Skip, shown_name
from engram.search.reader import Read, Reader
from engram.store.model import TYPE_DIR

DUPLICATE_FIX = "give it its own id, or archive one of the two"
Follow = Callable[[Doc, Read], Read]


def preference(d: Doc) -> tuple[bool, bool, bool, str]:
    canonical = d.rel_path == f"{TYPE_DIR.get(d.type, '')}/{d.id}.md"
    return (d.scope != "workspace", d.is_note, not canonical, d.rel_path)


def shown(scope: str, rel: str) -> str:
    return f"{scope}:{rel}" if scope == "global" else rel


def group(rows: Iterable[Doc]) -> dict[str, list[Doc]]:
    """Rows by id, each list in preference order."""
    out: dict[str, list[Doc]] = {}
    for d in rows:
        out.setdefault(d.id, []).append(d)
    for claims in out.values():
        if len(claims) > 1:
            claims.sort(key=preference)
    return out


def first_of_each(rows: Iterable[Doc]) -> list[Doc]:
    """One row per id, the preferred one (which file is shown is still the guard's call)."""
    return [claims[0] for claims in group(rows).values()]


def resolve(reader: Reader, claims: Sequence[Doc], follow: Follow) -> tuple[Read, Doc | None]:
    """The guarded read of the first claimant that passes, and that claimant; every other
    claimant is in the read's `others` (skipped ones with their own reason, the rest as
    duplicates). Nothing passes: the first claimant's skip, the others in `others`."""
    skips: list[Skip] = []
    for i, d in enumerate(claims):
        got = follow(d, reader.read(d.scope, d.rel_path))
        if got.memory is None:
            if got.skip is not None:
                skips.append(got.skip)
            continue
        holder = shown_name(shown(d.scope, d.rel_path))
        skips += [Skip(shown(c.scope, c.rel_path),
                       f"declares id {d.id}, which {holder} already holds", DUPLICATE_FIX)
                  for c in claims[i + 1:]]
        return got._replace(others=(*got.others, *skips)), d
    if not skips:
        return Read(None), None
    return Read(None, skip=skips[0], others=tuple(skips[1:])), None
