"""Integrity: compare memory files with `memory.hashes.json`, and re-approve hand edits.

`verify` never changes anything. `rehash` is the human's explicit act of approving what is on disk
now (docs/safety.md): it shows each file it approves and refuses files that fail the safety scan
unless the human passes `--accept-unsafe`, and never approves a file that does not parse (a
symlink, a FIFO, bad frontmatter). `rehash --merged` resolves a git merge conflict inside the
hashes file: a hash both sides agree on stands; every other file (a side's hash inside a
conflict hunk, which anything that can write the workspace could have written) is shown and
scanned like a hand edit before it is approved, and a file matching neither side is listed.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from engram import jsontext
from engram.errors import (
    EXIT_INTEGRITY,
    EXIT_USAGE,
    EngramError,
    IntegrityError,
    InvalidMemoryError,
    NotFoundError,
)
from engram.outcome import Diagnostic, Outcome
from engram.storage import read_text
from engram.store import ts_index
from engram.store.fileio import root_lock
from engram.store.ids import is_valid_id, validate_id
from engram.store.record import OUTSIDE
from engram.store.repo import AFTER_WRITE, Store, after_write_note, parse_bytes, sha256_bytes
from engram.workspace import Root, Roots

OK, MISMATCH, MISSING_HASH, MISSING_FILE, INVALID, HIDDEN, UNRECORDED = (
    "OK", "MISMATCH", "MISSING HASH", "MISSING FILE", "INVALID", "HIDDEN", "UNRECORDED")


@dataclass(frozen=True)
class FileCheck:
    scope: str
    file: str
    status: str
    line: int = 0
    reason: str = ""
    code: str = ""  # HIDDEN: why git review cannot show it (store/gitreview.py)
    fix: str = ""

    def as_dict(self) -> dict[str, object]:
        d: dict[str, object] = {"scope": self.scope, "file": self.file, "status": self.status}
        if self.status == INVALID:
            d.update(line=self.line, reason=self.reason)
        if self.status == HIDDEN:
            d.update(reason=self.reason, code=self.code, fix=self.fix)
        if self.status == UNRECORDED:
            d.update(reason=self.reason)
        return d


# {rel: sha256} of files known to parse (a cache derived from bytes, e.g. the search index)
Parsed = Callable[[Root], Mapping[str, str]]


def check_root(store: Store, parsed: Mapping[str, str] | None = None) -> list[FileCheck]:
    """Every hashed file of a root against its approved hash. A file that does not parse is
    INVALID whatever its hash; `parsed` ({rel: sha} of files known to parse) spares re-parsing
    bytes that were parsed before, so a large store verifies in about the time it takes to
    read and hash it."""
    scope = store.root.scope
    hashes = store.load_hashes()
    flagged = store.trusted_hashes()[1]
    known = parsed or {}
    checks: list[FileCheck] = []
    on_disk = store.hashed_files()
    for rel in on_disk:
        try:
            data = store.read_bytes(rel)
        except InvalidMemoryError as exc:
            checks.append(FileCheck(scope, rel, INVALID, exc.line, exc.reason))
            continue
        sha = sha256_bytes(data)
        if known.get(rel) != sha:
            try:
                parse_bytes(data, rel, store.root)
            except InvalidMemoryError as exc:
                checks.append(FileCheck(scope, rel, INVALID, exc.line, exc.reason))
                continue
        expected = hashes.get(rel)
        status = MISSING_HASH if expected is None else OK if expected == sha else MISMATCH
        if status == OK and rel in flagged:
            checks.append(FileCheck(scope, rel, UNRECORDED, reason=OUTSIDE))
            continue
        checks.append(FileCheck(scope, rel, status))
    present = set(on_disk)
    checks += [FileCheck(scope, rel, MISSING_FILE) for rel in sorted(hashes) if rel not in present]
    checks += [FileCheck(scope, name, INVALID, 1, "file name is not UTF-8: rename it (git mv) to "
                         "a UTF-8 name (ls shows it in that folder); Engram cannot read or "
                         "approve it") for name in store.unreadable_names]
    return checks


def _hidden(store: Store, diags: list[Diagnostic]) -> list[FileCheck]:
    """Memory files (and the hashes file) that git review would not show: editing one together
    with its hash would then go unseen (store/gitreview.py)."""
    from engram.store.gitreview import hidden

    project = store.path.parent.parent if store.root.scope == "workspace" else None
    found, note = hidden(store.path, store.hashed_files(), project=project)
    if note:
        diags.append(Diagnostic("integrity.not_in_git", "info", f"{store.root.scope}: {note}"))
    return [FileCheck(store.root.scope, rel, HIDDEN, 0, b.why, b.code, b.fix) for rel, b in found]


def verify(roots: Roots, *, parsed: Parsed | None = None, every_file: bool = False) -> Outcome:
    """Check every root; the text lists problems (every file with `every_file`) and a summary,
    the data lists every file."""
    from engram.safety import printable, shown_name  # file names nobody reviewed, escaped

    if not roots.existing():
        raise NotFoundError(f"no memory root at {roots.workspace.path}"
                            + (f" or {roots.global_root.path}" if roots.global_root else ""),
                            hint="run `engram init` here, or pass --workspace DIR of a project "
                            "that has one", code="root.missing")
    checks: list[FileCheck] = []
    diags: list[Diagnostic] = []
    notes: list[Diagnostic] = []  # information, not problems
    for root in roots.existing():
        try:
            Store(root).clean_stale_temp()
            checks += check_root(Store(root, roots.state_dir),
                                 parsed(root) if parsed is not None else None)
            checks += _hidden(Store(root), notes)
        except IntegrityError as exc:
            diags.append(Diagnostic(exc.code, "error", f"{exc.message} ({exc.hint})"))
    problems = [c for c in checks if c.status != OK]
    lines = []
    for c in checks if every_file else problems:
        name = shown_name(c.file)  # file names are text nobody reviewed
        where = f"{name}:{c.line}: {printable(c.reason, 240)}" if c.status == INVALID else name
        if c.status == HIDDEN:
            where = f"{name}: {c.reason} ({c.code})"
        if c.status == UNRECORDED:
            where = f"{name}: {c.reason}"
        lines.append(f"{c.status:<12} {c.scope}:{where}")
        if c.status == HIDDEN:
            lines.append(f"{'':<12} fix: {c.fix}")
    files = sum(c.status != HIDDEN for c in checks)
    if problems or diags:
        lines.append(f"{len(problems)} problem(s) in {files} memory files. Review the "
                     f"files, then approve each hand edit by id: {_rehash_hint(problems)}")
    else:
        lines.append(f"all {files} memory files match memory.hashes.json")
    lines += [f"error: {d.message}" for d in diags]
    lines += [f"note: {d.message}" for d in notes]
    bad = bool(problems or diags)
    diags += notes
    diags += [Diagnostic(f"integrity.{c.status.lower().replace(' ', '_')}", "error",
                         f"{c.scope}:{c.file}" + (f" ({c.code})" if c.code else ""))
              for c in problems]
    return Outcome(
        text="\n".join(lines),
        data={"files": [c.as_dict() for c in checks], "problems": len(problems)},
        diagnostics=diags, ok=not bad, exit_code=EXIT_INTEGRITY if bad else 0,
    )


@dataclass
class _Rehash:
    """What one rehash approved, refused and shows."""

    changed: list[str] = field(default_factory=list)
    refused: list[str] = field(default_factory=list)  # unsafe content
    invalid: list[str] = field(default_factory=list)  # does not parse: never approved
    shown: list[str] = field(default_factory=list)
    after_write: list[str] = field(default_factory=list)  # `storage.after_write` notes


def _rehash_hint(problems: list[FileCheck]) -> str:
    """`engram rehash <id> …` for the files a human can approve, never every file at once (a
    planted file would be approved with the human's own edit)."""
    from engram.safety import shown_name

    files = [c.file for c in problems if c.status != HIDDEN]
    stems = [f.rsplit("/", 1)[-1].removesuffix(".md") for f in files]
    # A stem two problem files share is named by its path: a bare id would name both.
    ids = sorted({stem if stems.count(stem) == 1 else f.removesuffix(".md")
                  for f, stem in zip(files, stems, strict=True)
                  if is_valid_id(stem) and shown_name(f) == f})  # names nobody reviewed
    if not ids:
        return "`engram rehash <id>` (or `engram rehash --all` after reviewing every file)"
    shown = " ".join(ids[:8]) + (" …" if len(ids) > 8 else "")
    return f"`engram rehash {shown}`"


def rehash(roots: Roots, ids: list[str] | None = None, merged: bool = False, *,
           accept_unsafe: bool = False, dry_run: bool = False) -> Outcome:
    """Approve the files as they are now: the human's explicit act (docs/safety.md).

    Every file about to be approved is shown (its text, secrets redacted, control characters
    escaped) and scanned; a file with a secret, personal data or an injection line is refused
    unless `accept_unsafe`. `dry_run` shows and scans without approving anything.
    """
    from engram.safety import shown_name  # file names nobody reviewed, escaped

    bare, picks = _wanted(ids or [])
    ambiguous = _ambiguous(roots, bare | picks) if not merged else {}
    bare -= set(ambiguous)
    picks -= set(ambiguous)
    wanted = bool(ids)

    def picked(scope: str, rel: str) -> bool:
        path = rel.removesuffix(".md")
        return path.rsplit("/", 1)[-1] in bare or path in picks or f"{scope}:{path}" in picks

    done = _Rehash()
    review: list[str] = []
    for root in roots.existing():
        store = Store(root, roots.state_dir)
        with root_lock(root.path):
            from_merge: dict[str, str] = {}
            hashes = _merged_hashes(store, review, from_merge) if merged \
                else _hashes_or_empty(store, ids)
            before = dict(hashes)
            outside = set() if merged else _flagged(store)
            approved: dict[str, str] = {}
            on_disk = store.hashed_files()
            touched: dict[str, str | None] = {}  # rel -> the approved text (None: removed)
            for rel in on_disk:
                if wanted and not picked(root.scope, rel):
                    continue
                try:  # never approve a symlink, a special file or a file that does not parse
                    data = store.read_bytes(rel)
                    parse_bytes(data, rel, root)
                except InvalidMemoryError as exc:
                    done.invalid.append(f"{root.scope}:{exc.file}:{exc.line}: {exc.reason}")
                    continue
                digest = sha256_bytes(data)
                if hashes.get(rel) != digest or rel in outside:
                    name = f"{root.scope}:{rel}"
                    state = from_merge.get(rel, "") or (OUTSIDE if rel in outside else "")
                    if _review(done, name, data, new=rel not in hashes,
                               accept_unsafe=accept_unsafe, state=state):
                        hashes[rel] = approved[rel] = digest
                        done.changed.append(name)
                        touched[rel] = data.decode("utf-8")
            for rel in [r for r in hashes if r not in on_disk]:
                if not wanted or picked(root.scope, rel):
                    del hashes[rel]
                    done.changed.append(f"{root.scope}:{rel} (removed: file is gone)")
                    touched[rel] = None
            if dry_run:
                continue
            store.save_hashes(hashes, approved, before,
                              [rel for rel, text in touched.items() if text is None])
            done.after_write += store.after_write
            # Approved hand edits reach a TypeScript teammate's index too; the approval above
            # stands either way (a deep memory.index.json raises): `storage.after_write`.
            try:
                store.refresh_ts_index(touched)
            except Exception as exc:  # noqa: BLE001 - the hashes are already written
                done.after_write.append(after_write_note(ts_index.INDEX_NAME, exc))
            if done.changed:
                store.append_changelog([f"- {_stamp()} memory.hashes.json: rehash "
                                        f"{len(done.changed)} file(s)"])
    known = _known_ids(roots)
    missing = sorted((bare | picks) - known)
    verb = "would rehash" if dry_run else "rehashed"
    lines = list(done.shown)
    lines += [f"{verb} {c}" for c in done.changed]
    if not (done.changed or done.refused or done.invalid or missing or ambiguous):
        lines.append("nothing to rehash: every hash matches")
    lines += [f"review: {r}" for r in review]
    diags = [Diagnostic("id.not_found", "error", f"no memory with id {m}") for m in missing]
    diags += [Diagnostic("integrity.unsafe", "error", f"not approved: {r}") for r in done.refused]
    lines += [f"error: no memory with id {m} (ids are file names: see `engram verify --all`)"
              for m in missing]
    lines += [f"not approved (invalid): {r}" for r in done.invalid]
    for mid, files in sorted(ambiguous.items()):
        # A planted twin (`knowledge/<id>.md` beside the human's `rules/<id>.md`) must not be
        # approved by the command meant for the human's own edit (issue 27 class 7, review r1).
        lines.append(f"error: id {mid} names {len(files)} changed files, none approved: "
                     f"{', '.join(shown_name(f) for f in files)}; review each and approve the "
                     "one you mean by its path, e.g. `engram rehash "
                     f"{shown_name(_pick_for(mid, files[0]))}`")
        diags.append(Diagnostic("usage.rehash_ambiguous", "error",
                                f"id {mid} names {len(files)} changed files"))
    diags += [Diagnostic("memory.invalid", "error", r) for r in done.invalid]
    lines += done.after_write  # the approval stands: a warning, never a failed rehash
    diags += [Diagnostic(AFTER_WRITE, "warn", n) for n in done.after_write]
    if done.invalid:
        lines.append(f"{len(done.invalid)} file(s) left unapproved because they do not parse: "
                     "fix them by hand, then run `engram rehash` again")
    if done.refused:
        lines.append(f"{len(done.refused)} file(s) not approved: they hold a secret, personal "
                     "data or an injection line. Fix them, or, if you reviewed them and they "
                     "are meant to hold this, run `engram rehash --accept-unsafe`.")
    bad = bool(done.refused or done.invalid)
    return Outcome(text="\n".join(lines), diagnostics=diags,
                   data={"changed": done.changed, "review": review, "refused": done.refused,
                         "invalid": done.invalid, "dry_run": dry_run},
                   ok=not (bad or missing or ambiguous),
                   exit_code=EXIT_INTEGRITY if bad else EXIT_USAGE if missing or ambiguous
                   else 0)


def _review(done: _Rehash, name: str, data: bytes, *, new: bool, accept_unsafe: bool,
            state: str = "") -> bool:
    """Show one file about to be approved (all of it: a cut preview would let an edit hide
    below the cut) and scan it; False when it must not be approved."""
    from engram.safety import describe, printable, redact

    text = data.decode("utf-8", errors="replace")
    findings = scan_memory_text(text)
    state = state or ("new file, never approved" if new else "changed since it was approved")
    done.shown.append(f"--- {name} ({state})")
    shown, _ = redact(text, allow_emails=_author_emails(text))
    done.shown += [f"  | {printable(ln)}" for ln in shown.splitlines()]
    if findings:
        found = describe(findings).replace("\n", "; ")
        if not accept_unsafe:
            done.shown.append(f"  refused: {found}")
            done.refused.append(f"{name}: {found}")
            return False
        done.shown.append(f"  accepted although it holds: {found} (--accept-unsafe)")
    return True


_AUTHOR_EMAIL = re.compile(r"^author_email:\s*[\"']?([^\"'\s]+)[\"']?\s*$", re.MULTILINE)


def _author_emails(text: str) -> list[str]:
    head = text.split("\n---", 1)[0] if text.startswith("---") else ""
    return _AUTHOR_EMAIL.findall(head)


def scan_memory_text(text: str) -> list[Any]:
    """Secrets, personal data and injection lines of a memory file, allowing the file's own
    author e-mail (docs/safety.md: e-mails are PII everywhere except the author fields).

    The file's text is what a reviewer reads; what Engram prints of its frontmatter is each
    value parsed: a double-quoted value's escapes (`\\n`, `\\u202e`, `\\0`) decode into
    text the file does not hold (a line of its own, an injection line, `<system>`, a bidi
    control), a block scalar (`>`, `|`) or a quoted value spread over lines is joined, and even
    a one-line value starts after its key, where the line-start injection rules do not look.
    So each key's parsed values are scanned too, as text of their own, a finding reported at
    the key's line (once: a finding the file's text already has there is not repeated)."""
    from engram.safety import scan_text  # compiling the rules is costly: only when scanning

    emails = _author_emails(text)
    found = list(scan_text(text, allow_emails=emails))
    seen = {(f.line, f.kind) for f in found}
    return found + [f for f in _decoded_findings(text, emails) if (f.line, f.kind) not in seen]


def _decoded_findings(text: str, emails: list[str]) -> list[Any]:
    from dataclasses import replace

    from engram.safety import scan_text
    from engram.store import frontmatter
    from engram.store.format import split_file

    if not text.startswith("---"):
        return []
    try:
        fm, _, _ = split_file(text, "")
        meta = frontmatter.parse(fm)
    except (InvalidMemoryError, frontmatter.FrontmatterError):
        return []  # a file that does not parse is never printed
    lines = fm.split("\n")
    found: list[Any] = []
    for key, value in meta.items():
        at = next((n for n, ln in enumerate(lines, 2) if ln.startswith(f"{key}:")), 1)
        found += [replace(f, line=at)
                  for f in scan_text("\n".join(_strings(value)), allow_emails=emails)]
    return found


def _strings(value: object) -> list[str]:
    """Every string in a parsed frontmatter value (nested lists and mappings too)."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for k, v in value.items() for s in (str(k), *_strings(v))]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v)]
    return []


def _stamp() -> str:
    from engram.store.repo import now_iso

    return now_iso()


def _known_ids(roots: Roots) -> set[str]:
    """Every file's id (its stem) and its path without `.md` (`rules/<id>`)."""
    rels = {(root.scope, rel.removesuffix(".md")) for root in roots.existing()
            for rel in Store(root).hashed_files()}
    return {rel for _s, rel in rels} | {f"{s}:{rel}" for s, rel in rels} \
        | {rel.rsplit("/", 1)[-1] for _s, rel in rels}


def _pick_for(given: str, file: str) -> str:
    """What to type to name one of an ambiguous id's files: its path, or with its root when
    the path itself was ambiguous (`global:rules/<id>`)."""
    scope, rel = file.split(":", 1)
    return f"{scope}:{rel.removesuffix('.md')}" if "/" in given else rel.removesuffix(".md")


def _wanted(ids: list[str]) -> tuple[set[str], set[str]]:
    """(bare ids, paths without `.md` such as `rules/<id>` or `global:rules/<id>`) named."""
    bare: set[str] = set()
    picks: set[str] = set()
    for given in ids:
        path = given.strip().replace("\\", "/").removesuffix(".md")
        scope, sep, rest = path.partition(":")
        if sep and scope in {"workspace", "global"}:
            path = rest
        else:
            scope = ""
        if "/" not in path:
            if scope:
                validate_id(given)  # raises: `workspace:<id>` needs a path
            bare.add(validate_id(path))
            continue
        parts = path.split("/")
        if parts[0] not in {"rules", "skills", "knowledge", "archive"}:
            validate_id(path)  # raises: a path separator in a memory id
        for part in parts:
            validate_id(part)  # no '..', no empty part, slug characters only
        picks.add((f"{scope}:" if scope else "") + "/".join(parts))
    return bare, picks


def _ambiguous(roots: Roots, bare: set[str]) -> dict[str, list[str]]:
    """Bare ids, and paths without a root (`rules/<id>`), naming more than one file that a
    rehash would approve or drop."""
    if not bare:
        return {}
    found: dict[str, list[str]] = {}
    for root in roots.existing():
        store = Store(root, roots.state_dir)
        try:
            hashes = store.load_hashes()
        except IntegrityError:
            hashes = {}
        outside = _flagged(store)
        on_disk = store.hashed_files()
        for rel in sorted(set(on_disk) | set(hashes)):
            path = rel.removesuffix(".md")
            stem = path if path in bare else path.rsplit("/", 1)[-1]
            if stem not in bare:
                continue
            try:
                changed = rel not in on_disk or rel in outside \
                    or hashes.get(rel) != sha256_bytes(store.read_bytes(rel))
            except (OSError, EngramError):
                changed = True
            if changed:
                found.setdefault(stem, []).append(f"{root.scope}:{rel}")
    return {mid: files for mid, files in found.items() if len(files) > 1}


def _flagged(store: Store) -> frozenset[str]:
    """Files whose hash line the approval record does not vouch for (none when the hashes file
    does not parse: a full rehash rebuilds it from the files shown)."""
    try:
        return store.trusted_hashes()[1]
    except IntegrityError:
        return frozenset()


def _hashes_or_empty(store: Store, ids: list[str] | None) -> dict[str, str]:
    try:
        return store.load_hashes()
    except IntegrityError:
        if ids:
            raise
        return {}  # a full rehash rebuilds a broken hashes file from the reviewed files


def _merged_hashes(store: Store, review: list[str], from_merge: dict[str, str]
                   ) -> dict[str, str]:
    """The hashes both sides of a conflicted hashes file agree on. Every other path of a side
    goes to `from_merge` (its file matches that side: shown and scanned before approval) or to
    `review` (its file matches neither side); paths that are not memory files are dropped."""
    text = read_text(store.root.hashes_file)
    ours, theirs, in_ours, in_theirs = [], [], False, False
    for line in text.splitlines():
        if line.startswith("<<<<<<<"):
            in_ours = True
        elif line.startswith("=======") and in_ours:
            in_ours, in_theirs = False, True
        elif line.startswith(">>>>>>>"):
            in_theirs = False
        else:
            if not in_theirs:
                ours.append(line)
            if not in_ours:
                theirs.append(line)
    sides = [_lenient_json("\n".join(s)) for s in (ours, theirs)]
    agreed = {rel: h for rel, h in sides[0].items() if sides[1].get(rel) == h}
    on_disk = set(store.hashed_files())
    for rel in sorted((set(sides[0]) | set(sides[1])) - set(agreed)):
        if rel not in on_disk:
            continue
        options = {s[rel] for s in sides if rel in s}
        try:
            actual = sha256_bytes(store.read_bytes(rel))
        except InvalidMemoryError:
            actual = None
        if actual in options:
            which = "HEAD" if sides[0].get(rel) == actual else "the merged branch"
            from_merge[rel] = f"from the merge conflict: matches the {which} side"
        else:
            review.append(rel)
    return agreed


def _lenient_json(text: str) -> dict[str, str]:
    """Parse one side of a conflict; fix the trailing-comma damage a hunk split leaves."""

    cleaned = re.sub(r",\s*([}\]])", r"\1", text)
    cleaned = re.sub(r'"\s*\n(\s*")', r'",\n\1', cleaned)
    try:
        data = jsontext.loads(cleaned)
    except (json.JSONDecodeError, RecursionError) as exc:
        raise IntegrityError("cannot read one side of the conflicted memory.hashes.json",
                             hint="resolve the conflict by hand, then run `engram rehash`",
                             code="integrity.hashes_invalid") from exc
    return {str(k): str(v) for k, v in data.items()} if isinstance(data, dict) else {}
