"""Hostile input to the store: arbitrary frontmatter, files and config never crash, always coded."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engram.config import load_settings
from engram.errors import EngramError, InvalidMemoryError
from engram.store import frontmatter
from engram.store.format import parse_memory
from engram.store.repo import Store
from engram.workspace import Root

YAMLISH = st.text(alphabet=st.sampled_from(list("ab:- []{}#&*!|>'\"\t\n 0123\\,")), max_size=80)


@given(YAMLISH)
@settings(max_examples=300, deadline=None)
def test_frontmatter_reader_raises_only_its_own_error(text: str) -> None:
    try:
        result = frontmatter.parse(text)
    except frontmatter.FrontmatterError as exc:
        assert exc.line >= 1
    else:
        assert isinstance(result, dict)


@given(st.text(max_size=300))
@settings(max_examples=300, deadline=None)
def test_memory_parser_raises_only_coded_errors(body: str) -> None:
    try:
        parse_memory("---\nid: x\ntype: rule\n" + body, "rules/x.md")
    except InvalidMemoryError as exc:
        assert exc.code == "memory.invalid" and exc.line >= 1


@given(st.dictionaries(st.text(max_size=12), st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=10),
    lambda c: st.lists(c, max_size=3) | st.dictionaries(st.text(max_size=8), c, max_size=3),
    max_leaves=8), max_size=6))
@settings(max_examples=200, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
def test_config_loader_never_crashes_on_any_json(tmp_path: Path, data: dict[str, object]) -> None:
    path = tmp_path / "engram.config.json"
    path.write_text(json.dumps(data))
    settings_ = load_settings([path])
    assert 1 <= settings_.values["load.limit"] <= 32


def test_broken_config_json_is_a_coded_error_with_a_fix(tmp_path: Path) -> None:
    path = tmp_path / "engram.config.json"
    path.write_text("{ not json")
    with pytest.raises(EngramError) as info:
        load_settings([path])
    assert info.value.code == "config.invalid" and "line 1" in info.value.message


def test_invalid_utf8_memory_is_reported_with_its_line(tmp_path: Path) -> None:
    root = tmp_path / "root"
    (root / "rules").mkdir(parents=True)
    (root / "rules" / "bad.md").write_bytes(b"---\nid: bad\ntype: rule\n---\n\n# B\xff\n")
    scan = Store(Root(root, "workspace")).scan()
    assert [(e.file, e.line) for e in scan.invalid] == [("rules/bad.md", 6)]


def test_symlink_pointing_outside_the_root_is_never_read(tmp_path: Path) -> None:
    root = tmp_path / "root"
    (root / "rules").mkdir(parents=True)
    secret = tmp_path / "outside.md"
    secret.write_text("---\nid: outside\ntype: rule\n---\n\n# O\n\n## Content\n\n- secret\n")
    (root / "rules" / "outside.md").symlink_to(secret)
    scan = Store(Root(root, "workspace")).scan()
    assert scan.memories == []
    assert "outside the memory root" in scan.invalid[0].reason


def test_directory_named_like_a_memory_is_ignored(tmp_path: Path) -> None:
    root = tmp_path / "root"
    (root / "rules" / "looks-like.md").mkdir(parents=True)
    scan = Store(Root(root, "workspace")).scan()
    assert scan.memories == [] and scan.invalid == []
