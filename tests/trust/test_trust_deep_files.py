"""Attack (issue 27, class 6): audits that abort. A deeply nested `memory.index.json` made a
save that had already written and hashed the memory print an error (exit 1), so the approval
token stayed usable and could commit again. An error after the write is now a
`storage.after_write` warning: the save reports success and the token is used up."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from tests.conftest import engram_cmd, subprocess_env
from tests.trust.trust_doors import cli

DEEP = '{"memories": ' + "[" * 100000 + "]" * 100000 + "}"
RULE = "Always run the linter before committing code."


def test_a_deep_memory_index_after_a_save_says_saved(
        layout: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (layout / "memory.index.json").write_text(DEEP)
    code, out = cli(capsys, "save", "-f", "rule", RULE)
    assert code == 0, out
    assert "saved and approved" in out and "memory.index.json" in out, out
    code, out = cli(capsys, "save", "-f", "--json", "rule", "Use tabs in Makefiles always.")
    envelope = json.loads(out[out.index("{"):])
    assert envelope["ok"] is True
    assert "storage.after_write" in [d["code"] for d in envelope["diagnostics"]]
    assert cli(capsys, "verify")[0] == 0


def test_the_token_cannot_commit_twice_after_a_late_error(
        layout: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from engram.proposals.api import commit, propose
    from engram.workspace import resolve

    (layout / "memory.index.json").write_text(DEEP)
    roots = resolve(None, layout.parent.parent)
    proposal = propose(roots, RULE, type="rule")
    first = commit(roots, proposal.token)
    assert first.data["written"], first.text
    with pytest.raises(Exception) as again:
        commit(roots, proposal.token)
    assert "approval" in str(getattr(again.value, "code", "")), again.value


# Through the real CLI (a subprocess): the read paths and rehash with a deep file ------------

DEEP_HASHES = '{"files": ' + "[" * 100000 + "]" * 100000 + "}"


def _run(project: Path, *args: str) -> subprocess.CompletedProcess[str]:
    done = subprocess.run([*engram_cmd(), *args], cwd=project, env=subprocess_env(),
                          capture_output=True, text=True, check=False, timeout=120)
    assert "Traceback" not in done.stderr, done.stderr
    return done


def _saved(project: Path) -> Path:
    assert _run(project, "init").returncode == 0
    assert _run(project, "save", "-f", "rule", RULE).returncode == 0
    return project / ".agents" / ".engram"


def test_a_deep_hash_file_degrades_with_a_code_on_every_read_path(project: Path) -> None:
    root = _saved(project)
    (root / "memory.hashes.json").write_text(DEEP_HASHES)
    load = _run(project, "load", "linter")
    assert load.returncode == 0 and RULE not in load.stdout, load.stdout  # unapproved: not shown
    verify = _run(project, "verify", "--json")
    assert verify.returncode == 4
    assert "integrity.hashes_invalid" in [d["code"] for d in json.loads(verify.stdout)
                                          ["diagnostics"]]
    doctor = _run(project, "doctor", "--json")
    codes = {f["code"] for f in json.loads(doctor.stdout)["data"]["findings"]}
    assert doctor.returncode == 1 and {"config.ok", "integrity.hashes_invalid"} <= codes, codes
    assert _run(project, "rehash", "--all").returncode == 0  # the fix the hint names works
    assert _run(project, "verify").returncode == 0


def test_a_deep_memory_index_never_fails_a_read_and_a_rehash_says_approved(
        project: Path) -> None:
    root = _saved(project)
    (root / "memory.index.json").write_text(DEEP)
    load = _run(project, "load", "linter")
    assert load.returncode == 0 and RULE in load.stdout, load.stdout + load.stderr
    assert _run(project, "verify").returncode == 0
    assert _run(project, "doctor").returncode == 0
    rule = next((root / "rules").glob("*.md"))
    rule.write_text(rule.read_text().replace("committing code.", "committing code or pushing."))
    done = _run(project, "rehash", "--all", "--json")
    envelope = json.loads(done.stdout)
    assert done.returncode == 0, done.stdout
    assert "storage.after_write" in [d["code"] for d in envelope["diagnostics"]]
    assert _run(project, "verify").returncode == 0  # the approval stands
