"""`engram agent-hook --host claude`: read a hook payload on stdin, print the hook's JSON answer.

Whatever goes wrong — bad JSON, an unknown host, a broken root, a routing error — the answer is
`{}` and the exit code 0, because a hook that fails would break the user's agent session.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from engram.outcome import Outcome

HOSTS = ("claude",)


def configure_agent_hook(p: argparse.ArgumentParser) -> None:
    p.add_argument("--host", default="claude", help="the host sending the payload (claude)")


def answer(raw: str, host: str) -> dict[str, Any]:
    if host not in HOSTS:
        return {}
    try:
        from engram.config import read_env
        from engram.hosts.hooks import respond

        return respond(raw, read_env())
    except Exception:  # noqa: BLE001 - last guard: a hook never breaks its host
        return {}


def run_agent_hook(args: argparse.Namespace, ctx: Any) -> Outcome:
    try:
        raw = sys.stdin.read()
    except (OSError, UnicodeDecodeError):
        raw = ""
    return Outcome(text=json.dumps(answer(raw, args.host), ensure_ascii=False))
