"""`engram status`: where the roots are, what they hold, what is wrong and what is pending.

Counts come from the derived index (fast at thousands of memories); pending approvals and notes
are counted from their files without interpreting more than their shape.
"""

from __future__ import annotations

from datetime import date
from typing import Any

from engram.outcome import Diagnostic, Outcome
from engram.workspace import Roots


def status(roots: Roots) -> Outcome:
    from engram.proposals.approvals import open_count
    from engram.search.index import RootIndex

    settings = roots.settings()
    today = date.today().isoformat()
    data: dict[str, Any] = {"roots": [], "counts": {"by_type": {}, "by_scope": {}, "by_tier": {}},
                            "invalid": [], "pending_approvals": 0,
                            "notes": {"active": 0, "expired": 0}, "config": settings.values}
    diags: list[Diagnostic] = []
    lines: list[str] = []
    for root in roots.all():
        data["roots"].append({"scope": root.scope, "path": str(root.path),
                              "exists": root.exists()})
        lines.append(f"{root.scope:<9} {root.path}{'' if root.exists() else '  (not created)'}")
        if not root.exists():
            continue
        idx = RootIndex(root)
        try:
            counts = idx.counts()
            mems = idx.memories() if counts["by_tier"].get("working") else []
            invalid = idx.invalid()
        finally:
            idx.close()
        for t, n in counts["by_type"].items():
            data["counts"]["by_type"][t] = data["counts"]["by_type"].get(t, 0) + n
        for t, n in counts["by_tier"].items():
            data["counts"]["by_tier"][t] = data["counts"]["by_tier"].get(t, 0) + n
        data["counts"]["by_scope"][root.scope] = sum(counts["by_type"].values())
        for m in mems:
            if m.is_note:
                key = "active" if (m.valid_until or "9999") >= today else "expired"
                data["notes"][key] += 1
        for exc in invalid:
            data["invalid"].append({"scope": root.scope, "file": exc.file, "line": exc.line,
                                    "reason": exc.reason})
            diags.append(Diagnostic("memory.invalid", "warn",
                                    f"{root.scope}:{exc.file}:{exc.line}: {exc.reason}"))
    data["pending_approvals"] = open_count(roots)
    c = data["counts"]
    lines.append("memories: " + (", ".join(f"{n} {t}" for t, n in sorted(c["by_type"].items()))
                                 or "none"))
    lines.append(f"notes: {data['notes']['active']} active, {data['notes']['expired']} expired; "
                 f"pending approvals: {data['pending_approvals']}")
    for inv in data["invalid"]:
        lines.append(f"INVALID {inv['scope']}:{inv['file']}:{inv['line']}: {inv['reason']}")
    for c in settings.clamped:
        diags.append(Diagnostic("config.clamped", "warn",
                                f"{c.file}: {c.key}={c.value!r} used as {c.used!r}"))
    v = settings.values
    variants = "on:" + v["rule_variants.active"] if v["rule_variants.enabled"] else "off"
    lines.append(f"config: scope={v['scope']} load.limit={v['load.limit']} "
                 f"load.max_tokens={v['load.max_tokens']} read={v['read']} "
                 f"rule_variants={variants} roles={','.join(v['roles']) or '-'}")
    if not roots.workspace.exists():
        lines.append("hint: run `engram init` to create the workspace memory")
    return Outcome(text="\n".join(lines), data=data, diagnostics=diags)
