"""`--workspace DIR` and `--json` work before the command too (`engram --workspace DIR status`),
as most CLIs allow: before, that was `unrecognized arguments: --workspace status` under a usage
line that names neither option."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.helpers import run_cli


@pytest.fixture
def other(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    assert run_cli("init", "--workspace", str(elsewhere), capsys=capsys)[0] == 0
    return elsewhere


@pytest.mark.parametrize("form", [["--workspace", "{}"], ["--workspace={}"]])
def test_workspace_before_the_command(other: Path, form: list[str],
                                      capsys: pytest.CaptureFixture[str]) -> None:
    args = [a.format(other) for a in form]
    code, out, err = run_cli(*args, "status", capsys=capsys)
    assert code == 0, err
    assert f"workspace {other / '.agents' / '.engram'}" in out


def test_json_and_workspace_before_the_command(other: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run_cli("--json", "--workspace", str(other), "status", capsys=capsys)
    assert code == 0, err
    assert json.loads(out)["ok"] is True


def test_a_global_option_without_a_command_says_what_is_missing(
        capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run_cli("--workspace", "x", capsys=capsys)
    assert code == 2
    assert "command" in err


def test_init_in_a_bare_repository_is_refused_with_the_fix(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """A bare repository has no work tree: memory created inside it is never committed."""
    import subprocess

    bare = tmp_path / "shared.git"
    subprocess.run(["git", "init", "-q", "--bare", str(bare)], check=True)
    monkeypatch.chdir(bare)
    code, _, err = run_cli("init", capsys=capsys)
    assert code == 2
    assert "bare" in err and "git clone" in err
    assert not (bare / ".agents").exists()


def test_init_global_on_a_file_says_it_is_a_file(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    target = tmp_path / "notes.txt"
    target.write_text("mine\n")
    code, _, err = run_cli("init", "--global", str(target), capsys=capsys)
    assert code == 2
    assert "is a file" in err and "File exists" not in err
    assert target.read_text() == "mine\n"


def test_init_global_inside_the_workspace_memory_is_refused(
        project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Global memory is read by every project; kept in this project's memory root it would be
    committed with this repository and saved twice into one folder."""
    assert run_cli("init", capsys=capsys)[0] == 0
    for where in (project / ".agents" / ".engram", project / ".agents" / ".engram" / "g"):
        code, _, err = run_cli("init", "--global", str(where), capsys=capsys)
        assert code == 2, err
        assert "outside" in err
    assert not (Path.home() / ".engram" / "engram.config.json").exists()
