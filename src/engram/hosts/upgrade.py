"""`engram upgrade`: re-pin Engram's MCP entries, refresh managed blocks and hooks.

Every recorded link of this project and of the user is linked again with `refresh` (which may also
add or drop `--always-load`: docs/hosts.md "Ownership, re-pinning, force"); an Engram entry found in
a known host config without a recorded link (written by hand or by the TypeScript tool) gets its
command re-pinned and nothing else. Legacy v1/v2 memory files are migrated to v3
(`store/migrate.py`). `--plan` previews. The version stamp that drives the automatic re-pin after a
package update (`hosts/autopin.py`) is refreshed here too.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from engram.errors import EngramError
from engram.hosts import command, jsonc, link, mcpconf
from engram.hosts.files import Bench, State, hosts_lock
from engram.hosts.targets import all_targets
from engram.store.migrate import Migration, migrate
from engram.workspace import Roots


def _options(record: dict[str, Any], plan: bool, refresh: bool) -> link.Options:
    hooks_file = record.get("hooks_file")
    return link.Options(
        is_global=record.get("scope") == "global",
        plan=plan,
        refresh=refresh,
        no_hooks=not hooks_file,
        team=bool(hooks_file) and Path(str(hooks_file)).name == "settings.json"
        and record.get("scope") == "workspace",
        no_allow=bool(record.get("no_allow")),
        launcher=str(record.get("launcher") or "auto"),
        repin=True,
    )


def relink(roots: Roots, records: list[dict[str, Any]], *, plan: bool,
           refresh: bool) -> list[link.Result]:
    return [link.link(roots, str(r["host"]), _options(r, plan, refresh)) for r in records]


def _has_engram_entry(path: Path, keys: tuple[str, ...]) -> bool:
    try:
        data = jsonc.loads(path.read_text(encoding="utf-8"), str(path))
    except (OSError, UnicodeDecodeError, EngramError):
        return False
    node: Any = data
    for k in [*keys, "engram"]:
        node = node.get(k) if isinstance(node, dict) else None
    return node is not None and command.is_engrams(node)


def repin_unrecorded(roots: Roots, linked_hosts: set[tuple[str, str]],
                     plan: bool) -> list[link.Result]:
    """Re-pin Engram entries in JSON host configs that no recorded link covers."""
    results: list[link.Result] = []
    for target in all_targets():
        for is_global, base in ((False, roots.project), (True, roots.env.home)):
            scope_name = "global" if is_global else "workspace"
            mcp = target.scope(is_global).mcp
            if (target.name, scope_name) in linked_hosts or mcp is None \
                    or mcp.style not in ("json", "opencode"):
                continue
            for name in mcp.files:
                path = base / name
                if not _has_engram_entry(path, mcp.keys):
                    continue
                with hosts_lock(roots.config_dir):
                    bench = Bench(State(roots.config_dir), roots.project)
                    launch = command.launch_for(roots.env.path, shared=not is_global)
                    wish = mcpconf.Wish(launch, False, False, False, repin=True)
                    mcpconf.put_json(bench, path, list(mcp.keys), mcp.style, wish)
                    changes = [(e.action, str(e.path)) for e in bench.edits()]
                    if not changes:
                        continue
                    if plan:
                        results.append(link.Planned(target.name, scope_name, changes))
                    else:
                        bench.apply()
                        results.append(link.Linked(
                            target.name, scope_name, changes,
                            ["re-pinned an entry Engram did not record"]))
    return results


@dataclass(frozen=True)
class Report:
    hosts: list[link.Result]
    memories: list[Migration]


def upgrade(roots: Roots, *, plan: bool = False) -> Report:
    """Memories first: a failed host edit must not leave legacy files half-migrated."""
    memories = migrate(roots, plan=plan)
    records = link.linked(roots)
    results = relink(roots, records, plan=plan, refresh=True)
    covered = {(str(r["host"]), str(r["scope"])) for r in records}
    results += repin_unrecorded(roots, covered, plan)
    if not plan:
        from engram.hosts.autopin import write_stamp

        write_stamp(roots.config_dir)
    return Report(results, memories)
