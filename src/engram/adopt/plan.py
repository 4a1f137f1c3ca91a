"""What a take-control run would do, as data and as the `--plan` text (docs/adopting.md).

`survey` discovers, reads, skips already-imported sources, builds the candidates and drops
the ones Engram already holds (a NOOP verdict in every target root, from the write path's own
`proposals.plan`). `render` prints each source with size, tokens, hash and what it would
propose, and each skipped file or line with the reason. Reading only.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from engram.adopt.candidates import Adopted, Candidates, build
from engram.adopt.discover import Found, discover
from engram.adopt.sources import Source
from engram.safety import printable
from engram.workspace import Roots, Scope

ALREADY = "already imported source hash"


@dataclass
class Survey:
    sources: list[Source]
    skipped: list[tuple[str, str]]  # (file, reason)
    built: Candidates
    held: list[tuple[Adopted, str]] = field(default_factory=list)  # (candidate, memory id)
    personal: list[Source] = field(default_factory=list)

    @property
    def proposed(self) -> list[Adopted]:
        gone = {id(a) for a, _ in self.held}
        return [a for a in self.built.adopted if id(a) not in gone]

    def as_data(self) -> dict[str, Any]:
        per = self._per_source()
        return {
            "sources": [{"file": s.rel, "size": s.size, "tokens": s.tokens, "sha256": s.sha256,
                         "origin": s.origin, "personal": s.personal,
                         "proposes": per.get(s.rel, 0)} for s in self.sources],
            "skipped": [{"file": f, "reason": r} for f, r in self.skipped],
            "left_out": [{"file": f, "line": n, "reason": r} for f, n, r in self.built.left_out],
            "folded": [{"files": files} for _, files in self.built.folded],
            "held": [{"memory": mid, "file": a.files[0]} for a, mid in self.held],
            "candidates": [{**a.fields(), "origin": a.origin, "about_user": a.about_user}
                           for a in self.proposed],
        }

    def _per_source(self) -> dict[str, int]:
        out: dict[str, int] = {}
        for a in self.proposed:
            out[a.files[0]] = out.get(a.files[0], 0) + 1
        return out


def imported_hashes(roots: Roots) -> set[str]:
    """Every `source_hashes` entry of every memory: sources adopted before."""
    from engram.store.repo import stores_in

    out: set[str] = set()
    for store in stores_in(roots):
        for m in store.scan(include_notes=False).memories:
            value = m.meta.get("source_hashes")
            if isinstance(value, list):
                out.update(str(v) for v in value if v)
    return out


def survey(roots: Roots, found: Found, *, host: tuple[list[Source], list[tuple[str, str]]]
           | None = None, scopes: Sequence[Scope] = ("workspace",), picked: bool = False,
           allow_emails: Sequence[str] = ()) -> Survey:
    sources = list(found.sources)
    skipped = list(found.skipped)
    if host is not None:
        sources += host[0]
        skipped += host[1]
    known = imported_hashes(roots)
    fresh: list[Source] = []
    personal: list[Source] = []
    for s in sources:
        if s.sha256 in known:
            skipped.append((s.rel, ALREADY))
        elif s.personal and not picked and not s.origin:
            personal.append(s)
            skipped.append((s.rel, "personal file: listed, not proposed (name it with --file "
                            "or pass --personal)"))
        else:
            fresh.append(s)
    built = build(fresh, allow_emails)
    result = Survey(fresh, skipped, built, personal=personal)
    result.held = _held(roots, built.adopted, scopes)
    return result


def _held(roots: Roots, adopted: list[Adopted], scopes: Sequence[Scope]
          ) -> list[tuple[Adopted, str]]:
    """Candidates every target root already holds (NOOP), with the memory that holds them."""
    if not adopted:
        return []
    from engram.proposals.candidates import Candidate
    from engram.proposals.plan import plan

    cands = [Candidate.from_dict({"number": n, **a.fields()}) for n, a in enumerate(adopted, 1)]
    rows = plan(roots, cands, list(scopes))
    out = []
    for n, a in enumerate(adopted, 1):
        mine = [p for p in rows if p.number == n]
        if mine and all(p.verdict.kind == "NOOP" for p in mine):
            out.append((a, mine[0].verdict.target or mine[0].id))
    return out


def render(s: Survey, project: Path) -> str:
    per = s._per_source()
    lines = [f"take-control plan for {project} (nothing is written)", ""]
    lines.append(f"Sources ({len(s.sources)}):")
    for src in s.sources:
        origin = f" [{src.origin}]" if src.origin else ""
        lines.append(f"  {printable(src.rel, 160)}{origin}: {src.size} bytes, ~{src.tokens} "
                     f"tokens, sha256 {src.sha256[:12]}, proposes {per.get(src.rel, 0)}")
    if s.skipped:
        lines += ["", f"Skipped files ({len(s.skipped)}):"]
        lines += [f"  {printable(f, 160)}: {r}" for f, r in s.skipped]
    if s.built.left_out:
        lines += ["", f"Left out ({len(s.built.left_out)}):"]
        lines += [f"  {printable(f, 160)}" + (f" line {n}" if n else "") + f": {r}"
                  for f, n, r in s.built.left_out]
    if s.built.folded:
        lines += ["", f"Said in several sources, proposed once ({len(s.built.folded)}):"]
        lines += [f"  {', '.join(files)}" for _, files in s.built.folded]
    if s.held:
        lines += ["", f"Already in Engram ({len(s.held)}): "
                  + ", ".join(sorted({mid for _, mid in s.held}))]
    counts: dict[str, int] = {}
    for a in s.proposed:
        counts[a.item.type] = counts.get(a.item.type, 0) + 1
    shown = ", ".join(f"{n} {t}" for t, n in sorted(counts.items())) or "nothing"
    lines += ["", f"Would propose {len(s.proposed)} candidates: {shown}."]
    if s.proposed:
        lines.append("Run `engram take-control` to see the preview and answer A / A 1,3 / B / C.")
    return "\n".join(lines)


def find(roots: Roots, project: Path, args: Any) -> Found:
    base = str(args.dir or "")
    return discover(project, base=base, files=list(args.file or []), include=args.include,
                    exclude=args.exclude, max_sources=args.max_sources,
                    max_chars=args.max_chars, personal=args.personal)
