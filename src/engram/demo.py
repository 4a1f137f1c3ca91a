"""`engram demo`: the whole product in one minute, offline, in a throwaway workspace.

Steps: create a workspace, let an "agent" propose three memories (verdicts shown, nothing
written), approve them as the human, propose a duplicate (NOOP), load a task the way an agent
would, and make one real MCP round trip over stdio with `engram-mcp`. Every step prints what
happened and the command a user would type for it.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

CANDIDATES = (
    "TYPE: rule | TEXT: Always run the smoke suite before tagging a release. "
    "| TAGS: release, smoke | TRIGGERS: tag, release\n"
    "TYPE: skill | TEXT: Tag a release in three steps. Bump the version in pyproject.toml, "
    "update CHANGELOG.md, then push the tag vX.Y.Z. | TAGS: release, tagging "
    "| DEPENDS_ON: always-run-the-smoke-suite-before-tagging-a-release\n"
    "TYPE: knowledge | TEXT: Billing owns invoice numbering. The API only forwards requests "
    "to it. | TAGS: billing, architecture"
)
DUPLICATE = "TYPE: rule | TEXT: Always run the smoke suite before tagging a release."
TASK = "tag the 2.4 release"


def _indent(text: str) -> str:
    return "\n".join(f"    {line}" if line else "" for line in text.rstrip().splitlines())


def _mcp_round_trip(project: Path) -> dict[str, Any]:
    """Start engram-mcp, initialize, call engram_load, close stdin; return both replies."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "engram.mcp", "--workspace", str(project)],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    lines = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {},
            "clientInfo": {"name": "engram-demo", "version": "1"}}},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
            "name": "engram_load", "arguments": {"query": TASK, "budget_tokens": 400}}},
    ]
    out, _ = proc.communicate("".join(json.dumps(m) + "\n" for m in lines), timeout=60)
    replies = {r["id"]: r for r in map(json.loads, out.splitlines()) if "id" in r}
    return {"initialize": replies[1]["result"], "load": replies[2]["result"]}


def engram_command(path_env: str) -> str:
    """`engram` when a new shell's PATH finds this installation, else its absolute path.

    A tool install (pipx, uv tool) links the script from a bin directory outside its venv; a
    venv's own bin on PATH means an activated venv, which a new shell does not have."""
    here = Path(sys.executable).parent / ("engram.exe" if os.name == "nt" else "engram")
    found = shutil.which("engram", path=path_env or os.defpath)
    if not here.exists():
        return "engram" if found else f"{Path(sys.executable)} -m engram"
    in_venv = sys.prefix != sys.base_prefix
    if found and Path(found).resolve() == here.resolve() and not (
            in_venv and Path(found).parent.resolve() == here.parent.resolve()
            and not Path(found).is_symlink()):
        return "engram"
    return str(here)


def source_checkout() -> Path | None:
    """The checkout this package runs from (an editable install), if any."""
    top = Path(__file__).resolve().parents[2]
    project = top / "pyproject.toml"
    if project.is_file() and 'name = "engram-protocol"' in project.read_text(encoding="utf-8"):
        return top
    return None


def next_steps(path_env: str) -> list[str]:
    """The demo's closing lines; the last is a command that works from any shell."""
    cmd = engram_command(path_env)
    if cmd == "engram":
        return ["Next: in your own repository run `engram init`, then `engram link claude` "
                "(or codex, gemini, cursor, opencode, windsurf)."]
    where = source_checkout()
    source = shlex.quote(str(where)) if where else "engram-protocol"
    quoted = shlex.quote(cmd) if os.sep in cmd else cmd
    return ["Next: `engram` is not on your PATH in a new shell. Install it once as a tool:",
            f"    pipx install {source}    (or: uv tool install {source})",
            "then in your own repository: engram init && engram link claude",
            "(or codex, gemini, cursor, opencode, windsurf). Without installing, from any shell:",
            f"    {quoted} init && {quoted} link claude"]


def run(workdir: Path | None = None, say: Callable[[str], None] = print) -> dict[str, Any]:
    from engram.config import read_env
    from engram.proposals.api import commit, propose
    from engram.proposals.plan import human_preview
    from engram.search.api import load
    from engram.store.layout import init_root
    from engram.workspace import resolve

    tmp = None
    if workdir is None:
        tmp = tempfile.TemporaryDirectory(prefix="engram-demo-")
        workdir = Path(tmp.name)
    project = workdir / "demo-project"
    project.mkdir(parents=True, exist_ok=True)
    env = read_env(cwd=project)
    roots = resolve(env, workspace=project)
    try:
        say(f"Engram demo in a throwaway project: {project}\n")
        created = init_root(roots.workspace)
        say(f"1/5  engram init — created {len(created)} entries under .agents/.engram/\n")
        proposal = propose(roots, CANDIDATES, source="demo")
        say("2/5  An agent proposes three memories (engram_save_session). Nothing is "
            "written yet;\n     the human sees the exact candidates and their verdicts:\n")
        say(_indent(human_preview(proposal.preview)) + "\n")
        done = commit(roots, proposal.token, "all")
        say("3/5  The human approves all three (the host asks before engram_commit runs):\n")
        say(_indent(done.text) + "\n")
        dup = propose(roots, DUPLICATE, source="demo")
        say("     Proposing the first rule again is recognised, so memory does not grow "
            "duplicates:\n")
        say(_indent("\n".join(f"{i.number}. {i.verdict}" for i in dup.items)) + "\n")
        pack = load(roots, query=TASK, budget_tokens=400)
        say(f'4/5  An agent starts a task and loads memory: engram load "{TASK}"\n')
        say(_indent(pack.text) + "\n")
        mcp = _mcp_round_trip(project)
        info = mcp["initialize"]
        say("5/5  The same over MCP: engram-mcp on stdio, initialize then tools/call "
            "engram_load\n")
        keys = mcp["load"]["structuredContent"]["data"]["body_keys"]
        say(f"    server {info['serverInfo']['name']} {info['serverInfo']['version']}, "
            f"protocol {info['protocolVersion']}")
        say(f"    engram_load → {mcp['load']['content'][0]['text'].splitlines()[0]}")
        say(f"    structuredContent.data.body_keys = {keys}\n")
        for line in next_steps(env.path):
            say(line)
        return {"project": str(project), "written": done.data.get("written", []),
                "duplicate": [i.verdict for i in dup.items], "load": pack.data,
                "mcp": {"protocolVersion": info["protocolVersion"]}}
    finally:
        if tmp is not None:
            tmp.cleanup()
