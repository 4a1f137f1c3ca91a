"""Frontmatter values of an unexpected YAML type never leak Python spellings to an agent.

`id: null` used to become the id `None`, `id: true` the id `True`, and `tags: [true, null, [x]]`
were shown as `tags: [True, None, ['x']]` in the pack an agent reads: text that is in no file.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.helpers import run_cli


def _plant(root: Path, name: str, frontmatter: str) -> None:
    (root / "knowledge").mkdir(parents=True, exist_ok=True)
    (root / "knowledge" / f"{name}.md").write_text(
        f"---\ntype: knowledge\n{frontmatter}\n---\n# Zebra {name}\n\n## Content\n\n"
        f"- Zebra crossings near {name}.\n", encoding="utf-8")


@pytest.fixture
def root(engram_root: Path) -> Path:
    return engram_root


@pytest.mark.parametrize("value", ["", "null", "~"])
def test_an_empty_id_is_the_file_name(root: Path, value: str,
                                      capsys: pytest.CaptureFixture[str]) -> None:
    _plant(root, "kempty", f"id: {value}\ntags:\n  - zebra")
    run_cli("rehash", "--all", capsys=capsys)
    code, out, _ = run_cli("load", "--id", "kempty", capsys=capsys)
    assert code == 0 and "id: kempty" in out
    assert "None" not in run_cli("search", "zebra", capsys=capsys)[1]


@pytest.mark.parametrize("value", ["true", "no", "1.5"])
def test_an_id_that_is_not_text_is_invalid_and_says_how_to_fix_it(
        root: Path, value: str, capsys: pytest.CaptureFixture[str]) -> None:
    _plant(root, "kodd", f"id: {value}\ntags:\n  - zebra")
    code, out, _ = run_cli("verify", capsys=capsys)
    assert code == 4
    assert "INVALID      workspace:knowledge/kodd.md:3: id must be text" in out
    assert 'quotes' in out
    code, out, _ = run_cli("search", "zebra", capsys=capsys)
    assert "True" not in out and "False" not in out


def test_a_whole_number_id_reads_as_written(root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _plant(root, "knum", "id: 2024\ntags:\n  - zebra")
    run_cli("rehash", "--all", capsys=capsys)
    code, out, _ = run_cli("load", "--id", "2024", capsys=capsys)
    assert code == 0 and "id: 2024" in out


def test_list_values_of_odd_types_are_shown_as_yaml_or_left_out(
        root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _plant(root, "klist", "id: klist\ntags:\n  - zebra\n  - true\n  - null\n  - 7\n  - [x]\n"
           "depends_on:\n  - null\ntriggers: false")
    run_cli("rehash", "--all", capsys=capsys)
    code, out, _ = run_cli("load", "--id", "klist", capsys=capsys)
    assert code == 0
    assert "tags: [zebra, true, 7]" in out
    for python_spelling in ("True", "None", "False", "['x']"):
        assert python_spelling not in out
    code, out, _ = run_cli("load", "zebra crossings", capsys=capsys)
    assert code == 0 and "klist" in out and "None" not in out


def test_a_number_too_long_for_python_is_invalid_with_its_line(
        root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`revision: 999…` (5,000 digits) raised Python's int-conversion ValueError: every
    command that read the file ended in a traceback."""
    _plant(root, "kbig", "id: kbig\nrevision: " + "9" * 5000)
    code, out, _ = run_cli("verify", capsys=capsys)
    assert code == 4 and "INVALID      workspace:knowledge/kbig.md:4: " in out
    assert "too long" in out
    assert run_cli("load", "zebra crossings", capsys=capsys)[0] == 0
