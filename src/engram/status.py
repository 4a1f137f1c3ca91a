"""`engram status`: where the roots are, what they hold, what is wrong and what is pending.

Counts come from the derived index (fast at thousands of memories); pending approvals and notes
are counted from their files without interpreting more than their shape.
"""

from __future__ import annotations

from typing import Any

from engram import clock
from engram.outcome import Diagnostic, Outcome
from engram.workspace import Root, Roots


def status(roots: Roots) -> Outcome:
    from engram.proposals.approvals import open_count
    from engram.search.index import RootIndex
    from engram.search.route import active_variant

    settings = roots.settings()
    today = clock.today().isoformat()
    data: dict[str, Any] = {"roots": [], "counts": {"by_type": {}, "by_scope": {}, "by_tier": {}},
                            "invalid": [], "duplicate_ids": [], "pending_approvals": 0,
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
            duplicates = idx.duplicate_ids()
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
        if invalid:
            from engram.safety import printable, shown_name
        for exc in invalid:
            # Names and parse errors of files nobody approved: escaped and shortened.
            file, reason = shown_name(exc.file), printable(exc.reason, 240)
            data["invalid"].append({"scope": root.scope, "file": file, "line": exc.line,
                                    "reason": reason})
            diags.append(Diagnostic("memory.invalid", "warn",
                                    f"{root.scope}:{file}:{exc.line}: {reason}"))
        if duplicates:
            from engram.safety import shown_name as name
            from engram.safety import withheld_id
        for mid, rels in duplicates.items():
            shown = [name(r) for r in rels]
            # An id is reviewed text only when an approved file declares it.
            said = mid if _approved_any(root, rels) else withheld_id(mid)
            data["duplicate_ids"].append({"scope": root.scope, "id": said, "files": shown})
            diags.append(Diagnostic("memory.duplicate_id", "warn",
                                    f"{root.scope}: id {said} is declared by {', '.join(shown)};"
                                    " loads show the first that passes the guard"))
    data["pending_approvals"] = open_count(roots)
    c = data["counts"]
    lines.append("memories: " + (", ".join(f"{n} {t}" for t, n in sorted(c["by_type"].items()))
                                 or "none"))
    lines.append(f"notes: {data['notes']['active']} active, {data['notes']['expired']} expired; "
                 f"pending approvals: {data['pending_approvals']}")
    if roots.workspace.exists():
        from engram.anchors.api import counts as stale_counts

        stale = stale_counts(roots)
        data["stale"] = stale
        if any(stale[s] for s in ("gone", "moved", "changed")):
            lines.append(f"stale: {stale['moved']} moved, {stale['gone']} gone, "
                         f"{stale['changed']} changed of {stale['anchored']} anchored "
                         "(engram stale)")
    for inv in data["invalid"]:
        lines.append(f"INVALID {inv['scope']}:{inv['file']}:{inv['line']}: {inv['reason']}")
    lines += [f"DUPLICATE ID {d.message}" for d in diags if d.code == "memory.duplicate_id"]
    for c in settings.clamped:
        diags.append(Diagnostic("config.clamped", "warn", f"{c.message} (fix: {c.fix})"))
        lines.append(f"CONFIG {c.message}\n  fix: {c.fix}")
    v = settings.values
    # One truth with `load`: the wording rules render in, whether variants are on or off.
    variant = active_variant(settings)
    data["rule_variant"] = variant
    chosen = "" if v["rule_variants.enabled"] else " (default)"
    lines.append(f"config: scope={v['scope']} load.limit={v['load.limit']} "
                 f"load.max_tokens={v['load.max_tokens']} read={v['read']} "
                 f"rule_variant={variant}{chosen} roles={','.join(v['roles']) or '-'}")
    if not roots.workspace.exists():
        lines.append("hint: run `engram init` to create the workspace memory")
    return Outcome(text="\n".join(lines), data=data, diagnostics=diags)


def _approved_any(root: Root, rels: list[str]) -> bool:
    """Whether any of these files holds exactly the bytes a human approved."""
    from engram.errors import EngramError
    from engram.search.guard import check
    from engram.store.repo import Store

    store = Store(root)
    try:
        hashes = store.load_hashes()
    except EngramError:
        return False
    for rel in rels:
        try:
            if rel in hashes and check(rel, store.read_bytes(rel), hashes) is None:
                return True
        except EngramError:
            continue
    return False
