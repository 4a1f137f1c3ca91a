"""Run `engram-mcp` over the fake core: `python fake_server.py --fake-dir D [test opts] [flags]`.

Test-only options (consumed here, not by engram-mcp): `--fake-dir`, and those of
`mcp_harness.server_options` (`--dialog-timeout`, `--state-ttl`, `--clock-file`, `--real-core` to
serve the real engine with them). Everything else is passed to `engram.mcp.main.main` unchanged.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # the repository: `tests.…`

from engram.mcp.core import Core, EngineCore  # noqa: E402
from engram.mcp.main import main  # noqa: E402
from tests.mcp_server.fake_core import FakeCore  # noqa: E402
from tests.mcp_server.mcp_harness import server_options  # noqa: E402


def run(argv: list[str]) -> int:
    fake_dir: Path | None = None
    if "--fake-dir" in argv:
        at = argv.index("--fake-dir")
        fake_dir = Path(argv[at + 1])
        del argv[at:at + 2]
    rest, options, real = server_options(argv)
    workspace = rest[rest.index("--workspace") + 1] if "--workspace" in rest else None
    core: Core = EngineCore(workspace) if real or fake_dir is None else FakeCore(fake_dir)
    return main(rest, core=core, options=options)


if __name__ == "__main__":
    raise SystemExit(run(sys.argv[1:]))
