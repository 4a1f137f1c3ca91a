"""engram load / route / search through the CLI entry point: flags, text, --json envelopes."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from tests.conftest import engram_cmd, subprocess_env
from tests.helpers import run_cli
from tests.search.test_search_load import put


@pytest.fixture
def ws(project: Path) -> Path:
    root = project / ".agents" / ".engram"
    root.mkdir(parents=True)
    put(root, "pin-node-version", "rule", "- Pin Node 22 in .nvmrc.", tags=["node"])
    put(root, "node-upgrade-steps", "skill", "- Bump .nvmrc, rebuild, run e2e.",
        tags=["node"], depends_on=["pin-node-version"])
    return root


def test_route_prints_task_type_and_entries_in_load_order(
        ws: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli("route", "upgrade", "node", capsys=capsys)
    assert code == 0
    assert out.splitlines()[0] == "task type: other (confidence low)"
    assert out.index("pin-node-version") < out.index("node-upgrade-steps")
    code, out, _ = run_cli("route", "upgrade node", "--json", capsys=capsys)
    doc = json.loads(out)
    assert [e["id"] for e in doc["data"]["entries"]] == ["pin-node-version", "node-upgrade-steps"]
    assert set(doc["data"]) == {"entries", "task_type", "confidence"}


def test_search_limit_and_json_entries(ws: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli("search", "node", "--limit", "1", "--json", capsys=capsys)
    doc = json.loads(out)
    assert code == 0 and len(doc["data"]["entries"]) == 1
    assert set(doc["data"]["entries"][0]) == {"id", "type", "scope", "score"}


def test_load_flags_map_to_the_api(ws: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli("load", "node", "--disclosure", "cards", capsys=capsys)
    assert code == 0 and "- pin-node-version (rule, workspace): Pin node version" in out
    code, out, _ = run_cli("load", "--id", "pin-node-version", "--json", capsys=capsys)
    assert json.loads(out)["data"]["body_keys"] == ["workspace:pin-node-version"]
    code, out, _ = run_cli("load", "node", "--disclosure", "everything", "--json", capsys=capsys)
    doc = json.loads(out)
    assert code == 2 and doc["ok"] is False
    assert doc["diagnostics"][0]["code"] == "usage.disclosure"


def test_unknown_id_fails_with_not_found_and_exit_1(
        ws: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli("load", "--id", "nope", "--json", capsys=capsys)
    doc = json.loads(out)
    assert code == 1 and doc["diagnostics"][0]["code"] == "not_found"
    code, out, _ = run_cli("load", "--id", "../etc/passwd", "--json", capsys=capsys)
    assert code == 2 and json.loads(out)["diagnostics"][0]["code"] == "id.invalid"


def test_a_real_process_prints_one_json_document_on_stdout(ws: Path, project: Path) -> None:
    proc = subprocess.run([*engram_cmd(), "load", "node upgrade", "--json"], cwd=project,
                          env=subprocess_env(), capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    assert doc["data"]["selected_keys"] == ["workspace:pin-node-version",
                                            "workspace:node-upgrade-steps"]


def test_without_a_memory_root_the_answer_points_to_init(
        project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run_cli("load", "tag the release", capsys=capsys)
    assert code == 1 and out == ""
    assert err.startswith("error: no memory root here; run engram init")
    assert "releas" not in err.replace("release", "")  # no stemmed words before the cause
    for cmd in ("search", "route"):
        code, out, _ = run_cli(cmd, "tests", "--json", capsys=capsys)
        assert code == 1 and json.loads(out)["diagnostics"][0]["code"] == "load.no_root"


def test_a_bad_number_still_gets_the_json_envelope(
        ws: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli("load", "node", "--budget-tokens", "lots", "--json", capsys=capsys)
    doc = json.loads(out)
    assert code == 2 and doc["ok"] is False and doc["diagnostics"][0]["code"] == "usage.number"


def test_a_score_too_small_to_print_says_so_instead_of_zero(
        project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """In a one-memory store every task word is in every memory, so BM25 weighs it almost
    nothing: the routed memory must not read as "score 0.00" (a new user's first search)."""
    root = project / ".agents" / ".engram"
    root.mkdir(parents=True)
    put(root, "smoke-before-release", "rule", "- Run the smoke suite before a release.")
    outs = [run_cli(*args, capsys=capsys)[1] for args in (
        ("search", "smoke release"), ("route", "smoke release"),
        ("load", "smoke release", "--explain"))]
    for out in outs:
        assert "smoke-before-release" in out and "<0.01" in out and "0.00" not in out, out
    code, out, _ = run_cli("route", "smoke release", "--json", capsys=capsys)
    assert 0 < json.loads(out)["data"]["entries"][0]["score"] < 0.005
