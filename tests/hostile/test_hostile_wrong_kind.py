"""A regular file where a type folder belongs (or a folder where a state file belongs) gets a fix
that fits it: not the symlink advice.

Before: `skills` as a regular file was refused with "a cloned repository controls its symlinks:
replace it with a real directory or file", and a file standing for `.cache` was counted as
"(and 11 more)" problems: the files inside a folder that does not exist."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.helpers import run_cli


@pytest.fixture
def root(engram_root: Path) -> Path:
    return engram_root


@pytest.mark.parametrize("name", ["skills", ".cache", "working"])
def test_a_file_where_a_folder_belongs(root: Path, name: str,
                                       capsys: pytest.CaptureFixture[str]) -> None:
    target = root / name
    if target.is_dir():
        import shutil

        shutil.rmtree(target)
    target.write_text("not a folder\n")
    for args in (("load", "deploy"), ("status",), ("doctor",)):
        code, out, err = run_cli(*args, capsys=capsys)
        said = out + err
        assert code == 1, said
        assert f"{target} is not a directory" in said
        assert "symlink" not in said, said
        assert "more)" not in said, said
        assert "move it away" in said and "engram init" in said


def test_a_folder_where_a_state_file_belongs(root: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    (root / "changelog.md").unlink()
    (root / "changelog.md").mkdir()
    code, out, err = run_cli("status", capsys=capsys)
    assert code == 1
    assert "is not a regular file" in err and "symlink" not in err and "move it away" in err


def test_a_symlink_still_gets_the_symlink_advice(root: Path, tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    import shutil

    shutil.rmtree(root / "skills")
    (root / "skills").symlink_to(tmp_path)
    code, _, err = run_cli("status", capsys=capsys)
    assert code == 1 and "controls its symlinks" in err
