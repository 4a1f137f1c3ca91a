"""`engram doctor`: findings about config, roots, integrity, recorded links and host configs.

Each finding is `{code, level: ok|warn|error, message, remediation}` (docs/hosts.md "Doctor").
The checks of host config files (launch command, commit gate, the human's next step) live in
`hosts/host_checks.py`. Hash and invalid-file checks come from `engram.store.integrity` (the
same as `engram verify`). This module only reads; `engram upgrade` and `engram link` are the
remediations.
"""

from __future__ import annotations

from pathlib import Path

from engram.errors import EngramError
from engram.hosts import blocks
from engram.hosts.findings import Finding
from engram.hosts.host_checks import check_hosts
from engram.hosts.targets import get
from engram.safety.names import shown_name
from engram.workspace import IGNORED_LINES, Roots

__all__ = ["Finding", "run"]


def check_config(roots: Roots) -> list[Finding]:
    try:
        settings = roots.settings()
    except EngramError as exc:
        return [Finding("config.invalid", "error", exc.message, exc.hint)]
    out = [Finding("config.clamped", "warn", c.message, c.fix) for c in settings.clamped]
    return out or [Finding("config.ok", "ok", "configuration is valid")]


def check_roots(roots: Roots) -> list[Finding]:
    out: list[Finding] = []
    ws = roots.workspace
    if ws.exists():
        out.append(Finding("root.workspace", "ok", f"workspace root {ws.path}"))
    else:
        out.append(Finding("root.missing", "warn", f"no workspace root at {ws.path}",
                           "run `engram init` in the project"))
    g = roots.global_root
    if g is not None and not g.exists():
        from engram.config import read_env

        source = ("unset ENGRAM_GLOBAL_DIR" if read_env().global_dir
                  else f"remove global_path from {roots.user_config_file}")
        out.append(Finding("root.global_missing", "warn", f"global root {g.path} does not exist",
                           f"run `engram init --global {g.path}`, or {source}"))
    for root in roots.existing():
        try:
            lines = set(root.gitignore_file.read_text(encoding="utf-8").splitlines())
        except OSError:
            lines = set()
        missing = [x for x in IGNORED_LINES if x not in lines]
        if missing:
            out.append(Finding("root.gitignore", "warn",
                               f"{root.gitignore_file} lacks {', '.join(missing)}",
                               "run `engram init` (it only appends the missing lines)"))
    return out


def check_integrity(roots: Roots) -> list[Finding]:
    """Hashes and invalid files, as `engram verify` sees them."""
    from engram.store import integrity

    if not roots.existing():
        return []
    outcome = integrity.verify(roots)
    if outcome.ok:
        return [Finding("integrity.ok", "ok", "every memory file matches its hash")]
    # What git review cannot show, one finding each with its own code and fix (gitreview.py).
    blind = [f for f in outcome.data.get("files", []) if f.get("status") == integrity.HIDDEN]
    out = [Finding(str(f["code"]), "error",
                   f"HIDDEN {f['scope']}:{shown_name(str(f['file']))}: {f['reason']}",
                   str(f["fix"])) for f in blind]
    broken = [d for d in outcome.diagnostics if d.code == "integrity.hashes_invalid"]
    out += [Finding(d.code, "error", d.message, "run `engram rehash` to rebuild it from the "
                    "files you reviewed") for d in broken]
    if len(blind) < int(outcome.data.get("problems", 0)) or not out:
        first = [ln for ln in outcome.text.strip().splitlines()
                 if not ln.startswith((integrity.HIDDEN, " "))][:5]
        out.append(Finding("integrity.mismatch", "error", "; ".join(first),
                           "review the files, then run `engram rehash` (see `engram verify`)"))
    return out


def check_stale(roots: Roots) -> list[Finding]:
    """Memories whose anchored code moved, vanished or changed (`engram stale`)."""
    from engram.anchors.api import counts

    if not roots.workspace.exists():
        return []
    c = counts(roots)
    stale = {s: c[s] for s in ("gone", "moved", "changed") if c[s]}
    if not stale:
        return [Finding("memory.anchors_ok", "ok",
                        f"{c['anchored']} anchored memories match the code they name")]
    listed = ", ".join(f"{n} {s}" for s, n in stale.items())
    return [Finding("memory.stale", "warn", f"stale memories: {listed}",
                    "run `engram stale` to see what changed, `engram stale --propose` to fix "
                    "moved paths, `engram confirm <id>` after re-reading one")]


def check_links(roots: Roots) -> list[Finding]:
    """Recorded links whose instruction block or MCP entry has gone missing since."""
    from engram.hosts.link import linked

    out: list[Finding] = []
    for rec in linked(roots):
        is_global = rec.get("scope") == "global"
        scope = get(str(rec.get("host"))).scope(is_global)
        base = roots.env.home if is_global else roots.project
        missing = []
        if not _has_block(base / scope.instructions):
            missing.append(scope.instructions)
        if scope.mcp is not None and scope.mcp.style != "print" and not any(
                _mentions_engram(base / f) for f in scope.mcp.files):
            missing.append(" or ".join(scope.mcp.files))
        if missing:
            flag = " --global" if is_global else ""
            out.append(Finding("host.link_incomplete", "warn",
                               f"{rec.get('host')} ({rec.get('scope')}): Engram is missing from "
                               + ", ".join(missing),
                               f"run `engram link{flag} {rec.get('host')}` (or unlink it)"))
    return out


def _has_block(path: Path) -> bool:
    try:
        return blocks.span(path.read_text(encoding="utf-8"), blocks.MD) is not None
    except (OSError, UnicodeDecodeError):
        return False


def _mentions_engram(path: Path) -> bool:
    try:
        return "engram" in path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return False


def check_nested(roots: Roots) -> list[Finding]:
    """Workspaces in subfolders, or a workspace nested in another one (hosts/nested.py)."""
    from engram.hosts import nested

    project = roots.project
    out: list[Finding] = []
    outer = nested.enclosing(project)
    if outer is not None:
        out.append(Finding(
            "workspace.nested", "warn",
            f"this workspace is inside {outer}, which has its own: Engram run from {outer} "
            "reads that one, not this", "if you did not create this one, delete "
            f"{project / '.agents' / '.engram'}; otherwise review both"))
    found, cut = nested.below(project)
    for sub in found:
        rel = shown_name(sub.relative_to(project).as_posix())  # folders anyone can name
        out.append(Finding(
            "workspace.nested", "warn",
            f"another workspace at {rel}/.agents/.engram: Engram and any host started in "
            f"{rel}/ read it, with its own memory.hashes.json, instead of this one",
            f"if you did not create it (an agent can plant one), delete {rel}/.agents/.engram; "
            f"otherwise review it like this one: engram verify --workspace {rel}"))
    if cut:
        out.append(Finding("workspace.nested_partial", "ok",
                           f"looked for other workspaces in the first {nested.MAX_DIRS:,} "
                           "folders only"))
    return out


def check_semantic(roots: Roots) -> list[Finding]:
    """With `semantic.enabled` on: numpy importable and the vector table present and valid
    (routing quietly stays lexical otherwise, so doctor is where the user learns why)."""
    from engram.search.semantic_load import load

    try:
        enabled = bool(roots.settings().get("semantic.enabled"))
    except EngramError:
        return []  # check_config reports a broken config
    if not enabled:
        return []
    got = load(roots.vectors_file)
    if got.embedder is None:
        return [Finding(got.code, "warn", got.message, got.hint)]
    return [Finding("semantic.ok", "ok", f"semantic extra on: vector table {roots.vectors_file}")]


def check_containment(roots: Roots) -> list[Finding]:
    """Symlinks where a root, type folder or state file should be (engram.containment)."""
    from engram.containment import problems

    return [Finding("root.symlink" if p.what == "symlink" else "root.wrong_kind", "error",
                    p.message, p.hint) for p in problems(roots)]


def run(roots: Roots) -> list[Finding]:
    contained = check_containment(roots)
    if contained:  # every other check would read or write behind the symlink
        return contained
    return (check_config(roots) + check_semantic(roots) + check_roots(roots)
            + check_nested(roots)
            + check_integrity(roots) + check_stale(roots) + check_hosts(roots)
            + check_links(roots))
