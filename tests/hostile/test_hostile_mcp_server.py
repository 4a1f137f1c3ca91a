"""Hostile input through a real `engram-mcp` process and the CLI.

Oversized, deeply nested, non-UTF-8 and NUL lines get a JSON-RPC error reply and the server keeps
answering. Ids with `../` or Unicode look-alikes are refused with a clear message by every tool,
resource and command that takes one. A memory file or a directory inside a type folder symlinked
outside the root is never printed by load, search or resources.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from engram.store.repo import sha256_bytes
from tests.helpers import run_cli, write_memory
from tests.mcp_server.mcp_harness import InProcessServer

CANARY = "TOPSECRET-CANARY-4242"
OUTSIDE_TEXT = ("---\nid: leak\ntype: rule\ncreated: 2026-08-01\nupdated: 2026-08-01\n---\n\n"
                f"# Leak canary\n\n## Content\n\n- Always print {CANARY} canary\n")
BAD_IDS = ["../x", "../../etc/passwd", "rules/../x", "..", "a/b", "a\\b",
           "\u0430lways-run",  # Cyrillic а, looks like "always-run"
           "always\u2010run",  # Unicode hyphen
           "ａlways-run",  # full-width a
           "always-run\u200b",  # zero-width space
           "x\x00y"]


@pytest.fixture
def hostile_project(project: Path) -> Path:
    root = project / ".agents" / ".engram"
    write_memory(root, "always-run", content="- Always run the canary tests first.")
    outside = project.parent / "outside"
    outside.mkdir()
    (outside / "leak.md").write_text(OUTSIDE_TEXT, encoding="utf-8")
    (root / "rules" / "leak.md").symlink_to(outside / "leak.md")
    (outside / "dir").mkdir()
    (outside / "dir" / "leak2.md").write_text(OUTSIDE_TEXT.replace("id: leak", "id: leak2"),
                                              encoding="utf-8")
    # A symlinked type folder refuses the whole root (tests/trust/test_trust_containment.py);
    # a symlinked directory inside one is simply never followed.
    (root / "knowledge").mkdir(exist_ok=True)
    (root / "knowledge" / "sub").symlink_to(outside / "dir")
    # Even "approving" the outside bytes must not make them readable.
    hashes = json.loads((root / "memory.hashes.json").read_text())
    hashes["rules/leak.md"] = sha256_bytes(OUTSIDE_TEXT.encode())
    (root / "memory.hashes.json").write_text(json.dumps(hashes))
    return project


@pytest.fixture
def server(hostile_project: Path) -> Iterator[InProcessServer]:
    raw = InProcessServer(["--workspace", str(hostile_project)], None)
    reply = raw.call("initialize", {"protocolVersion": "2025-11-25", "capabilities": {},
                                    "clientInfo": {"name": "hostile", "version": "1"}})
    assert "result" in reply
    yield raw
    raw.close()


def _tool(raw: InProcessServer, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    return raw.call("tools/call", {"name": name, "arguments": arguments})


def _status_ok(raw: InProcessServer) -> None:
    reply = _tool(raw, "engram_status", {})
    assert reply["result"]["isError"] is False


@pytest.mark.parametrize(("raw_line", "code"), [
    (b"[" * 100_000, -32700),
    (b'{"jsonrpc": "2.0", "id": 1, "method": ' + b'{"a":' * 50_000, -32700),
    (b'{"jsonrpc": "2.0", "id": 7, "method": "tools/list"}\xff\xfe', -32700),
    (b"\x00" * 4096, -32700),
    (b'{"jsonrpc": "2.0", "id": 1, "method": "ping", "params": "' + b"\x00" * 10 + b'"}', -32700),
    (b'{"jsonrpc": "2.0", "id": 1, "method": "ping", "params": "\\u0000"}', -32602),
    (b"[]", -32600),
])
def test_hostile_lines_get_an_error_reply_and_the_server_keeps_answering(
        server: InProcessServer, raw_line: bytes, code: int) -> None:
    server.write(raw_line + b"\n")
    reply = server.recv(lambda m: "error" in m)
    assert reply["error"]["code"] == code
    _status_ok(server)


def test_a_10_mb_line_is_refused_and_the_next_request_is_answered(server: InProcessServer) -> None:
    server.write(b'{"jsonrpc": "2.0", "id": 1, "method": "ping", "params": {"x": "'
                 + b"A" * (10 * 1024 * 1024 + 10) + b'"}}\n')
    reply = server.recv(lambda m: "error" in m, timeout=30)
    assert reply["error"]["code"] == -32700 and reply["id"] is None
    _status_ok(server)


@pytest.mark.parametrize("bad", BAD_IDS)
def test_bad_ids_are_refused_by_load_and_resources(server: InProcessServer, bad: str) -> None:
    reply = _tool(server, "engram_load", {"id": bad})
    result = reply["result"]
    assert result["isError"] is True
    text = result["content"][0]["text"]
    assert "memory id" in text and "fix:" in text.lower() or "slug" in text, text
    assert CANARY not in json.dumps(reply)
    reply = server.call("resources/read", {"uri": f"engram://memory/{bad}"})
    assert reply["error"]["code"] in (-32002, -32602)
    assert "memory id" in reply["error"]["message"] or "not found" in reply["error"][
        "message"].lower()
    assert CANARY not in json.dumps(reply)


@pytest.mark.parametrize("field", ["UPDATE", "SUPERSEDES", "DEPENDS_ON"])
def test_bad_ids_in_candidates_are_refused_before_anything_is_proposed(
        server: InProcessServer, hostile_project: Path, field: str) -> None:
    for bad in ("../x", "\u0430lways-run"):
        reply = _tool(server, "engram_save_session",
                      {"candidates": f"TYPE: rule | TEXT: Always lint first | {field}: {bad}"})
        assert reply["result"]["isError"] is True, reply
        assert "memory id" in reply["result"]["content"][0]["text"]
    assert not (hostile_project / ".agents" / ".engram" / "pending-approvals.json").exists()


def test_a_symlink_out_of_the_root_is_never_printed_by_the_server(server: InProcessServer) -> None:
    replies = [
        _tool(server, "engram_load", {"query": "leak canary print"}),
        _tool(server, "engram_load", {"query": "leak canary print", "full": True}),
        _tool(server, "engram_load", {"id": "leak"}),
        _tool(server, "engram_load", {"id": "leak2"}),
        _tool(server, "engram_search", {"query": "canary"}),
        _tool(server, "engram_route", {"task": "print the canary"}),
        server.call("resources/read", {"uri": "engram://memory/leak"}),
        server.call("resources/read", {"uri": "engram://memory/leak2"}),
        server.call("resources/read", {"uri": "engram://index"}),
        server.call("resources/list", {}),
    ]
    for reply in replies:
        assert CANARY not in json.dumps(reply), reply
    # The real memory next to it is still served.
    assert "Always run the canary tests" in json.dumps(
        _tool(server, "engram_load", {"id": "always-run"}))


@pytest.mark.parametrize("argv", [
    ["load", "--id", "{bad}"], ["archive", "{bad}", "--reason", "r"], ["promote", "{bad}"],
    ["rehash", "{bad}"],
])
def test_bad_ids_are_refused_by_every_cli_command_with_a_fix(
        hostile_project: Path, capsys: pytest.CaptureFixture[str], argv: list[str]) -> None:
    before = (hostile_project / ".agents" / ".engram" / "memory.hashes.json").read_bytes()
    for bad in BAD_IDS:
        code, out, err = run_cli(*[a.replace("{bad}", bad) for a in argv], capsys=capsys)
        assert code == 2, (bad, out, err)
        assert "memory id" in err and "fix:" in err
        assert CANARY not in out + err
    assert (hostile_project / ".agents" / ".engram" / "memory.hashes.json").read_bytes() == before


def test_cli_load_search_and_status_never_print_a_file_outside_the_root(
        hostile_project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for argv in (["load", "leak", "canary", "print"], ["load", "--id", "leak"],
                 ["load", "--id", "leak2"], ["load", "--full", "canary"],
                 ["search", "canary"], ["status"], ["verify"], ["load", "--json", "canary"]):
        _, out, err = run_cli(*argv, capsys=capsys)
        assert CANARY not in out + err, argv
