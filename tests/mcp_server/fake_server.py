"""Run `engram-mcp` over the fake core: `python fake_server.py --fake-dir D [test opts] [flags]`.

Test-only options (consumed here, not by engram-mcp): `--fake-dir`, `--dialog-timeout`,
`--state-ttl`, `--real-core` (serve the real engine with the short timeouts). Everything else is
passed to `engram.mcp.main.main` unchanged.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # the repository: `tests.…`

from engram.mcp.core import EngineCore  # noqa: E402
from engram.mcp.main import main  # noqa: E402
from engram.mcp.server import Options  # noqa: E402
from tests.mcp_server.fake_core import FakeCore  # noqa: E402


def run(argv: list[str]) -> int:
    fake_dir, timeout, ttl, real = None, 60.0, 900.0, False
    rest: list[str] = []
    while argv:
        arg = argv.pop(0)
        if arg == "--fake-dir":
            fake_dir = Path(argv.pop(0))
        elif arg == "--dialog-timeout":
            timeout = float(argv.pop(0))
        elif arg == "--state-ttl":
            ttl = float(argv.pop(0))
        elif arg == "--real-core":
            real = True
        else:
            rest.append(arg)
    workspace = rest[rest.index("--workspace") + 1] if "--workspace" in rest else None
    core = EngineCore(workspace) if real or fake_dir is None else FakeCore(fake_dir)
    return main(rest, core=core, options=Options(dialog_timeout=timeout, state_ttl=ttl))


if __name__ == "__main__":
    raise SystemExit(run(sys.argv[1:]))
