"""Whether git review can show a root's memory files (docs/safety.md, threat model).

An agent that can write the workspace can edit a memory and its line in `memory.hashes.json`
together; Engram cannot tell that from an approval, so the defence is that the change shows in
`git diff` for someone to review. Git itself can be told not to show it: an attributes file (even
an untracked one that ignores itself) marking the files `-diff`, `binary`, `linguist-generated`
(collapsed in pull requests) or passing them through a `filter`, or an ignore rule that keeps a
new memory file out of `git status` altogether, or a skip-worktree / assume-unchanged flag in
git's index on a tracked one. `hidden` names such files; `engram verify` and
`engram doctor` report them as problems. Outside a git work tree, without git, or when the
hashes file itself is ignored and untracked (the user keeps this root out of git: no review
covers it, which `verify` notes once), nothing is hidden from a review, so nothing is reported.
"""

from __future__ import annotations

import subprocess
from collections.abc import Sequence
from pathlib import Path

from engram.gitrun import git_argv

GIT_TIMEOUT_S = 10.0
HASHES = "memory.hashes.json"
_ATTRS = ("diff", "binary", "linguist-generated", "filter")


NOT_IN_GIT = "memory.hashes.json is ignored by git: no git review covers this memory root"


def hidden(root: Path, rels: Sequence[str]) -> tuple[dict[str, str], str]:
    """({rel: why git review would not show it} for `memory.hashes.json` and `rels`, and a note
    when the whole root is kept out of git)."""
    paths = [HASHES, *rels]
    if _git(root, ["rev-parse", "--is-inside-work-tree"]) is None:
        return {}, ""
    out: dict[str, str] = {}
    listed = _git(root, ["check-attr", "-z", "--stdin", *_ATTRS], paths)
    fields = (listed or "").split("\0")
    for i in range(0, len(fields) - 2, 3):
        rel, attr, value = fields[i], fields[i + 1], fields[i + 2]
        why = _why(attr, value)
        if why and rel not in out:
            out[rel] = why
    # Index flags that make git stop looking at a tracked file's changes.
    wanted = set(paths)
    for entry in (_git(root, ["ls-files", "-v", "-z"]) or "").split("\0"):
        tag, _, rel = entry.partition(" ")  # paths relative to the root (git's cwd)
        if rel in wanted and (tag == "S" or (len(tag) == 1 and tag.islower())):
            out.setdefault(rel, "git is told not to look at its changes (skip-worktree or "
                           "assume-unchanged), so `git status` and `git diff` never show them")
    ignored = [rel for rel in (_git(root, ["check-ignore", "-z", "--stdin"], paths) or "")
               .split("\0") if rel]
    if HASHES in ignored:  # tracked files are never reported: this root is not in git at all
        return out, NOT_IN_GIT
    for rel in ignored:
        out.setdefault(rel, "git ignores it, so `git status` and `git diff` never show it")
    return out, ""


def _why(attr: str, value: str) -> str:
    if attr == "diff" and value == "unset":
        return "a .gitattributes rule (-diff) makes git diff show it as binary"
    if attr == "binary" and value == "set":
        return "a .gitattributes rule (binary) makes git diff show it as binary"
    if attr == "linguist-generated" and value not in {"unspecified", "unset", "false"}:
        return "a .gitattributes rule (linguist-generated) collapses its diff in review"
    if attr == "filter" and value not in {"unspecified", "unset"}:
        return f"a .gitattributes rule (filter={value}) rewrites it between git and the disk"
    return ""


def _git(root: Path, args: list[str], stdin: Sequence[str] | None = None) -> str | None:
    """git's output in `root` (None when git is missing, fails or this is no work tree)."""
    data = "".join(f"{p}\0" for p in stdin) if stdin is not None else None
    try:
        done = subprocess.run(git_argv(root, *args), input=data, capture_output=True,
                              text=True, timeout=GIT_TIMEOUT_S, check=False)
    except (OSError, subprocess.SubprocessError, UnicodeError):
        return None
    # check-ignore exits 1 when nothing is ignored: an answer, not a failure.
    if done.returncode not in (0, 1) or (done.returncode == 1 and args[0] != "check-ignore"):
        return None
    return done.stdout
