"""Does a configured launch command start? Spawn it, send MCP `initialize`, close, bounded.

`engram doctor` runs this once per distinct command found in host configs. The child inherits
this process's environment and runs in the project directory, as a host started from here would;
its stdin is closed after the one request, so a working server answers and exits.
"""

from __future__ import annotations

import json
import subprocess
from dataclasses import dataclass
from pathlib import Path

import engram
from engram import jsontext

TIMEOUT_S = 15.0
PROTOCOL = "2025-06-18"


@dataclass(frozen=True)
class Probe:
    ok: bool
    detail: str  # the server's name and version, or why it did not start


def _request() -> str:
    return json.dumps({
        "jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": PROTOCOL, "capabilities": {},
                   "clientInfo": {"name": "engram-doctor", "version": engram.__version__}},
    }) + "\n"


def _answer(stdout: str) -> dict[str, object] | None:
    for line in stdout.splitlines():
        try:
            message = jsontext.loads(line)
        except ValueError:
            continue
        if isinstance(message, dict) and message.get("id") == 1 and "result" in message:
            result = message["result"]
            return result if isinstance(result, dict) else {}
    return None


def _last_line(text: str) -> str:
    lines = [x.strip() for x in text.splitlines() if x.strip()]
    return lines[-1][:200] if lines else ""


def starts(argv: list[str], cwd: Path, timeout: float = TIMEOUT_S) -> Probe:
    try:
        done = subprocess.run(argv, input=_request(), capture_output=True, text=True,  # noqa: S603
                              timeout=timeout, cwd=cwd, check=False)
    except FileNotFoundError:
        return Probe(False, "the command was not found")
    except PermissionError:
        return Probe(False, "the command is not executable")
    except subprocess.TimeoutExpired:
        return Probe(False, f"no answer to initialize within {timeout:.0f} s")
    except OSError as exc:
        return Probe(False, f"could not start: {exc.strerror or exc}")
    result = _answer(done.stdout)
    if result is None:
        why = _last_line(done.stderr) or f"exit code {done.returncode}, no initialize answer"
        return Probe(False, why)
    info = result.get("serverInfo")
    name = info.get("name", "?") if isinstance(info, dict) else "?"
    version = info.get("version", "?") if isinstance(info, dict) else "?"
    return Probe(True, f"{name} {version}")
