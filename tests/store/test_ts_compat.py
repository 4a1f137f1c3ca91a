"""Teams mixing with the TypeScript Engram: a workspace it wrote (tests/fixtures/ts_workspace,
see its PROVENANCE.md) stays usable by both tools after Engram for Python writes to it."""

from __future__ import annotations

import difflib
import json
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from engram.store.format import parse_memory
from engram.store.ts_index import entry, updated_index
from tests.conftest import FIXTURES
from tests.helpers import run_cli

Cap = pytest.CaptureFixture[str]
MP = pytest.MonkeyPatch

TS_ROOT = FIXTURES / "ts_workspace" / ".agents" / ".engram"
GRAFANA = "Grafana dashboards live in the ops repository under dashboards."
GRAFANA_FILE = "knowledge/grafana-dashboards-live-ops-repository.md"  # a new id: short
# The entry keys in the order the TypeScript tool writes them (its MemoryEntry type, 0.0.28).
_TS_ORDER_TEXT = """
id type scope tags summary routingTerms file author authorName authorEmail legacyAuthorEmail
confidence authority evidenceStatus ignored updated dependsOn dependencyDepth role lifecycle
reviewAfter lastVerified evidenceRefs derivedFrom revision supersedes supersededBy validFrom
validUntil lastConfirmed archivedAt
"""
TS_ORDER = _TS_ORDER_TEXT.split()
STAMP = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$")


@pytest.fixture
def root(project: Path) -> Path:
    target = project / ".agents" / ".engram"
    shutil.copytree(TS_ROOT, target)
    return target


def _index(root: Path) -> dict[str, Any]:
    return json.loads((root / "memory.index.json").read_text(encoding="utf-8"))  # type: ignore[no-any-return]


def _ts_entries() -> list[dict[str, Any]]:
    return json.loads((TS_ROOT / "memory.index.json").read_text("utf-8"))["entries"]  # type: ignore[no-any-return]


@pytest.mark.parametrize("ts", _ts_entries(), ids=lambda e: e["type"])
def test_our_entry_has_the_ts_tools_shape_for_its_own_files(ts: dict[str, Any]) -> None:
    text = (TS_ROOT / ts["file"]).read_text(encoding="utf-8")
    ours = entry(parse_memory(text, ts["file"], "workspace"))
    assert list(ours) == list(ts)  # the same keys in the same order
    for key in ts:
        if key in ("summary", "routingTerms"):  # our own derivation, same type
            assert type(ours[key]) is type(ts[key]) and ours[key]
        else:
            assert ours[key] == ts[key], key


def test_a_save_keeps_the_ts_index_current(root: Path, project: Path, capsys: Cap) -> None:
    for args in (["init", "-q"], ["config", "user.name", "Ada Tester"],
                 ["config", "user.email", "ada@example.org"], ["add", "-A"],
                 ["commit", "-qm", "memory of the TypeScript tool"]):
        # Committed: a first sight trusts the lines git holds, not the working tree alone
        # (docs/safety.md, "Review of class 4").
        subprocess.run(["git", *args], cwd=project, check=True)
    before = _index(root)
    code, out, err = run_cli("save", "knowledge", "--scope", "workspace", "--force", GRAFANA,
                             capsys=capsys)
    assert code == 0, out + err
    after = _index(root)
    assert after["version"] == before["version"] == "0.0.28"
    assert STAMP.match(after["last_updated"]) and after["last_updated"] != before["last_updated"]
    files = [e["file"] for e in after["entries"]]
    assert files == sorted(files) and GRAFANA_FILE in files
    new = next(e for e in after["entries"] if e["file"] == GRAFANA_FILE)
    assert [k for k in TS_ORDER if k in new] == list(new)  # a subsequence of the TS order
    assert {"grafana", "dashboards", "ops"} <= set(new["routingTerms"])
    assert new["author"] == new["authorEmail"] == "ada@example.org"
    assert new["authorName"] == "Ada Tester" and new["ignored"] is False
    # The TypeScript tool's own entries are untouched.
    assert [e for e in after["entries"] if e["file"] != GRAFANA_FILE] == before["entries"]
    assert run_cli("verify", capsys=capsys)[0] == 0


def test_archive_drops_the_entry(root: Path, capsys: Cap) -> None:
    rule = "run-the-smoke-suite-before-tagging-a-release"
    code, out, err = run_cli("archive", rule, "--reason", "replaced by CI", capsys=capsys)
    assert code == 0, out + err
    assert [e["id"] for e in _index(root)["entries"]] == [
        "billing-owns-invoice-numbering-the-api-only-forwards-requests-to-it",
        "skill-tag-a-release-in-three-steps-bump-the-version-update-the"]


def test_a_root_without_a_ts_index_gets_none(project: Path, capsys: Cap) -> None:
    run_cli("init", capsys=capsys)
    assert run_cli("save", "knowledge", "--force", GRAFANA, capsys=capsys)[0] == 0
    assert not (project / ".agents/.engram/memory.index.json").exists()


def test_an_index_it_cannot_read_is_left_alone() -> None:
    assert updated_index("{not json", [], []) is None
    assert updated_index('{"entries": 3}', [], []) is None


def test_set_role_keeps_the_ts_configs_key_order(root: Path, capsys: Cap) -> None:
    path = root / "engram.config.json"
    old = path.read_text(encoding="utf-8")
    assert run_cli("set-role", "backend", capsys=capsys)[0] == 0
    new = path.read_text(encoding="utf-8")
    assert list(json.loads(new)) == list(json.loads(old))
    changed = [ln for ln in difflib.unified_diff(old.splitlines(), new.splitlines(), n=0)
               if ln[:1] in "+-" and not ln.startswith(("+++", "---"))]
    assert changed == ['-  "roles": [],', '+  "roles": [', '+    "backend"', '+  ],']


def test_rehash_and_save_keep_the_ts_hashes_order(root: Path, capsys: Cap) -> None:
    path = root / "memory.hashes.json"
    old = path.read_text(encoding="utf-8")
    assert run_cli("rehash", "--all", capsys=capsys)[0] == 0
    assert path.read_text(encoding="utf-8") == old  # nothing changed, nothing re-sorted
    run_cli("save", "knowledge", "--scope", "workspace", "--force", GRAFANA, capsys=capsys)
    keys = list(json.loads(path.read_text(encoding="utf-8")))
    assert keys == [*json.loads(old), GRAFANA_FILE]


def test_our_own_hashes_stay_sorted(project: Path, capsys: Cap) -> None:
    run_cli("init", capsys=capsys)
    for text in ("Zebra crossings need a light.", "Apples ship on Mondays."):
        run_cli("save", "knowledge", "--force", text, capsys=capsys)
    keys = list(json.loads((project / ".agents/.engram/memory.hashes.json").read_text("utf-8")))
    assert keys == sorted(keys) and len(keys) == 2


def test_init_appends_our_ignore_lines_to_a_ts_gitignore(root: Path, capsys: Cap) -> None:
    old = (root / ".gitignore").read_text(encoding="utf-8")
    assert run_cli("init", capsys=capsys)[0] == 0
    new = (root / ".gitignore").read_text(encoding="utf-8")
    assert new.startswith(old)
    assert {".cache/", ".lock"} <= set(new[len(old):].split())


def test_role_scoped_ts_memories_stay_hidden_without_a_role(root: Path, capsys: Cap) -> None:
    """SPEC §6.1 (README, compatibility): unlike the TypeScript tool, no role set hides them."""
    _, out, _ = run_cli("load", "tag the release smoke suite", capsys=capsys)
    assert "run-the-smoke-suite-before-tagging-a-release" not in out
    run_cli("set-role", "backend", capsys=capsys)
    _, out, _ = run_cli("load", "tag the release smoke suite", capsys=capsys)
    assert "run-the-smoke-suite-before-tagging-a-release" in out


def test_a_write_without_init_still_ignores_our_lock_and_cache(root: Path, capsys: Cap) -> None:
    old = (root / ".gitignore").read_text(encoding="utf-8")
    run_cli("save", "knowledge", "--scope", "workspace", "--force", GRAFANA, capsys=capsys)
    new = (root / ".gitignore").read_text(encoding="utf-8")
    assert new.startswith(old) and {".cache/", ".lock"} <= set(new.split())


def test_a_hand_edit_approved_by_rehash_reaches_the_ts_index(root: Path, capsys: Cap) -> None:
    rel = "knowledge/billing-owns-invoice-numbering-the-api-only-forwards-requests-to-it.md"
    path = root / rel
    path.write_text(path.read_text("utf-8").replace(
        "forwards requests to it.", "forwards requests to it through the gateway."), "utf-8")
    assert run_cli("rehash", "--all", capsys=capsys)[0] == 0
    billing = next(e for e in _index(root)["entries"] if e["file"] == rel)
    assert "gateway" in billing["routingTerms"]
