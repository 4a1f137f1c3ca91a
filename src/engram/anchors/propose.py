"""Draft path fixes for `engram stale --propose`: one UPDATE candidate per memory whose anchors
moved, carrying `RENAME: old -> new` and the rewritten content. Nothing is written here: the
candidates go through the normal proposal, preview and approval."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from engram.anchors.rewrite import rewrite_paths
from engram.errors import InvalidMemoryError, StorageError
from engram.store.repo import Store, parse_bytes, sha256_bytes
from engram.workspace import Roots


def renames_of(entry: Mapping[str, Any]) -> list[tuple[str, str]]:
    out = []
    for a in entry["anchors"]:
        if a["state"] == "moved" and a["new_path"]:
            old = str(a["path"]).split("::", 1)[0]
            out.append((old, str(a["new_path"])))
    return out


def drafts(roots: Roots, stale: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """The candidates, made from the approved bytes of each memory only: `--force` writes them
    without a preview, so a file changed since its approval (even for an instant, while it is
    read here) must never lend them its text."""
    from engram.search.session import approved_hashes

    store = Store(roots.workspace)
    approved = approved_hashes(roots.workspace, roots.state_dir)
    out: list[dict[str, Any]] = []
    for entry in stale:
        renames = renames_of(entry)
        if not renames:
            continue
        rel = str(entry["file"])
        try:
            data = store.read_bytes(rel)
            if approved.get(rel) != sha256_bytes(data):
                continue
            m = parse_bytes(data, rel, roots.workspace)
        except (InvalidMemoryError, StorageError):
            continue
        text = rewrite_paths(m.content or m.title, renames)
        draft: dict[str, Any] = {"type": m.type, "text": text, "update": m.id,
                                 "rename": [f"{a} -> {b}" for a, b in renames]}
        if m.type == "rule" and m.variants:
            # The author's wordings, with the paths fixed, not new generated ones.
            draft["variants"] = {k: rewrite_paths(v, renames).strip().lstrip("- ").strip()
                                 for k, v in m.variants.items()}
        out.append(draft)
        if len(out) == 8:
            break
    return out


def review_text(stale: Sequence[Mapping[str, Any]]) -> str:
    """The memories a rename cannot fix: a person re-reads them."""
    lines = []
    for entry in stale:
        if entry["state"] == "moved":
            continue
        why = next((f"{a['path']} {a['state']}" + (f" ({a['detail']})" if a["detail"] else "")
                    for a in entry["anchors"] if a["state"] != "ok"),
                   f"{entry['changed_commits']} commits on its files since "
                   f"{entry['confirmed'] or 'it was written'}")
        lines.append(f"- {entry['id']}: {why}")
    if not lines:
        return ""
    return ("To review by hand (then edit through `engram save … UPDATE`, `engram archive`, "
            "or `engram confirm <id>` if it still holds):\n" + "\n".join(lines))
