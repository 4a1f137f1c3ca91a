"""What a human approves of one candidate: every field that reaches the memory file.

The terminal preview and the MCP approval dialog both show these lines, so nothing a proposal
writes is approved unseen (docs/safety.md): the text, its context, the rule variants (all
three: `load` prints the active one in place of the section, so a variant is text agents read),
tags, triggers, roles, prerequisites, level, confidence and path renames. Pure: no I/O.
"""

from __future__ import annotations

from engram.proposals.candidates import Candidate
from engram.proposals.variants import variants_for


def candidate_lines(c: Candidate) -> list[str]:
    """The candidate as it will be written: its text lines, then one `Field: value` line for
    every other field that is set."""
    lines = list(c.text.splitlines()) or [c.text]
    if c.context:
        lines.append(f"Context: {c.context}")
    for label, values in (("Tags", c.tags), ("Triggers", c.triggers), ("Roles", c.role),
                          ("Depends on", c.depends_on)):
        if values:
            lines.append(f"{label}: {', '.join(values)}")
    if c.level:
        lines.append(f"Level: {c.level}")
    if c.confidence != "high":
        lines.append(f"Confidence: {c.confidence}")
    if c.anchors:
        lines.append(f"Anchors: {', '.join(c.anchors)}")
    if c.source_files:
        lines.append(f"Adopted from: {', '.join(c.source_files)}")
    if c.renames:
        lines.append("Renames paths: " + "; ".join(f"{a} → {b}" for a, b in c.renames))
    if c.type == "rule":
        v = variants_for(c.text, c.variants)
        # balanced is the text itself unless the candidate says otherwise
        balanced = "" if v["balanced"].strip() == c.text.strip() else \
            f" | balanced: {v['balanced']}"
        lines.append(f"Variants: light: {v['light']}{balanced} | strict: {v['strict']}")
    return lines
