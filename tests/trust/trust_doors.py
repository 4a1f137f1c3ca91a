"""The three doors an agent reads memory through, driven for real: the CLI (in process), the
Claude hook (`engram agent-hook --host claude` as a subprocess) and `engram-mcp` over stdio with
the official SDK client, in the legacy era and in 2026-07-28."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
from mcp import Client
from mcp.client.session import ClientRequestContext
from mcp.client.stdio import StdioServerParameters

from engram.cli.main import main

SRC = Path(__file__).resolve().parents[2] / "src"
MODERN = "2026-07-28"
ERAS = ("legacy", MODERN)


def env() -> dict[str, str]:
    out = dict(os.environ)
    out["PYTHONPATH"] = str(SRC) + os.pathsep + out.get("PYTHONPATH", "")
    return out


def cli(capsys: Any, *args: str) -> tuple[int, str]:
    """Run the CLI in process; stdout and stderr together (warnings go to stderr)."""
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out + err


def hook(project: Path, prompt: str, event: str = "UserPromptSubmit") -> str:
    """What the Claude hook injects for one prompt ("" when it injects nothing)."""
    payload = {"hook_event_name": event, "session_id": f"s-{os.urandom(4).hex()}",
               "cwd": str(project), "prompt": prompt}
    done = subprocess.run([sys.executable, "-m", "engram", "agent-hook", "--host", "claude"],
                          input=json.dumps(payload), capture_output=True, text=True, env=env(),
                          cwd=project, check=False, timeout=60)
    assert done.returncode == 0, done.stderr
    answer = json.loads(done.stdout or "{}")
    return str(answer.get("hookSpecificOutput", {}).get("additionalContext", ""))


Asked = list[dict[str, Any]]
Reply = Callable[[types.ElicitRequestParams], Awaitable[types.ElicitResult | types.ErrorData]]


class Door:
    """One SDK client session to the real server; tool texts and resource texts as strings."""

    def __init__(self, client: Client, asked: Asked) -> None:
        self.client = client
        self.asked = asked

    async def tool(self, name: str, arguments: dict[str, Any]) -> str:
        result = await self.client.call_tool(name, arguments)
        return "\n".join(getattr(c, "text", "") for c in result.content)

    async def resource(self, uri: str) -> str:
        read = await self.client.read_resource(uri)
        return "\n".join(getattr(c, "text", "") for c in read.contents)


def mcp_session(project: Path, era: str, body: Callable[[Door], Awaitable[None]],
                reply: Reply | None = None) -> Asked:
    """Run `body` against `python -m engram.mcp --workspace project`; returns the dialogs the
    server asked the client to show."""
    asked: Asked = []

    async def on_elicit(context: ClientRequestContext, params: types.ElicitRequestParams
                        ) -> types.ElicitResult | types.ErrorData:
        asked.append(params.model_dump(by_alias=True, exclude_none=True))
        if reply is None:
            return types.ElicitResult(action="decline")
        return await reply(params)

    async def run() -> None:
        params = StdioServerParameters(command=sys.executable, env=env(), cwd=str(project),
                                       args=["-m", "engram.mcp", "--workspace", str(project)])
        async with Client(params, mode=era, elicitation_callback=on_elicit) as client:
            await body(Door(client, asked))

    anyio.run(run)
    return asked
