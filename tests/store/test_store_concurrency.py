"""Two real processes writing into one root at once lose nothing (the root lock works)."""

from __future__ import annotations

import json
import subprocess
import textwrap
from pathlib import Path

from engram.store.repo import Store, sha256_bytes
from engram.workspace import Root
from tests.conftest import subprocess_env

WRITER = textwrap.dedent("""
    import sys
    from pathlib import Path
    from engram.store.repo import Change, Store
    from engram.workspace import Root
    from tests.helpers import memory_text
    root, prefix, n = Path(sys.argv[1]), sys.argv[2], int(sys.argv[3])
    store = Store(Root(root, "workspace"))
    for i in range(n):
        mid = f"{prefix}-memory-{i}"
        store.write_files([Change(f"rules/{mid}.md", memory_text(mid))], f"add {mid}")
""")


def test_two_processes_writing_50_memories_each_lose_none(project: Path) -> None:
    root = project / ".agents" / ".engram"
    root.mkdir(parents=True)
    repo = Path(__file__).resolve().parents[2]
    env = subprocess_env(PYTHONPATH=f"{repo / 'src'}:{repo}")
    procs = [subprocess.Popen(["python3", "-c", WRITER, str(root), p, "50"], env=env)
             for p in ("alpha", "beta")]
    assert [p.wait(timeout=120) for p in procs] == [0, 0]
    store = Store(Root(root, "workspace"))
    files = store.memory_files()
    assert len(files) == 100
    hashes = json.loads((root / "memory.hashes.json").read_text())
    assert set(hashes) == set(files)
    for rel in files:
        assert hashes[rel] == sha256_bytes((root / rel).read_bytes())
    log = (root / "changelog.md").read_text().splitlines()
    assert sum(1 for line in log if line.startswith("- ")) == 100
    assert not list(root.rglob(".engram-tmp-*"))
