"""Which routed rows may take a place in a pack (docs/safety.md "Threat model: reading").

Routing ranks index rows, then prints files through the guard; a row whose file fails the
guard became a `SKIPPED` line in one of the `load.limit` places, and its score could also push
approved memories below the evidence cut. So files nobody approved (dropped into git-ignored
`working/` as easily as into `rules/`) could crowd every approved memory out of a pack. Before
ranking decides anything, a row stands only when the index last saw its file holding the bytes
`memory.hashes.json` approves (a working note: when Engram sealed its path), or when another file
declaring the same id does (the guard then shows that one, claims.py). The index is git-ignored
and could be rewritten, but a row it claims approved is still printed only through the guard:
this decides places, never what is shown. Pure apart from the index and the seals file.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence

from engram.search.docs import Doc
from engram.search.index import RootIndex
from engram.workspace import Root

Approved = Callable[[Root], Mapping[str, str]]


def standing_rows(parts: Mapping[str, RootIndex], approved: Approved,
                  rows: Iterable[Doc]) -> set[tuple[str, str]]:
    """(scope, rel) of the rows whose file stands (see the module doc)."""
    by_scope: dict[str, list[Doc]] = {}
    for d in rows:
        by_scope.setdefault(d.scope, []).append(d)
    out: set[tuple[str, str]] = set()
    for scope, ds in by_scope.items():
        part = parts.get(scope)
        if part is None:
            continue
        # A note is a file in working/ (as the guard decides), whatever its frontmatter says.
        facts = part.file_facts([d.rel_path for d in ds if not _in_working(d)])
        hashes = approved(part.root)
        seals: Mapping[str, str] = {}
        if any(_in_working(d) for d in ds):
            from engram.store.seal import read_note_seals

            seals = read_note_seals(part.root.path)
        for d in ds:
            rel = d.rel_path
            if _in_working(d):
                ok = rel in seals
            else:
                f = facts.get(rel)
                ok = f is not None and bool(f.sha) and hashes.get(rel) == f.sha
            if ok:
                out.add((scope, rel))
    return out


def _in_working(d: Doc) -> bool:
    return d.rel_path.startswith("working/")


def standing_keys(rows: Sequence[Doc], claimants: Callable[[str], Sequence[Doc]],
                  parts: Mapping[str, RootIndex], approved: Approved) -> set[tuple[str, str]]:
    """(scope, rel) of the `rows` that stand, a row also standing when another file of its
    scope declaring the same id does (claims.py shows that one)."""
    ok = standing_rows(parts, approved, rows)
    weak = [d for d in rows if (d.scope, d.rel_path) not in ok]
    if weak:
        rivals = {d.id: [r for r in claimants(d.id) if r.scope == d.scope] for d in weak}
        fine = standing_rows(parts, approved, [r for rs in rivals.values() for r in rs])
        ok |= {(d.scope, d.rel_path) for d in weak
               if any((r.scope, r.rel_path) in fine for r in rivals[d.id])}
    return ok
