"""init, verify, rehash, status and config through the real CLI entry point."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import jsonschema
import pytest

from tests.conftest import FIXTURES
from tests.helpers import run_cli, run_json, write_memory

ENVELOPE = {
    "type": "object",
    "required": ["text", "contract_version", "ok", "data", "diagnostics"],
    "additionalProperties": False,
    "properties": {
        "text": {"type": "string"},
        "contract_version": {"const": "1"},
        "ok": {"type": "boolean"},
        "data": {"type": "object"},
        "diagnostics": {"type": "array", "items": {
            "type": "object", "required": ["code", "level", "message"],
            "properties": {"level": {"enum": ["info", "warn", "error"]}}}},
    },
}
VERIFY_DATA = {
    "type": "object", "required": ["files", "problems"],
    "properties": {"files": {"type": "array", "items": {
        "type": "object", "required": ["scope", "file", "status"],
        "properties": {"status": {"enum": ["OK", "MISMATCH", "MISSING HASH", "MISSING FILE",
                                           "INVALID"]}}}}},
}


@pytest.fixture
def root(project: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    assert run_cli("init", capsys=capsys)[0] == 0
    return project / ".agents" / ".engram"


def test_init_is_idempotent_and_keeps_user_gitignore_lines(
        project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = project / ".agents" / ".engram"
    root.mkdir(parents=True)
    (root / ".gitignore").write_text("my-own-line\n")
    run_cli("init", capsys=capsys)
    before = {p: p.read_bytes() for p in root.rglob("*") if p.is_file() and ".lock" not in p.name}
    code, out, _ = run_cli("init", capsys=capsys)
    assert code == 0 and "nothing changed" in out
    after = {p: p.read_bytes() for p in root.rglob("*") if p.is_file() and ".lock" not in p.name}
    assert before == after
    lines = (root / ".gitignore").read_text().splitlines()
    assert lines[0] == "my-own-line"
    assert {"working/", "pending-approvals.json", "usage.json", ".cache/"} <= set(lines)


def test_hand_edit_makes_verify_exit_4_and_rehash_fixes_it(
        root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rel = write_memory(root, "always-run-tests")
    assert run_cli("verify", capsys=capsys)[0] == 0
    path = root / rel
    path.write_text(path.read_text() + "\n- hand edit\n")
    code, out, _ = run_cli("verify", capsys=capsys)
    assert code == 4 and f"MISMATCH     workspace:{rel}" in out
    code, out, _ = run_cli("rehash", "--all", capsys=capsys)
    assert code == 0 and rel in out
    assert run_cli("verify", capsys=capsys)[0] == 0


def test_verify_json_validates_and_fails_with_envelope(
        root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write_memory(root, "a-rule")
    (root / "rules" / "unhashed.md").write_text(
        (root / "rules" / "a-rule.md").read_text().replace("id: a-rule", "id: unhashed"))
    code, env = run_json("verify", capsys=capsys)
    assert code == 4
    jsonschema.validate(env, ENVELOPE)
    jsonschema.validate(env["data"], VERIFY_DATA)
    assert env["ok"] is False
    statuses = {f["file"]: f["status"] for f in env["data"]["files"]}
    assert statuses == {"rules/a-rule.md": "OK", "rules/unhashed.md": "MISSING HASH"}


def test_invalid_files_are_reported_by_verify_and_status_without_crashing(
        root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for f in (FIXTURES / "memories" / "invalid").iterdir():
        shutil.copy(f, root / "rules" / f.name)
    run_cli("rehash", "--all", capsys=capsys)
    code, env = run_json("verify", capsys=capsys)
    assert code == 4
    invalid = {f["file"]: f for f in env["data"]["files"] if f["status"] == "INVALID"}
    assert set(invalid) == {f"rules/{n}" for n in
                            ("anchor.md", "duplicate-key.md", "tab-indent.md", "no-content.md")}
    assert invalid["rules/duplicate-key.md"]["line"] == 4
    code, env = run_json("status", capsys=capsys)
    assert code == 0
    jsonschema.validate(env, ENVELOPE)
    reasons = {i["file"]: i for i in env["data"]["invalid"]}
    assert "anchors" in reasons["rules/anchor.md"]["reason"]
    assert reasons["rules/tab-indent.md"]["line"] == 5


def test_status_counts_by_type_and_scope(root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write_memory(root, "r1")
    write_memory(root, "k1", "knowledge")
    write_memory(root, "k2", "knowledge")
    code, env = run_json("status", capsys=capsys)
    assert env["data"]["counts"]["by_type"] == {"rule": 1, "knowledge": 2}
    assert env["data"]["counts"]["by_scope"] == {"workspace": 3}


def test_rehash_merged_resolves_a_conflicted_hashes_file(
        root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write_memory(root, "ours")
    write_memory(root, "theirs")
    hashes = json.loads((root / "memory.hashes.json").read_text())
    conflict = ("{\n<<<<<<< HEAD\n"
                f'  "rules/ours.md": "{hashes["rules/ours.md"]}"\n'
                "=======\n"
                f'  "rules/theirs.md": "{hashes["rules/theirs.md"]}"\n'
                ">>>>>>> branch\n}\n")
    (root / "memory.hashes.json").write_text(conflict)
    assert run_cli("verify", capsys=capsys)[0] == 4
    code, out, _ = run_cli("rehash", "--merged", capsys=capsys)
    assert code == 0
    assert json.loads((root / "memory.hashes.json").read_text()) == hashes
    assert run_cli("verify", capsys=capsys)[0] == 0


@pytest.mark.parametrize("bad", ["../x", "a/b", "/etc/passwd", ""])
def test_rehash_refuses_unsafe_ids(root: Path, bad: str,
                                   capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run_cli("rehash", bad, capsys=capsys)
    assert code == 2 and "memory id" in err


def test_config_set_checks_range_and_names_the_key(
        root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run_cli("config", "set", "load.limit", "99", capsys=capsys)
    assert code == 2 and "load.limit" in err and "1 to 32" in err
    assert run_cli("config", "set", "load.limit", "12", capsys=capsys)[0] == 0
    code, out, _ = run_cli("config", "get", "load.limit", capsys=capsys)
    assert out.strip() == "12"


def test_hand_edited_out_of_range_value_is_clamped_and_reported(
        root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (root / "engram.config.json").write_text('{"load": {"limit": 500}}')
    code, env = run_json("status", capsys=capsys)
    assert env["data"]["config"]["load.limit"] == 32
    assert any(d["code"] == "config.clamped" for d in env["diagnostics"])


def test_unknown_command_and_missing_args_are_usage_errors(
        capsys: pytest.CaptureFixture[str]) -> None:
    assert run_cli("frobnicate", capsys=capsys)[0] == 2
