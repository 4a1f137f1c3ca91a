"""One host's session: copy the project, link, mint a token, run the host against the mock.

Everything a check needs afterwards is in `Session`: the recorded requests per turn, the
server's own answers for the same calls, the store before and after, and the token control.
"""

from __future__ import annotations

import contextlib
import json
import subprocess
import tempfile
import time
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from . import project as proj
from .hosts import CLAUDE_SESSION, Ctx, Host, base_env, stream_input
from .mcpclient import Server, approval_token, content_text
from .mockmodel import MockModel
from .received import fetch_from_map
from .wire import Call


@dataclass
class Turn:
    prompts: list[str]
    requests: list[dict[str, Any]]
    exit_code: int
    seconds: float
    output: str  # the host's stdout and stderr (last 20,000 characters)


@dataclass
class Session:
    host: Host
    ctx: Ctx
    link_output: str = ""
    server_tools: list[str] = field(default_factory=list)
    reference: dict[str, str] = field(default_factory=dict)  # step -> server content[0].text
    # Data of the server's own engram_search answer for the scripted query: the ids it found.
    search_ids: list[str] = field(default_factory=list)
    # The server's own engram_load of MAP_QUERY: the ids its pack routed and its map listed.
    map_pack: list[str] = field(default_factory=list)
    map_ids: list[str] = field(default_factory=list)
    steps: list[str] = field(default_factory=list)  # the scripted calls' names, in call order
    commit_target: str = ""
    store_before: dict[str, bytes] = field(default_factory=dict)
    store_after: dict[str, bytes] = field(default_factory=dict)
    # Committing the token directly after the host run: did it write (the token was valid)?
    token_valid: bool = False
    token_note: str = ""
    turns: list[Turn] = field(default_factory=list)
    error: str = ""


MEMORY_URI = "engram://memory/"  # + id: one memory, as the server's resource template says
SEARCH = Call("engram_search", {"query": proj.SEARCH_QUERY})
MAP_LOAD = Call("engram_load", {"query": proj.MAP_QUERY})
# The model's scripted calls before engram_commit, each named for the scenario that reads its
# result (`words` reads the `save` result).
SCRIPT: list[tuple[str, Call]] = [
    ("load", Call("engram_load", {"query": proj.LOAD_QUERY})),
    ("save", Call("engram_save", {"text": proj.SAVED.text, "type": "rule"})),
    ("budget", Call("engram_load", {"query": proj.LOAD_QUERY, "budget_tokens": proj.BUDGET})),
    ("search", SEARCH),
    ("error", Call("engram_load", {"id": proj.BAD_ID})),
    ("note", Call("engram_note", {"text": proj.NOTED.text})),
    # A load whose pack cannot hold every memory on its subject, so its text ends with the map;
    # then the model fetches the first map id its pack does not hold, read from what it got.
    ("map", MAP_LOAD),
    ("fetch", Call("engram_load", {}, pick=fetch_from_map)),
]
# Steps whose server-side text is kept as the reference (how often a marker may appear).
REFERENCE = frozenset({"load", "save", "note"})


def _server(ctx: Ctx) -> Server:
    env = base_env(ctx)
    return Server([str(ctx.engram_bin / "engram-mcp")], ctx.project, env)


def _reference(server: Server, s: Session) -> str:
    """The server's own answers the checks compare with (texts, the ids its search finds);
    returns the rule's resource URI."""
    for step, call in SCRIPT:
        if step in REFERENCE:
            s.reference[step] = content_text(server.call(call.tool, call.args))
    found = server.call(SEARCH.tool, SEARCH.args)
    entries = ((found.get("structuredContent") or {}).get("data") or {}).get("entries") or []
    s.search_ids = [str(e.get("id", "")) for e in entries]
    rule = [i for i in s.search_ids if i.startswith(proj.RULE_ID)]
    if not rule:
        raise RuntimeError(f"the server's own engram_search did not find the rule: "
                           f"{content_text(found)[:300]}")
    data = (server.call(MAP_LOAD.tool, MAP_LOAD.args).get("structuredContent") or {}).get(
        "data") or {}
    s.map_pack = [str(k).split(":", 1)[-1] for k in data.get("selected_keys") or []]
    s.map_ids = [str(k).split(":", 1)[-1] for k in data.get("map_ids") or []]
    uri = MEMORY_URI + rule[0]
    s.reference["resource"] = server.read(uri)
    return uri


def _run_host(host: Host, ctx: Ctx, model: MockModel, record: Path, prompts: list[str],
              resume: str | None, timeout: int) -> Turn:
    model.record = record
    record.write_text("", encoding="utf-8")
    argv = ["timeout", "-k", "5", str(timeout), *host.argv(ctx, prompts, resume)]
    start = time.monotonic()
    if len(prompts) > 1:
        code, stdout, stderr = _conversation(argv, ctx, host.env(ctx), prompts)
    else:
        done = subprocess.run(argv, cwd=ctx.project, env=host.env(ctx), input="",
                              capture_output=True, text=True, check=False)
        code, stdout, stderr = done.returncode, done.stdout, done.stderr
    seconds = time.monotonic() - start
    log = record.with_suffix(".out")
    log.write_text(f"$ {' '.join(argv[4:])}\nexit {code}\n--- stdout\n{stdout}"
                   f"\n--- stderr\n{stderr}", encoding="utf-8")
    requests = [json.loads(line) for line in record.read_text(encoding="utf-8").splitlines()]
    output = (stdout + "\n" + stderr).strip()[-20000:]
    return Turn(prompts, requests, code, seconds, output)


def _conversation(argv: list[str], ctx: Ctx, env: dict[str, str],
                  prompts: list[str]) -> tuple[int, str, str]:
    """Send each prompt only after the previous turn's result line: one turn per prompt.

    (Written all at once, a later prompt is queued into the running turn and is no turn of its
    own.) `timeout` in argv bounds the whole exchange: a killed host closes its output.
    """
    with tempfile.TemporaryFile("w+") as err:
        proc = subprocess.Popen(argv, cwd=ctx.project, env=env, stdin=subprocess.PIPE,
                                stdout=subprocess.PIPE, stderr=err, text=True)
        if proc.stdin is None or proc.stdout is None:
            raise RuntimeError("no pipes to the host")
        lines: list[str] = []
        for prompt in prompts:
            try:
                proc.stdin.write(stream_input([prompt]))
                proc.stdin.flush()
            except BrokenPipeError:
                break  # the host ended early: its output and exit code say why
            for line in proc.stdout:
                lines.append(line)
                if _is_result(line):
                    break
        with contextlib.suppress(BrokenPipeError):
            proc.stdin.close()
        lines += proc.stdout.readlines()
        code = proc.wait()
        err.seek(0)
        return code, "".join(lines), err.read()


def _is_result(line: str) -> bool:
    """A turn's result line (2.1.332 moved `"type"` from the first key to near the last)."""
    try:
        event = json.loads(line)
    except ValueError:
        return False
    return isinstance(event, dict) and event.get("type") == "result"


def run_session(host: Host, ctx: Ctx, template: Path, out: Path, timeout: int) -> Session:
    model = MockModel()
    model.start()
    try:
        return _session(host, replace(ctx, port=model.port), model, template, out, timeout)
    finally:
        model.stop()


def _session(host: Host, ctx: Ctx, model: MockModel, template: Path, out: Path,
             timeout: int) -> Session:
    s = Session(host, ctx)
    try:
        proj.copy_project(template, ctx.project)
        (ctx.home / "tmp").mkdir(parents=True, exist_ok=True)
        host.setup(ctx)
        link_env = base_env(ctx)
        for args in host.link:
            if not ctx.engram_on_path and "--global" not in args:
                # A project file gets the bare engram-mcp (shared with a team, found on each
                # PATH); off PATH, only this machine's absolute path can start it.
                args = (*args[:-1], "--launcher", "path", args[-1])
            s.link_output += proj.run([str(ctx.engram_bin / "engram"), *args], ctx.project,
                                      link_env)
        with _server(ctx) as server:
            s.server_tools = server.tool_names()
            rule_uri = _reference(server, s)
            minted = server.call("engram_save", {"text": proj.COMMITTED.text, "type": "rule"})
        token = approval_token(minted)
        items = ((minted.get("structuredContent") or {}).get("data") or {}).get("items") or []
        s.commit_target = str(items[0].get("id", "")) if items else ""
        s.store_before = proj.store_files(ctx.project)
    except (RuntimeError, OSError, subprocess.SubprocessError, ValueError) as exc:
        s.error = f"setup: {exc}"
        return s
    # engram_commit comes last: a host that refuses it may end the turn there (OpenCode).
    script = [*SCRIPT, ("resource", host.api.read_resource(rule_uri)),
              ("commit", Call("engram_commit", {"approval_token": token, "approve": "all"}))]
    s.steps = [step for step, _ in script]
    model.script = [call for _, call in script]
    first = [proj.PROMPT_1, proj.PROMPT_2] if host.hooks else [proj.PROMPT_1]
    s.turns.append(_run_host(host, ctx, model, out / f"{host.name}-run1.jsonl", first, None,
                             timeout))
    if host.hooks:
        s.turns.append(_run_host(host, ctx, model, out / f"{host.name}-run2-resumed.jsonl",
                                 [proj.PROMPT_3], CLAUDE_SESSION, timeout))
    s.store_after = proj.store_files(ctx.project)
    s.token_valid, s.token_note = _control(ctx, token)
    return s


def _control(ctx: Ctx, token: str) -> tuple[bool, str]:
    """Commit the token directly: proves the host's refusal was the gate, not a bad token."""
    try:
        with _server(ctx) as server:
            result = server.call("engram_commit", {"approval_token": token, "approve": "all"})
    except (RuntimeError, OSError, subprocess.SubprocessError, ValueError) as exc:
        return False, f"error: {exc}"
    text = content_text(result)
    return not result.get("isError") and "written" in text, text[:200]
