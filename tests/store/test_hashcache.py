"""The by-hash cache of derived values (store/hashcache.py): hits skip the work, a value of
other bytes or another version is dropped, and a cache that cannot be written costs only time."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from engram.store.hashcache import HashCache


def _upper(calls: list[set[str]]) -> Callable[[set[str]], dict[str, str]]:
    def compute(missing: set[str]) -> dict[str, str]:
        calls.append(set(missing))
        return {s: s.upper() for s in missing}
    return compute


def test_values_are_computed_once_and_dropped_with_their_bytes(tmp_path: Path) -> None:
    calls: list[set[str]] = []
    with HashCache(tmp_path, "words:1") as cache:
        assert cache.derive({"a", "b"}, _upper(calls)) == {"a": "A", "b": "B"}
    with HashCache(tmp_path, "words:1") as cache:
        assert cache.derive({"a", "b"}, _upper(calls)) == {"a": "A", "b": "B"}
        assert calls == [{"a", "b"}]
        cache.derive({"a", "c"}, _upper(calls))
        assert calls[-1] == {"c"}
        cache.derive({"a", "b"}, _upper(calls))
        assert calls[-1] == {"b"}  # b's value went with its file


def test_another_version_of_the_kind_is_recomputed_and_replaces_the_old(tmp_path: Path) -> None:
    calls: list[set[str]] = []
    with HashCache(tmp_path, "words:1") as cache:
        cache.derive({"a"}, _upper(calls))
    with HashCache(tmp_path, "words:2") as cache:
        cache.derive({"a"}, _upper(calls))
    with HashCache(tmp_path, "words:1") as cache:
        cache.derive({"a"}, _upper(calls))
    assert len(calls) == 3


def test_a_cache_that_cannot_be_opened_still_gives_every_value(tmp_path: Path) -> None:
    cache_dir = tmp_path / ".cache"
    cache_dir.write_text("not a directory")
    calls: list[set[str]] = []
    for _ in range(2):
        with HashCache(cache_dir, "words:1") as cache:
            assert cache.derive({"a"}, _upper(calls)) == {"a": "A"}
    assert calls == [{"a"}, {"a"}]
