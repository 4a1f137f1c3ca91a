"""Memory file format: v3 round trip, legacy v1/v2 reading, and refusals with line numbers."""

from __future__ import annotations

import pytest

from engram.errors import InvalidMemoryError
from engram.store import frontmatter
from engram.store.format import parse_memory, render_file, render_memory, upgrade_text
from tests.conftest import FIXTURES

MEM = FIXTURES / "memories"


def _read(sub: str, name: str) -> str:
    return (MEM / sub / name).read_text(encoding="utf-8")


def test_v3_file_round_trips_byte_identically() -> None:
    text = _read("v3", "run-smoke-suite-before-tagging.md")
    m = parse_memory(text, "rules/run-smoke-suite-before-tagging.md")
    assert m.schema_version == 3
    assert m.variants["strict"].startswith("- Always run")
    assert render_file(m.meta, m.body) == text
    assert render_memory(m.meta, m.title, m.content, m.variants) == text
    again = parse_memory(render_file(m.meta, m.body), m.rel_path)
    assert again == m


def test_v1_file_is_read_with_authority_from_type() -> None:
    m = parse_memory(_read("v1", "use-uv-for-python-envs.md"), "rules/use-uv-for-python-envs.md")
    assert (m.schema_version, m.type, m.meta["authority"], m.meta["revision"]) == (
        1, "rule", "instruction", 1)
    assert "uv venv" in m.content


def test_v2_file_is_read_and_upgrade_keeps_body() -> None:
    text = _read("v2", "payments-service-owns-refunds.md")
    m = parse_memory(text, "knowledge/payments-service-owns-refunds.md")
    assert (m.schema_version, m.meta["authority"]) == (2, "reference")
    upgraded = upgrade_text(m)
    after = parse_memory(upgraded, m.rel_path)
    assert after.schema_version == 3
    assert after.body == m.body


@pytest.mark.parametrize(
    ("name", "line", "reason"),
    [
        ("anchor.md", 3, "anchors"),
        ("duplicate-key.md", 4, "duplicate key 'type'"),
        ("tab-indent.md", 5, "tab indentation"),
        ("no-content.md", 6, "## Content"),
    ],
)
def test_invalid_files_report_line_and_reason(name: str, line: int, reason: str) -> None:
    with pytest.raises(InvalidMemoryError) as info:
        parse_memory(_read("invalid", name), f"rules/{name}")
    assert info.value.line == line
    assert reason in info.value.reason
    assert info.value.code == "memory.invalid"


@pytest.mark.parametrize(
    "text",
    ["a: *alias", "a: !!python/object 1", "a: [x, [y]]", "a: {b: 1}", "? complex\n: key",
     "<<: *base", "- top level list"],
)
def test_unsafe_yaml_features_are_refused(text: str) -> None:
    with pytest.raises(frontmatter.FrontmatterError):
        frontmatter.parse(text)


def test_frontmatter_renders_sorted_and_quotes_what_needs_it() -> None:
    meta = {"z": "a: b", "a": ["x y", "c, d", "true"], "m": "123", "n": 5, "b": True}
    text = frontmatter.render(meta)
    assert text.splitlines()[0].startswith("a: ")
    assert frontmatter.parse(text) == meta


def test_missing_frontmatter_is_line_one() -> None:
    with pytest.raises(InvalidMemoryError) as info:
        parse_memory("# Title\n\n## Content\n\nx\n", "rules/x.md")
    assert info.value.line == 1


def test_unknown_type_names_the_type_line() -> None:
    text = "---\nid: x\ntype: recipe\n---\n\n# X\n\n## Content\n\n- y\n"
    with pytest.raises(InvalidMemoryError) as info:
        parse_memory(text, "notes/x.md")
    assert info.value.line == 3
    assert "recipe" in info.value.reason
