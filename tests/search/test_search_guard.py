"""Guarded read: hashes and content scans decide what may be printed."""

from __future__ import annotations

from dataclasses import dataclass

from engram.search.guard import check, sha256_hex

DATA = b"---\nid: a\n---\n# A\n"


@dataclass
class FakeFinding:
    kind: str
    rule: str
    line: int


def test_an_approved_file_passes() -> None:
    assert check("knowledge/a.md", DATA, {"knowledge/a.md": sha256_hex(DATA)}) is None


def test_a_hash_mismatch_is_skipped_with_the_fix() -> None:
    skip = check("knowledge/a.md", DATA + b"edit", {"knowledge/a.md": sha256_hex(DATA)})
    assert skip is not None
    assert skip.line == ("SKIPPED knowledge/a.md: changed since it was approved (hash mismatch) "
                         "(review it, then run engram rehash)")


def test_a_missing_hash_is_skipped() -> None:
    skip = check("knowledge/a.md", DATA, {})
    assert skip is not None and "no approved hash" in skip.reason


def test_an_injection_line_is_skipped_without_echoing_it() -> None:
    def scan(text: str) -> list[FakeFinding]:
        return [FakeFinding("injection", "ignore-previous", 4)]
    skip = check("knowledge/a.md", DATA, {"knowledge/a.md": sha256_hex(DATA)}, scan)
    assert skip is not None
    assert skip.reason == "contains an injection line at line 4 (ignore-previous)"
