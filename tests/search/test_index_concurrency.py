"""Several processes refreshing one index at once never fail or duplicate rows."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

from tests.conftest import REPO, subprocess_env
from tests.helpers import memory_text

REFRESH = textwrap.dedent("""
    import sys
    from pathlib import Path
    from engram.search.index import RootIndex
    from engram.workspace import Root
    idx = RootIndex(Root(Path(sys.argv[1]), "workspace"))
    idx.refresh()
    print(len(idx.memories()))
""")


def test_concurrent_first_refreshes_agree(project: Path) -> None:
    root = project / ".agents" / ".engram"
    (root / "rules").mkdir(parents=True)
    for i in range(300):
        (root / "rules" / f"m-{i}.md").write_text(memory_text(f"m-{i}"))
    env = subprocess_env(PYTHONPATH=f"{REPO / 'src'}:{REPO}")
    procs = [subprocess.Popen([sys.executable, "-c", REFRESH, str(root)], env=env,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for _ in range(4)]
    results = [p.communicate(timeout=120) for p in procs]
    assert [p.returncode for p in procs] == [0, 0, 0, 0], [r[1][-500:] for r in results]
    assert [r[0].strip() for r in results] == ["300"] * 4
