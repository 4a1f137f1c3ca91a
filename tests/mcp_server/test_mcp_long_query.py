"""A long task over MCP (a pasted log, up to the 4,000-character limit) gets the same pack as
its meaningful words alone.

The envelope's `data.anchors` repeated every word of the task, and the load budget reserves
room for the envelope (Claude Code and Codex forward it whole), so 570 words of log noise
pushed two of four memory bodies out of the pack."""

from __future__ import annotations

import json
import random
import string
from pathlib import Path

from tests.helpers import write_memory
from tests.mcp_server.mcp_harness import InProcessServer

FACTS = {"deploys-go-through-staging": "- Deploys go through the staging cluster first.",
         "migrations-are-reversible": "- Database migrations must be reversible.",
         "run-smoke-before-release": "- Run the smoke suite before tagging a release.",
         "use-pnpm-in-web": "- Use pnpm, never npm, in the web package."}
WORDS = "deploy staging database migrations smoke release pnpm"
DETAIL = ("\n- Ask in the team channel when unsure; the on-call engineer knows the current state."
          "\n- The runbook in the wiki lists the exact commands and who signs off.")


def test_log_noise_in_the_task_does_not_crowd_memories_out(engram_root: Path,
                                                             project: Path) -> None:
    for mem_id, content in FACTS.items():
        write_memory(engram_root, mem_id, "knowledge", content + DETAIL)
    rng = random.Random(3)
    noise = " ".join("".join(rng.choices(string.ascii_lowercase, k=6)) for _ in range(600))
    server = InProcessServer(["--workspace", str(project)], None)
    try:
        server.call("initialize", {"protocolVersion": "2025-11-25", "capabilities": {}})
        packs = []
        for query in (WORDS, noise[:3990 - len(WORDS)] + " " + WORDS):
            reply = server.call("tools/call", {"name": "engram_load",
                                               "arguments": {"query": query}})
            envelope = reply["result"]["structuredContent"]
            packs.append(sorted(envelope["data"]["body_keys"]))
            assert len(json.dumps(envelope, separators=(",", ":"))) <= 1600 * 4
        assert len(packs[0]) == 4 and packs[1] == packs[0]
    finally:
        assert server.close() == 0
