"""Which memories an export may hold: the approved bytes of each active memory, nothing else.

Every file is read once, checked by the same guard `engram load` uses (its SHA-256 must equal
its entry in `memory.hashes.json`, and the safety scan must find no secret, personal data or
injection line), then parsed from those very bytes. A file that fails is returned as a `Skip`,
so the export names it without ever repeating its text. Working notes and the archive are
never exported: notes are not approved, archived memories no longer hold.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from engram.errors import EngramError, InvalidMemoryError
from engram.search.guard import Scanner, Skip, check, sha256_hex
from engram.search.reader import default_scanner
from engram.store.format import sections
from engram.store.model import TYPES, Memory
from engram.store.repo import Store, parse_bytes
from engram.workspace import Roots

SCOPES = ("workspace", "global", "both")


class Exported(NamedTuple):
    """One memory as an export carries it: the fields a candidate needs to be proposed again,
    plus where it came from (`file`, `sha256` of the approved bytes)."""

    memory: Memory
    sha256: str

    @property
    def text(self) -> str:
        """The memory's content as candidate text: one line per bullet, markers removed (a
        proposal turns each line back into a bullet)."""
        return _unbulleted(self.memory.content)

    @property
    def context(self) -> str:
        return sections(self.memory.body).get("context", "")

    def as_dict(self) -> dict[str, Any]:
        m = self.memory
        out: dict[str, Any] = {"id": m.id, "type": m.type, "title": m.title, "text": self.text}
        optional: dict[str, Any] = {
            "context": self.context, "tags": m.tags, "triggers": m.triggers,
            "depends_on": m.depends_on, "role": m.roles,
            "level": m.meta.get("level") if isinstance(m.meta.get("level"), str | int) else None,
            "variants": {k: _unbulleted(v) for k, v in sorted(m.variants.items()) if v},
        }
        out.update({k: v for k, v in optional.items() if v})
        out.update({"confidence": m.confidence, "scope": m.scope, "file": m.rel_path,
                    "sha256": self.sha256})
        return out


def collect(roots: Roots, scope: str = "workspace") -> tuple[list[Exported], list[Skip]]:
    """The approved memories of `scope`'s roots by type and id (the workspace copy of an id
    wins under `both`), and the files left out with the reason."""
    wanted = [r for r in roots.existing() if scope == "both" or r.scope == scope]
    if not wanted:
        raise EngramError(f"no {scope} memory root to export from", code="export.no_root",
                          hint="run `engram init` first" if scope != "global"
                          else "create one with `engram init --global PATH`")
    scan = default_scanner()
    items: dict[str, Exported] = {}
    skipped: list[Skip] = []
    for root in wanted:
        store = Store(root, roots.state_dir)
        hashes = store.approved_hashes()
        for rel in store.memory_files(include_notes=False):
            shown = rel if len(wanted) == 1 else f"{root.scope}:{rel}"
            got = _read(store, rel, hashes, scan, shown)
            if isinstance(got, Skip):
                skipped.append(got)
            elif got.memory.id not in items:
                items[got.memory.id] = got
    order = {t: n for n, t in enumerate(TYPES)}
    ranked = sorted(items.values(), key=lambda e: (order[e.memory.type], e.memory.id))
    return ranked, skipped


def _read(store: Store, rel: str, hashes: dict[str, str], scan: Scanner, shown: str
          ) -> Exported | Skip:
    try:
        data = store.read_bytes(rel)
    except InvalidMemoryError as exc:
        return Skip(shown, exc.reason)
    sha = sha256_hex(data)
    refused = check(rel, data, hashes, scan, display=shown, sha=sha)
    if refused is not None:
        return refused
    try:
        memory = parse_bytes(data, rel, store.root)
    except InvalidMemoryError as exc:
        return Skip(shown, f"does not parse (line {exc.line}: {exc.reason})")
    return Exported(memory, sha)


def _unbulleted(content: str) -> str:
    lines = [ln.strip() for ln in content.splitlines() if ln.strip()]
    return "\n".join(ln[2:] if ln.startswith(("- ", "* ")) else ln for ln in lines)
