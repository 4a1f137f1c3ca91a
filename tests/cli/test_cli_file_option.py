"""`save-session --file PATH` that cannot be read says why in plain words, with the fix.

Before: `cannot read f: 'utf-8' codec can't decode byte 0xe9 in position 9: invalid continuation
byte` and `cannot read d: [Errno 21] Is a directory: 'd'` (Python's wording)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.helpers import run_cli


@pytest.fixture
def root(engram_root: Path) -> Path:
    return engram_root


def test_a_file_that_is_not_utf8_names_the_line_and_byte(
        root: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "candidates.txt"
    path.write_bytes(b"TYPE: rule | TEXT: fine\nTYPE: rule | TEXT: caf\xe9\n")
    code, _, err = run_cli("save-session", "--file", str(path), capsys=capsys)
    assert code == 2
    assert "line 2 is not UTF-8 (byte 0xE9)" in err
    assert "codec" not in err and "position" not in err


@pytest.mark.parametrize(("make", "said"), [("dir", "is a directory"),
                                            ("missing", "does not exist")])
def test_a_path_that_is_no_file_says_so(root: Path, tmp_path: Path, make: str, said: str,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "x"
    if make == "dir":
        path.mkdir()
    code, _, err = run_cli("save-session", "--file", str(path), capsys=capsys)
    assert code == 2
    assert said in err and "Errno" not in err
