"""From sources to candidates: split, scan, fold (docs/adopting.md "Candidates").

Each item of each source is scanned with the write path's own scan (`engram.safety.scan_text`):
an item with a secret, personal data or an injection line is left out with the finding's kind,
never its text. Items that say the same thing (the write path's `content_key`) fold into one
candidate naming every source. The result is plain candidate fields for `proposals.api`, which
then runs the checks, verdicts, preview and approval a `save-session` runs. Pure apart from
nothing: sources are already read.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from engram.adopt.guard import flagged
from engram.adopt.sources import Source
from engram.adopt.split import Item, split
from engram.proposals.similarity import content_key
from engram.safety import scan_invisible, scan_text


@dataclass
class Adopted:
    """One candidate and where it came from."""

    item: Item
    files: list[str]
    origin: str = ""

    @property
    def about_user(self) -> bool:
        return self.item.about_user

    def fields(self) -> dict[str, Any]:
        where = " › ".join(self.item.heading[-2:])
        context = f"Adopted from {self.files[0]}" + (f" ({where})" if where else "")
        out: dict[str, Any] = {"type": self.item.type, "text": self.item.text,
                               "context": context, "source_files": list(self.files)}
        if self.item.anchors:
            out["anchors"] = list(self.item.anchors)
        return out


@dataclass
class Candidates:
    adopted: list[Adopted] = field(default_factory=list)
    left_out: list[tuple[str, int, str]] = field(default_factory=list)  # (file, line, reason)
    folded: list[tuple[str, list[str]]] = field(default_factory=list)  # (title, files)
    per_source: dict[str, int] = field(default_factory=dict)


def build(sources: Iterable[Source], allow_emails: Sequence[str] = ()) -> Candidates:
    out = Candidates()
    by_key: dict[str, Adopted] = {}
    for source in sources:
        parts = split(source.text)
        out.left_out += [(source.rel, n, why) for n, why in parts.left_out]
        count = 0
        for item in parts.items:
            reason = _unsafe(item, allow_emails)
            if reason:
                out.left_out.append((source.rel, item.line, reason))
                continue
            count += 1
            key = f"{item.type}:{content_key(item.text)}"
            seen = by_key.get(key)
            if seen is not None:
                if source.rel not in seen.files:
                    seen.files.append(source.rel)
                    out.folded.append((item.text[:70], list(seen.files)))
                continue
            by_key[key] = Adopted(item, [source.rel], source.origin)
            out.adopted.append(by_key[key])
        out.per_source[source.rel] = count
    return out


def _unsafe(item: Item, allow_emails: Sequence[str]) -> str:
    """The scan's verdict on an item, as kinds only (the text is never echoed)."""
    whole = item.text + "\n" + "\n".join(item.heading)
    findings = scan_text(whole, allow_emails=tuple(allow_emails)) + scan_invisible(whole)
    kinds = sorted({f"{f.category} ({f.label})" for f in findings})
    kinds += [f"injection ({k})" for k in {flagged(ln) for ln in whole.split("\n")} if k]
    if not kinds:
        return ""
    return "left out: " + ", ".join(kinds)
