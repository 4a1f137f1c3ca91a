"""Golden exchange: exact reply lines for a recorded sequence of raw request lines.

`tests/fixtures/mcp/golden_lines.jsonl` holds one `{send, expect}` pair per line: the raw bytes
a client writes and the exact JSON reply (or null: no reply at all). `{{version}}` and
`{{instructions}}` stand for `engram.__version__` and the instructions string.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from engram import __version__
from engram.mcp.protocol import INSTRUCTIONS
from tests.mcp_server.mcp_harness import InProcessServer

GOLDEN = Path(__file__).resolve().parent.parent / "fixtures" / "mcp" / "golden_lines.jsonl"


def _fill(value: Any) -> Any:
    if isinstance(value, str):
        return value.replace("{{version}}", __version__).replace("{{instructions}}",
                                                                 INSTRUCTIONS)
    if isinstance(value, dict):
        return {k: _fill(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_fill(v) for v in value]
    return value


def test_golden_exchange_replies_line_for_line(tmp_path: Path) -> None:
    pairs = [json.loads(line) for line in GOLDEN.read_text().splitlines() if line.strip()]
    server = InProcessServer([], tmp_path)
    try:
        for pair in pairs:
            server.write(pair["send"].encode() + b"\n")
            if pair["expect"] is not None:
                assert server.recv(lambda _m: True) == _fill(pair["expect"]), pair["send"]
        assert server.silent_for(0.3), "a notification was answered"
    finally:
        assert server.close() == 0
    assert len(server.lines) == sum(p["expect"] is not None for p in pairs)
