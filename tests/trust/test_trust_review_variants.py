# ruff: noqa: F811  (the `repo` fixture is imported from test_trust_git_review)
"""Variants of issue 27 class 3 (review blinded by git itself) that the first tests did not try.

Each plays an agent with a shell that edits a memory together with its hash line after making
git's own view of the working tree lie: `engram verify` must still report `HIDDEN`.
"""

from __future__ import annotations

import hashlib
import struct
from pathlib import Path

import pytest

from tests.helpers import run_cli
from tests.trust.test_trust_git_review import (  # noqa: F401  (repo: the fixture)
    HAND,
    _assert_hidden,
    _root,
    _rule,
    git,
    hand_edit,
    repo,
)


def _forge_index(project: Path, paths: list[str]) -> None:
    """Rewrite `.git/index` so each path's entry carries the file's new stat data but its old
    blob id: git's stat check then says "unchanged" and never reads the bytes."""
    import os
    import time

    blobs = {p: git(project, "rev-parse", f":{p}").strip() for p in paths}
    then = time.time() - 3600  # older than the index, so git's racy-clean check trusts the stat
    for p in paths:
        os.utime(project / p, (then, then))
    git(project, "add", "--", *paths)  # stat data now matches the edited files
    index = project / ".git" / "index"
    data = bytearray(index.read_bytes()[:-20])
    for p, old in blobs.items():
        new = bytes.fromhex(git(project, "rev-parse", f":{p}").strip())
        at = data.find(new)
        assert at > 0
        data[at:at + 20] = bytes.fromhex(old)
    data += hashlib.sha1(bytes(data), usedforsecurity=False).digest()
    index.write_bytes(bytes(data))
    assert struct.unpack(">4sII", bytes(data[:12]))[0] == b"DIRC"


def test_a_forged_index_stat_hides_the_edit_from_git_and_verify(
        repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """No config, no attribute, no index flag: the index says the old bytes are on disk."""
    rel = hand_edit(repo)
    paths = [f".agents/.engram/{rel}", ".agents/.engram/memory.hashes.json"]
    _forge_index(repo, paths)
    assert git(repo, "status", "--porcelain") == ""  # the attack works on a reviewer
    assert HAND not in git(repo, "diff") + git(repo, "diff", "HEAD")
    assert HAND in (repo / paths[0]).read_text()
    _assert_hidden(repo, capsys, "review.index_stat")


def test_big_file_threshold_makes_a_committed_edit_binary(
        repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`core.bigFileThreshold` makes git diff and log -p show every file over it as binary;
    once committed, the working tree is clean, so asking `git diff HEAD` finds nothing."""
    git(repo, "config", "core.bigFileThreshold", "10")
    hand_edit(repo)
    git(repo, "commit", "-qam", "tidy")
    shown = git(repo, "log", "-p", "-1")
    assert HAND not in shown and "Binary files" in shown
    _assert_hidden(repo, capsys, "review.config")


def test_gitdir_file_pointing_elsewhere(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    real = repo.parent / "elsewhere.git"
    (repo / ".git").rename(real)
    (repo / ".git").write_text(f"gitdir: {real}\n")
    git(repo, "config", "core.worktree", str(repo))
    (real / "info").mkdir(exist_ok=True)
    (real / "info" / "attributes").write_text(".agents/** -diff\n")
    hand_edit(repo)
    assert HAND not in git(repo, "diff")
    rc, out, err = run_cli("verify", capsys=capsys)
    assert rc == 4 and "HIDDEN" in out, out + err


def test_linked_worktree_common_dir_attributes(
        repo: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    wt = repo.parent / "wt"
    git(repo, "worktree", "add", "-q", str(wt))
    (repo / ".git" / "info").mkdir(exist_ok=True)
    (repo / ".git" / "info" / "attributes").write_text(".agents/** -diff\n")
    monkeypatch.chdir(wt)
    hand_edit(wt)
    assert HAND not in git(wt, "diff")
    rc, out, err = run_cli("--workspace", str(wt), "verify", capsys=capsys)
    assert rc == 4 and "HIDDEN" in out, out + err


def test_info_exclude_hides_a_new_planted_memory(
        repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    import json

    root = _root(repo)
    new = root / "rules" / "planted.md"
    new.write_text(_rule(repo).read_text().replace("Rotate deploy keys every quarter.", HAND))
    (repo / ".git" / "info").mkdir(exist_ok=True)
    (repo / ".git" / "info" / "exclude").write_text(".agents/.engram/rules/planted.md\n")
    hashes = json.loads((root / "memory.hashes.json").read_text())
    hashes["rules/planted.md"] = hashlib.sha256(new.read_bytes()).hexdigest()
    (root / "memory.hashes.json").write_text(json.dumps(hashes, indent=2))
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "tidy")  # only the hash line is committed
    assert "planted.md" not in git(repo, "status", "--porcelain")
    _assert_hidden(repo, capsys, "review.ignored")
