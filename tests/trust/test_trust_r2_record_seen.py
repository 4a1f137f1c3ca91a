"""Review of class 4: the `.seen` fast path. A read that found every line explained wrote
`.seen` (the digest of the hashes file) after deciding, outside the lock; a human approval that
replaced a version in between (`rehash`, an UPDATE) dropped `.seen`, and the read then wrote it
back for the old hashes file. An agent that kept calling `engram_load` while the human approved
could then put the old bytes and the old hashes file back, and `.seen` vouched for them."""

from __future__ import annotations

from pathlib import Path

import pytest

from engram.store.record import Record
from tests.trust.test_trust_approval_record import HUMAN, OUTSIDE, _engram


def test_a_read_racing_an_approval_never_writes_seen_for_the_old_file(
        project: Path, engram_root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    state = Path(str(project.parent / "home" / ".engram"))
    assert _engram(project, "save", "rule", HUMAN, "--answer", "A").returncode == 0
    (rule,) = sorted((engram_root / "rules").glob("*.md"))
    old_bytes, old_hashes = rule.read_bytes(), (engram_root / "memory.hashes.json").read_bytes()
    from engram.store.repo import Store, sha256_bytes
    from engram.workspace import Root

    store = Store(Root(engram_root, "workspace"), state)
    hashes, seen = store.read_hashes()
    rec = Record(state, engram_root)
    rec.seen_file.unlink(missing_ok=True)
    real = Record.lines
    calls = {"n": 0}

    def racing(self: Record) -> dict[str, list[str]] | None:
        got = real(self)
        calls["n"] += 1
        if calls["n"] == 1:  # the human approves a new version right after the read looked
            new = old_bytes.replace(b"every push", b"every merge")
            rule.write_bytes(new)
            Record(state, engram_root).note(hashes, {rule.relative_to(engram_root).as_posix():
                                                     sha256_bytes(new)})
        return got

    monkeypatch.setattr(Record, "lines", racing)
    assert rec.unexplained(hashes, seen) == frozenset()  # this read's answer, as it was
    monkeypatch.setattr(Record, "lines", real)
    assert rec.seen() != seen
    # The agent puts the replaced version back with its old line: asked about again.
    rule.write_bytes(old_bytes)
    (engram_root / "memory.hashes.json").write_bytes(old_hashes)
    got = _engram(project, "load", "linters push")
    assert HUMAN not in got.stdout and OUTSIDE in got.stdout, got.stdout
