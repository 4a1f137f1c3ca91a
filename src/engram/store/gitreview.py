"""Whether git review shows a root's memory files as a reviewer's plain `git diff` would
(docs/safety.md, guarantee 3 and "Class 3").

An agent that can write the workspace can edit a memory and its line in `memory.hashes.json`
together; Engram cannot tell that from an approval, so the defence is that the change shows in
`git diff` / `git log -p` for someone to review. Git itself can be told to show something else,
and Engram must not run git the way a reviewer does to find out (a textconv, external diff,
filter or pager the repository names would run). So git is asked, without running anything the
repository names, what would make its view of these files differ from their bytes:

- the attributes that apply to each path (`git check-attr -a`: every source git reads,
  `.gitattributes` at any level, `.git/info/attributes`, `core.attributesFile`), judged by what
  git does with them: only attributes that change line endings or archives pass; a `diff=`
  driver passes only when no config gives it a `textconv`, `command` or `binary`;
- repository config that changes every path's diff, merge or pager without an attribute
  (`diff.external`, `merge.default`, `core.pager`, `pager.*`, …; `GLOBAL_KEYS`);
- `git replace` refs and a grafts file (`git log -p` then shows other objects);
- a repository boundary at or below the project, above the files (`.agents/` a repository of
  its own, a gitlink or submodule in the index or HEAD): the project's diff shows one
  `Subproject commit` line;
- index flags (skip-worktree, assume-unchanged) and ignore rules that keep changes out of
  `git status`;
- what git itself says about the change: `git diff --numstat --no-ext-diff --no-textconv`
  marks a binary-looking change (asked only when no filter applies, since git would run it).

`hidden` names such files with a code and a fix (`Blind`); `engram verify` and `engram doctor`
report them as `HIDDEN`. Outside a git work tree, without git, or when the hashes file itself is
ignored and untracked (the user keeps this root out of git: no review covers it, which `verify`
notes once), nothing is hidden from a review. No text of a workspace file, attribute value or
config value is repeated; attribute and driver names are printed as plain tokens only.
"""

from __future__ import annotations

import subprocess
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from engram.gitrun import git_argv

GIT_TIMEOUT_S = 10.0
HASHES = "memory.hashes.json"
TS_INDEX = "memory.index.json"
NOT_IN_GIT = "memory.hashes.json is ignored by git: no git review covers this memory root"

# Attributes that change no text a reviewer reads: line endings, whitespace checks, archives,
# pack compression, language statistics. Every other attribute on a memory file is reported.
HARMLESS_ATTRS = frozenset({
    "text", "eol", "crlf", "whitespace", "export-ignore", "export-subst", "delta",
    "linguist-language", "linguist-detectable", "linguist-documentation",
})
# A `diff=<driver>` whose config has one of these shows something other than the bytes.
DRIVER_KEYS = ("textconv", "command", "binary", "cachetextconv")
# Repository config that changes how every path diffs, merges or is shown, with no attribute.
GLOBAL_KEYS = frozenset({
    "diff.external", "merge.default", "core.pager", "core.attributesfile", "core.worktree",
    "status.showuntrackedfiles", "diff.ignoresubmodules", "interactive.difffilter",
    "core.bigfilethreshold",  # every file over it diffs as `Binary files differ`
})
GLOBAL_PREFIXES = ("pager.", "color.diff.")
LOCAL_SCOPES = ("local", "worktree")
_ATTR_SOURCES = ("find the rule with `git check-attr -a -- <file>` run in the memory root: "
                 "it sits in a .gitattributes file, .git/info/attributes or the file "
                 "core.attributesFile names")
_WHAT: dict[str, str] = {
    "linguist-generated": "collapses its diff in pull requests",
    "working-tree-encoding": "makes git store and diff it re-encoded, not as its bytes",
    "ident": "makes git rewrite $Id$ in it between the repository and the disk",
}


@dataclass(frozen=True)
class Blind:
    """Why git review would not show a file as its bytes: a code, the reason, the fix."""

    code: str
    why: str
    fix: str


def hidden(root: Path, rels: Sequence[str], *, project: Path | None = None
           ) -> tuple[list[tuple[str, Blind]], str]:
    """([(rel, why git review would not show it)] for `memory.hashes.json`, the TypeScript
    index when present and `rels`: the first reason of each file, then every repository-wide
    one on the hashes file; and a note when the whole root is kept out of git). `project`: the
    project around a workspace root, where no repository boundary may sit (None: a global
    root, which may be a repository of its own)."""
    paths = [HASHES, *([TS_INDEX] if (root / TS_INDEX).is_file() else []), *rels]
    head = _git(root, ["rev-parse", "--is-inside-work-tree", "--show-toplevel",
                       "--git-path", "info/grafts"])
    if head is None or not head.startswith("true"):
        if project is not None and _git(project, ["rev-parse", "--git-dir"]) is not None:
            # a repository is around the project, but its work tree is set elsewhere
            return [(HASHES, Blind(
                "review.outside_worktree",
                "the project is inside a git repository whose work tree is set elsewhere "
                "(core.worktree), so `git status` and `git diff` never look at the memory files",
                "remove core.worktree from the repository's config (`git config --unset "
                "core.worktree`) unless you set it yourself"))], ""
        return [], ""
    lines = head.splitlines()
    top = Path(lines[1]) if len(lines) > 1 else root
    out: dict[str, Blind] = {}
    boundary = _boundary(root, top, project)
    if boundary is not None:  # every other answer would come from the wrong repository
        return [(HASHES, boundary)], ""
    config = _listed_config(root)
    filtered = _attributes(root, paths, [(k, v) for _, k, v in config], out)
    repo = _repository(root, lines[2] if len(lines) > 2 else "", config)
    _index_flags(root, set(paths), out)
    ignored = [rel for rel in (_git(root, ["check-ignore", "-z", "--stdin"], paths) or "")
               .split("\0") if rel]
    if HASHES in ignored:  # tracked files are never reported: this root is not in git at all
        return sorted(out.items()) + [(HASHES, b) for b in repo], NOT_IN_GIT
    for rel in ignored:
        out.setdefault(rel, Blind("review.ignored", "git ignores it, so `git status` and "
                                  "`git diff` never show it",
                                  "remove the ignore rule (`git check-ignore -v <file>` names "
                                  "it), then `git add` the file"))
    if not filtered:  # git would run a filter to compare the file: Engram never does
        _binary(root, paths, out)
        _stale_index(root, paths, out)
    return sorted(out.items()) + [(HASHES, b) for b in repo], ""


def _boundary(root: Path, top: Path, project: Path | None) -> Blind | None:
    """A repository boundary between the project and the memory root: `.agents/` (or the root)
    a repository of its own, or a gitlink (a submodule) recorded for a folder on the way."""
    if project is None:
        return None
    outer = _git(project, ["rev-parse", "--show-toplevel"])
    if outer is None:
        return None  # the project is not in git: the root's own repository is the review
    outer_top = Path(outer.strip())
    if _real(top) != _real(outer_top):
        inner = _rel(top, project)
        return Blind("review.nested_repo",
                     f"the memory root is inside a git repository of its own ({inner}), so the "
                     "project's `git diff` and `git log -p` show at most a `Subproject commit` "
                     "line for it, never the memory files",
                     f"keep memory in the project's repository: if you did not create {inner}"
                     "/.git, move it away, then `git add .agents` in the project")
    try:
        chain_rel = _real(root).relative_to(_real(outer_top))
    except ValueError:
        return None
    parts = chain_rel.parts
    chain = ["/".join(parts[:i]) for i in range(1, len(parts) + 1)]
    specs = [f":(literal){c}" for c in chain]
    listed = (_git(outer_top, ["ls-files", "-s", "-z", "--", *specs]) or "").split("\0")
    listed += (_git(outer_top, ["ls-tree", "-z", "HEAD", "--", *chain]) or "").split("\0")
    for entry in listed:
        meta, _, path = entry.partition("\t")
        if meta.startswith("160000") and path in chain:
            shown = _rel(outer_top / path, project)
            return Blind("review.gitlink",
                         f"git records {shown} as a submodule (a gitlink), so the project's "
                         "`git diff` shows only a `Subproject commit` line for everything in "
                         "it, never the memory files",
                         f"`git rm --cached {shown}` (and remove it from .gitmodules), then "
                         f"`git add {shown}` so the memory files are the project's own")
    return None


def _attributes(root: Path, paths: list[str], config: list[tuple[str, str]],
                out: dict[str, Blind]) -> bool:
    """Report the attributes that change a path's review; True when any path has a filter
    (or git could not answer: then nothing else is asked that might run one)."""
    from engram.safety.names import shown_token

    listed = _git(root, ["check-attr", "-a", "-z", "--stdin"], paths)
    if listed is None:
        return True
    fields = listed.split("\0")
    filtered = False
    for i in range(0, len(fields) - 2, 3):
        rel, attr, value = fields[i], fields[i + 1], fields[i + 2]
        filtered = filtered or (attr == "filter" and value not in ("unset", "unspecified"))
        why = _attr_why(attr, value, config)
        if why and rel not in out:
            out[rel] = Blind("review.attribute",
                             f"the git attribute {shown_token(attr)} {why}",
                             f"remove that attribute for the memory files ({_ATTR_SOURCES})")
    return filtered


def _attr_why(attr: str, value: str, config: list[tuple[str, str]]) -> str:
    if attr in HARMLESS_ATTRS or value == "unspecified":
        return ""
    if attr == "diff":
        if value == "set":
            return ""
        if value == "unset":
            return "(-diff) makes git diff show it as binary"
        keys = {k.rsplit(".", 1)[-1] for k, v in config if k.lower().startswith(
            f"diff.{value.lower()}.") and k.count(".") >= 2 and _truthy(k, v)}
        if keys & set(DRIVER_KEYS):
            from engram.safety.names import shown_token

            return (f"names the diff driver {shown_token(value)}, which config gives a "
                    f"{'/'.join(sorted(keys & set(DRIVER_KEYS)))}: git diff shows that "
                    "program's output or `Binary files differ`, not the file's lines")
        return ""  # a built-in hunk-header driver (diff=markdown): the lines are the bytes'
    if attr == "merge":
        if value in ("set", "unset", "text"):
            return ""
        return "names a merge driver, which decides how the file merges (e.g. keeps one side " \
               "and drops the other's change without a conflict)"
    if attr == "filter":
        return "passes it through a filter, so git stores and diffs other bytes than the disk's"
    if attr == "binary":
        return "(binary) makes git diff show it as binary"
    return _WHAT.get(attr, "applies to it: git or a review site may show it other than as its "
                     "bytes (only line-ending and archive attributes are left unreported)")


def _truthy(key: str, value: str) -> bool:
    if key.lower().endswith(".binary"):
        return value.strip().lower() not in ("false", "no", "off", "0")
    return bool(value.strip())


def _repository(root: Path, grafts: str, config: list[tuple[str, str, str]]) -> list[Blind]:
    """Repository-wide settings that change every path's review; reported on the hashes file."""
    from engram.safety.names import shown_token

    out: list[Blind] = []
    local = sorted({k.lower() for scope, k, v in config if scope in LOCAL_SCOPES
                    and _changes_every_path(k.lower(), v)})
    if local:
        out.append(Blind(
            "review.config",
            f"the repository's git config sets {', '.join(shown_token(k) for k in local)}, "
            "which changes how every file diffs, merges or is shown, memory included",
            "remove those settings from .git/config (`git config --local --unset <key>`) "
            "unless you set them yourself; review with `git --no-replace-objects diff "
            "--no-ext-diff --no-textconv`"))
    if (_git(root, ["for-each-ref", "--count=1", "--format=%(refname)", "refs/replace/"])
            or "").strip():
        out.append(Blind(
            "review.replaced",
            "the repository holds `git replace` objects, so `git log -p` and `git diff` can "
            "show other commits or contents than the ones stored",
            "list them with `git replace -l` and delete each you did not make (`git replace "
            "-d <object>`); review with `git --no-replace-objects log -p`"))
    path = Path(grafts) if Path(grafts).is_absolute() else root / grafts
    try:
        grafted = bool(grafts) and path.is_file() and path.stat().st_size > 0
    except OSError:
        grafted = False
    if grafted:
        out.append(Blind(
            "review.grafts",
            "the repository has a grafts file (.git/info/grafts), so `git log -p` shows a "
            "history other than the one stored",
            "delete .git/info/grafts unless you made it; review with "
            "`git --no-replace-objects log -p`"))
    return out


def _index_flags(root: Path, wanted: set[str], out: dict[str, Blind]) -> None:
    for entry in (_git(root, ["ls-files", "-v", "-z"]) or "").split("\0"):
        tag, _, rel = entry.partition(" ")  # paths relative to the root (git's cwd)
        if rel in wanted and (tag == "S" or (len(tag) == 1 and tag.islower())):
            out.setdefault(rel, Blind(
                "review.index_flag",
                "git is told not to look at its changes (skip-worktree or assume-unchanged), "
                "so `git status` and `git diff` never show them",
                "`git update-index --no-skip-worktree --no-assume-unchanged <file>`"))


def _binary(root: Path, paths: list[str], out: dict[str, Blind]) -> None:
    """Ask git itself how it shows each change. Only these paths, which carry no filter: git
    runs nothing the repository names (no textconv, external diff, filter, hook or monitor)."""
    wanted = set(paths)
    listed = _git(root, ["diff", "--numstat", "-z", "--relative", "--no-ext-diff",
                         "--no-textconv", "--no-renames", "HEAD", "--",
                         *(f":(literal){p}" for p in paths)])
    for entry in (listed or "").split("\0"):
        added, _, rest = entry.partition("\t")
        _, _, rel = rest.partition("\t")
        if added == "-" and rel in wanted:
            out.setdefault(rel, Blind("review.binary",
                                      "git shows its change as `Binary files differ`, so "
                                      "review shows none of its text",
                                      "remove the bytes that make git call it binary (a NUL "
                                      "byte), or the rule that marks it binary"))


def _stale_index(root: Path, paths: list[str], out: dict[str, Blind]) -> None:
    """A tracked file whose bytes are not the index's blob, yet `git diff` lists no change: the
    index's stat data was made to match the edited file (a forged `.git/index`, or
    `core.trustctime`/`core.checkStat` and a same-size edit with its mtime put back), so git never
    reads the bytes and `git status`, `git diff` and `git commit -a` show nothing. Asked only for
    paths without a filter (`hash-object` applies the built-in conversions, runs nothing)."""
    staged: dict[str, str] = {}
    for entry in (_git(root, ["ls-files", "-s", "-z", "--", *(f":(literal){p}" for p in paths)])
                  or "").split("\0"):
        meta, _, rel = entry.partition("\t")
        fields = meta.split()
        if len(fields) == 3 and fields[2] == "0" and fields[0] != "160000":
            staged[rel] = fields[1]
    rels = [rel for rel in paths if rel in staged and (root / rel).is_file()]
    if not rels:
        return
    # absolute: git reads --stdin-paths relative to the top, not to -C
    listing = "".join(f"{root / r}\n" for r in rels)
    disk = (_git(root, ["hash-object", "--stdin-paths"], None, listing) or "").split()
    if len(disk) != len(rels):
        return
    changed = [rel for rel, oid in zip(rels, disk, strict=True) if oid != staged[rel]]
    if not changed:
        return
    listed = set((_git(root, ["diff", "--name-only", "-z", "--relative", "--no-ext-diff",
                              "--no-textconv", "--no-renames", "--",
                              *(f":(literal){p}" for p in changed)]) or "").split("\0"))
    for rel in changed:
        if rel not in listed:
            out.setdefault(rel, Blind(
                "review.index_stat",
                "its bytes differ from what git's index records, but the index's file data was "
                "made to match, so `git status` and `git diff` show no change",
                "`git update-index --really-refresh`, then review `git diff` of the file"))


def _changes_every_path(key: str, value: str) -> bool:
    if key.startswith("pager.") and value.strip().lower() in _BOOLEANS:
        return False  # the default pager switched on or off for one command
    return key in GLOBAL_KEYS or key.startswith(GLOBAL_PREFIXES)


_BOOLEANS = ("true", "false", "yes", "no", "on", "off", "1", "0", "")


def _listed_config(root: Path) -> list[tuple[str, str, str]]:
    """(scope, key, value) of every config git reads here, includes followed."""
    items = (_git(root, ["config", "--list", "--show-scope", "--includes", "-z"]) or "") \
        .split("\0")  # scope NUL key LF value NUL
    out = []
    for scope, entry in zip(items[0::2], items[1::2], strict=False):
        key, _, value = entry.partition("\n")
        if key and scope != "command":  # Engram's own `-c` settings
            out.append((scope, key, value))
    return out


def _real(path: Path) -> Path:
    try:
        return path.resolve()
    except OSError:
        return path


def _rel(path: Path, project: Path) -> str:
    from engram.safety.names import shown_name

    try:
        return shown_name(_real(path).relative_to(_real(project)).as_posix() or ".")
    except ValueError:
        return "a folder outside the project"


def _git(cwd: Path, args: list[str], stdin: Sequence[str] | None = None,
         raw: str | None = None) -> str | None:
    """git's output in `cwd` (None when git is missing, fails or this is no work tree)."""
    data = "".join(f"{p}\0" for p in stdin) if stdin is not None else raw
    try:
        done = subprocess.run(git_argv(cwd, *args), input=data, capture_output=True,
                              text=True, timeout=GIT_TIMEOUT_S, check=False)
    except (OSError, subprocess.SubprocessError, UnicodeError):
        return None
    # check-ignore exits 1 when nothing is ignored: an answer, not a failure.
    if done.returncode not in (0, 1) or (done.returncode == 1 and args[0] != "check-ignore"):
        return None
    return done.stdout
