"""Small builders shared by tests: memory file text, running the CLI in-process."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from engram.cli.main import main


def memory_text(mem_id: str, mtype: str = "rule", content: str = "- Do the thing.",
                **meta: Any) -> str:
    from engram.store.format import render_memory

    fm: dict[str, Any] = {"id": mem_id, "type": mtype, "created": "2026-08-01",
                          "updated": "2026-08-01", "confidence": "high", "revision": 1,
                          "scope": "workspace", "source": "manual", "tags": []}
    fm.update(meta)
    title = mem_id.replace("-", " ").capitalize()
    return render_memory(fm, title, content)


def write_memory(root: Path, mem_id: str, mtype: str = "rule", content: str = "- Do the thing.",
                 **meta: Any) -> str:
    """Write a memory through the store's write path (so hashes agree); returns its rel path."""
    from engram.store.model import TYPE_DIR
    from engram.store.repo import Change, Store
    from engram.workspace import Root, Scope


    rel = f"{TYPE_DIR[mtype]}/{mem_id}.md"
    scope: Scope = "global" if meta.get("scope") == "global" else "workspace"
    Store(Root(root, scope)).write_files([Change(rel, memory_text(mem_id, mtype, content, **meta))],
                                         "test")
    return rel


def run_cli(*args: str, capsys: Any) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def run_json(*args: str, capsys: Any) -> tuple[int, dict[str, Any]]:
    code, out, _ = run_cli(*args, "--json", capsys=capsys)
    return code, json.loads(out)


def unshare_works() -> bool:
    """True when this machine lets a test make a private mount namespace (`unshare -rm`), to
    mount a real read-only root or a tiny tmpfs."""
    import shutil
    import subprocess

    if shutil.which("unshare") is None:
        return False
    done = subprocess.run(["unshare", "-rm", "true"], capture_output=True, check=False)
    return done.returncode == 0
