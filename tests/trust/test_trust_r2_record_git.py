"""Review of class 4 (docs/safety.md, "Review of class 4"): the approval record asks git which
hash lines a remote-tracking branch carries, and git finds its repository by walking up from the
memory root. A workspace writer cannot write the project's `.git/`, but it can make a repository
of its own nearer the root (a `.git` directory or a `.git` file naming a git dir it wrote) whose
`refs/remotes/…` carry its planted line: the record then took the line for a teammate's, kept
it, and the planted rule loaded as trusted."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.trust.test_trust_approval_record import (
    HUMAN,
    OUTSIDE,
    PLANTED,
    _engram,
    _git,
    _plant,
    pushed_clone,
    teammate,
)

STEM = "push-straight-to-main"


def _own_repo(gitdir: Path, worktree: Path, files: dict[str, bytes]) -> None:
    """What the agent builds with the git it may run: a repository whose remote-tracking ref
    points at a commit holding `files` (paths relative to `worktree`)."""
    env = ["--git-dir", str(gitdir), "--work-tree", str(worktree)]
    _git(worktree, "init", "-q", "--bare", str(gitdir))
    _git(worktree, "--git-dir", str(gitdir), "config", "core.bare", "false")
    for rel in files:
        _git(worktree, *env, "add", "-f", rel)
    _git(worktree, *env, "commit", "-qm", "x")
    _git(worktree, *env, "update-ref", "refs/remotes/origin/main", "HEAD")


@pytest.mark.parametrize("where", ["root-dir", "root-file", "agents-file"])
def test_a_repository_the_agent_made_inside_the_project_vouches_for_nothing(
        tmp_path: Path, where: str) -> None:
    mine = pushed_clone(tmp_path)
    root = mine / ".agents" / ".engram"
    _plant(root, STEM, PLANTED)
    files = {"memory.hashes.json": b"", f"rules/{STEM}.md": b""}
    if where == "root-dir":  # `git init .agents/.engram`
        _own_repo(root / ".git", root, files)
    elif where == "root-file":  # a `.git` file naming a git dir elsewhere in the workspace
        _own_repo(mine / "build" / "g", root, files)
        (root / ".git").write_text("gitdir: ../../build/g\n")
    else:
        _own_repo(mine / "build" / "g", mine / ".agents",
                  {f".engram/{k}": v for k, v in files.items()})
        (mine / ".agents" / ".git").write_text("gitdir: ../build/g\n")
    got = _engram(mine, "load", "push to main review")
    assert PLANTED not in got.stdout and OUTSIDE in got.stdout, got.stdout
    # And the record did not keep the line: with the repository gone it is still flagged.
    import shutil

    shutil.rmtree(mine / "build", ignore_errors=True)
    if (root / ".git").is_dir():
        shutil.rmtree(root / ".git")
    for f in (root / ".git", mine / ".agents" / ".git"):
        f.unlink(missing_ok=True)
    got = _engram(mine, "load", "push to main review")
    assert PLANTED not in got.stdout and OUTSIDE in got.stdout, got.stdout
    assert "UNRECORDED" in _engram(mine, "verify").stdout


def test_a_root_the_agent_made_before_engram_first_saw_it_is_not_trusted(tmp_path: Path) -> None:
    """TOFU: the first read of a root with no record used to seed the record from the hashes
    file as it was. An agent in a repository where this user has no record yet (Engram used
    only globally, or a root it creates) planted memory and its lines; the first sight trusted
    them. Now a first sight in a git work tree trusts only lines git already holds."""
    remote, mine = tmp_path / "remote.git", tmp_path / "mine"
    _git(tmp_path, "init", "-q", "--bare", str(remote))
    _git(tmp_path, "clone", "-q", str(remote), str(mine))
    (mine / "README").write_text("x\n")
    _git(mine, "add", "-A")
    _git(mine, "commit", "-qm", "start")
    _git(mine, "push", "-q", "origin", "HEAD:main")
    # The agent, with another state dir (so this user's record stays unseen), writes a root.
    agent = {"ENGRAM_CONFIG_DIR": str(tmp_path / "agent-state")}
    assert _engram(mine, "init", **agent).returncode == 0
    assert _engram(mine, "save", "rule", PLANTED, "--answer", "A", **agent).returncode == 0
    got = _engram(mine, "load", "push to main review")
    assert PLANTED not in got.stdout and OUTSIDE in got.stdout, got.stdout
    # Committed (a commit the human makes) but never pushed: still only the agent's.
    _git(mine, "add", "-A")
    _git(mine, "commit", "-qm", "memory")
    got = _engram(mine, "load", "push to main review")
    assert PLANTED not in got.stdout and OUTSIDE in got.stdout, got.stdout


def test_a_fresh_clone_and_an_upgrade_with_committed_memory_stay_silent(tmp_path: Path) -> None:
    """The false alarm to avoid: a first sight of memory that is in HEAD (a clone, or a user
    upgrading from a version without the record) is trusted."""
    remote, theirs, them = teammate(tmp_path)
    mine = tmp_path / "mine"
    got = _engram(theirs, "load", "linters push", ENGRAM_CONFIG_DIR=str(tmp_path / "new"))
    assert HUMAN in got.stdout and OUTSIDE not in got.stdout, got.stdout  # HEAD, not pushed
    _git(theirs, "push", "-q", "origin", "HEAD:main")
    _git(tmp_path, "clone", "-q", str(remote), str(mine))
    got = _engram(mine, "load", "linters push")
    assert HUMAN in got.stdout and OUTSIDE not in got.stdout, got.stdout


def test_a_project_that_is_no_git_work_tree_is_pinned_so(tmp_path: Path) -> None:
    """A record made where there was no git never asks a repository made later (the agent
    may create `<project>/.git` when there is none to protect)."""
    proj = tmp_path / "plain"
    proj.mkdir()
    assert _engram(proj, "init").returncode == 0
    assert _engram(proj, "save", "rule", HUMAN, "--answer", "A").returncode == 0
    assert HUMAN in _engram(proj, "load", "linters push").stdout
    root = proj / ".agents" / ".engram"
    _plant(root, STEM, PLANTED)
    _own_repo(proj / ".git", proj, {".agents/.engram/memory.hashes.json": b"",
                                    f".agents/.engram/rules/{STEM}.md": b""})
    got = _engram(proj, "load", "push to main review")
    assert PLANTED not in got.stdout and OUTSIDE in got.stdout, got.stdout


def test_a_state_dir_inside_the_project_vouches_for_nothing(project: Path,
                                                            engram_root: Path) -> None:
    """`ENGRAM_CONFIG_DIR` pointing into the project (an `env` an agent wrote on a project MCP
    entry, `.mcp.json`) turned the record off, and every hash line was trusted again."""
    assert _engram(project, "save", "rule", HUMAN, "--answer", "A").returncode == 0
    _plant(engram_root, STEM, PLANTED)
    inside = {"ENGRAM_CONFIG_DIR": str(project / "build" / "state")}
    got = _engram(project, "load", "push to main review", **inside)
    assert PLANTED not in got.stdout, got.stdout
