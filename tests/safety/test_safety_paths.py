"""Path containment: relative names stay inside their root, symlinks included."""

from __future__ import annotations

from pathlib import Path

import pytest

from engram.safety import PathEscape, contained_path, is_contained


@pytest.fixture
def root(tmp_path: Path) -> Path:
    r = tmp_path / "root"
    (r / "rules").mkdir(parents=True)
    return r


def test_a_clean_relative_path_is_joined_under_the_root(root: Path) -> None:
    assert contained_path(root, "rules/deploy.md") == root / "rules" / "deploy.md"
    assert contained_path(root, "./rules//deploy.md") == root / "rules" / "deploy.md"
    assert contained_path(root, "new/dir/file.md") == root / "new" / "dir" / "file.md"


@pytest.mark.parametrize(
    ("rel", "reason"),
    [
        ("", "empty path"),
        ("   ", "empty path"),
        ("../outside.md", "'..'"),
        ("rules/../../outside.md", "'..'"),
        ("/etc/passwd", "absolute"),
        ("C:/Windows/x.md", "absolute"),
        ("c:x.md", "absolute"),
        ("rules\\deploy.md", "backslash"),
        ("rules/dep\x00loy.md", "NUL"),
        (".", "root itself"),
    ],
)
def test_malformed_relative_paths_raise_path_escape(root: Path, rel: str, reason: str) -> None:
    with pytest.raises(PathEscape) as caught:
        contained_path(root, rel)
    assert reason in caught.value.reason
    assert caught.value.rel == rel
    assert isinstance(caught.value, ValueError)


def test_a_symlink_pointing_outside_is_not_contained(root: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (root / "rules" / "escape").symlink_to(outside, target_is_directory=True)
    (root / "rules" / "file-link.md").symlink_to(tmp_path / "secret.txt")
    assert not is_contained(root, root / "rules" / "escape" / "x.md")
    assert not is_contained(root, Path("rules/file-link.md"))
    with pytest.raises(PathEscape, match="outside the root"):
        contained_path(root, "rules/escape/x.md")


def test_a_symlink_that_stays_inside_is_contained(root: Path) -> None:
    (root / "alias").symlink_to(root / "rules", target_is_directory=True)
    assert is_contained(root, root / "alias" / "deploy.md")
    assert contained_path(root, "alias/deploy.md") == root / "alias" / "deploy.md"


def test_a_root_reached_through_a_symlink_contains_its_files(tmp_path: Path, root: Path) -> None:
    link = tmp_path / "root-link"
    link.symlink_to(root, target_is_directory=True)
    assert is_contained(link, link / "rules" / "a.md")
    assert is_contained(root, link / "rules" / "a.md")


def test_absolute_targets_are_judged_by_where_they_resolve(root: Path, tmp_path: Path) -> None:
    assert is_contained(root, root / "rules" / "a.md")
    assert is_contained(root, root)
    assert not is_contained(root, tmp_path / "elsewhere.md")
    assert not is_contained(root, root / ".." / "elsewhere.md")


def test_a_symlink_loop_is_not_contained(root: Path) -> None:
    (root / "loop").symlink_to(root / "loop")
    assert not is_contained(root, root / "loop" / "x.md")
