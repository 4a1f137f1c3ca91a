"""Attack: a cloned repository ships symlinks where Engram keeps its files, so that reading
memory (even `engram load`) or saving one creates, overwrites or copies files outside the
repository. Every such symlink is refused before anything is touched; the target stays as it
was. A global root the user configured may itself be a symlink."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from engram.cli.main import main
from tests.trust.conftest import SECRET
from tests.trust.trust_doors import ERAS, Door, cli, hook, mcp_session


def _snapshot(path: Path) -> dict[str, bytes | None]:
    out: dict[str, bytes | None] = {}
    if path.is_file():
        return {".": path.read_bytes()}
    for p in sorted(path.rglob("*")):
        out[str(p.relative_to(path))] = p.read_bytes() if p.is_file() else None
    return out


def _init(capsys: pytest.CaptureFixture[str]) -> Path:
    assert main(["init"]) == 0
    assert main(["save", "-f", "rule", "Run the smoke suite before tagging a release."]) == 0
    capsys.readouterr()
    return Path.cwd() / ".agents" / ".engram"


def _every_door_refuses(capsys: pytest.CaptureFixture[str], target: Path) -> None:
    before = _snapshot(target)
    for args in (("load", "smoke suite release"), ("load", "--id", "x"), ("search", "smoke"),
                 ("status",), ("verify",),
                 ("save", "-f", "rule", "Pin every tool version in CI config."),
                 ("notes", "prune")):
        code, out = cli(capsys, *args)
        assert code != 0 and "symlink" in out, (args, out)
    assert hook(Path.cwd(), "smoke suite release") == ""
    assert _snapshot(target) == before, "something was created or changed behind the symlink"


ROOT_LINKS = [".agents/.engram", ".agents"]


@pytest.mark.parametrize("link", ROOT_LINKS)
def test_a_symlinked_workspace_root_is_refused_and_its_target_untouched(
        project: Path, outside: Path, capsys: pytest.CaptureFixture[str], link: str) -> None:
    (project / ".git").mkdir()
    at = project / link
    at.parent.mkdir(parents=True, exist_ok=True)
    target = outside / "root"
    (target / ".engram" if link == ".agents" else target).mkdir(parents=True)
    at.symlink_to(target, target_is_directory=True)
    _every_door_refuses(capsys, outside)
    code, out = cli(capsys, "init")
    assert code != 0 and "symlink" in out
    assert _snapshot(outside)["keep.txt"] == SECRET.encode()


DIR_LINKS = ["rules", "skills", "knowledge", "archive", "working", ".cache"]
FILE_LINKS = ["memory.hashes.json", "engram.config.json", "changelog.md",
              "pending-approvals.json", "usage.json", ".lock"]
CACHE_LINKS = [".cache/index.sqlite", ".cache/derived.sqlite", ".cache/anchors.sqlite"]


@pytest.mark.parametrize("name", DIR_LINKS + FILE_LINKS)
def test_a_symlinked_type_folder_or_state_file_is_refused(
        project: Path, outside: Path, capsys: pytest.CaptureFixture[str], name: str) -> None:
    root = _init(capsys)
    at = root / name
    if at.is_dir():
        for p in at.iterdir():
            p.unlink()
        at.rmdir()
    elif at.exists():
        at.unlink()
    at.parent.mkdir(parents=True, exist_ok=True)
    if name in DIR_LINKS:
        at.symlink_to(outside, target_is_directory=True)
        target = outside
    else:
        target = outside / "keep.txt"
        at.symlink_to(target)
    _every_door_refuses(capsys, target)
    code, out = cli(capsys, "doctor")
    assert code == 1 and "root.symlink" in out and str(at) in out and "real" in out, out


@pytest.mark.parametrize("name", CACHE_LINKS)
def test_a_symlinked_cache_database_is_bypassed_never_followed(
        project: Path, outside: Path, capsys: pytest.CaptureFixture[str], name: str) -> None:
    """A cache database is not the agent's to control, nor to block reads with (issue 27
    class 2): a link in its place is never opened; an in-memory cache serves the command."""
    root = _init(capsys)
    at = root / name
    for stale in at.parent.glob(at.name + "*"):
        stale.unlink()
    target = outside / "keep.txt"
    at.symlink_to(target)
    before = _snapshot(outside)
    for args in (("load", "smoke suite release"), ("search", "smoke"), ("status",),
                 ("verify",), ("save", "-f", "rule", "Pin every tool version in CI config.")):
        code, out = cli(capsys, *args)
        assert code == 0, (args, out)
    assert _snapshot(outside) == before, "something was created or changed behind the symlink"
    assert at.is_symlink()
    code, out = cli(capsys, "doctor")
    assert code == 1 and "root.symlink" in out and str(at) in out, out


@pytest.mark.parametrize("era", ERAS)
def test_the_mcp_server_refuses_a_symlink_planted_while_it_runs(
        project: Path, outside: Path, capsys: pytest.CaptureFixture[str], era: str) -> None:
    root = _init(capsys)

    async def body(door: Door) -> None:
        first = await door.tool("engram_load", {"query": "smoke suite release"})
        assert "Run the smoke suite" in first
        (root / "usage.json").unlink(missing_ok=True)
        (root / "usage.json").symlink_to(outside / "keep.txt")
        for name, args in (("engram_load", {"query": "smoke suite release"}),
                           ("engram_load", {"id": "run-smoke-suite-before-tagging"}),
                           ("engram_save", {"text": "Pin every tool version in CI."})):
            text = await door.tool(name, args)
            assert "symlink" in text and "Run the smoke suite" not in text, (name, text)

    before = _snapshot(outside)
    mcp_session(project, era, body)
    assert _snapshot(outside) == before


def test_a_global_root_the_user_configured_may_be_a_symlink(
        project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    real = tmp_path / "real-global"
    real.mkdir()
    link = tmp_path / "global-link"
    link.symlink_to(real, target_is_directory=True)
    assert main(["init"]) == 0
    assert main(["init", "--global", str(link)]) == 0
    code, out = cli(capsys, "save", "-f", "--scope", "global", "rule",
                    "Prefer ripgrep over grep for code search.")
    assert code == 0, out
    written = [p.name for p in (real / "rules").glob("*.md")]
    assert written == ["prefer-ripgrep-grep-code-search.md"]
    hashes = json.loads((real / "memory.hashes.json").read_text())
    assert list(hashes) == ["rules/prefer-ripgrep-grep-code-search.md"]
    code, out = cli(capsys, "load", "ripgrep code search")
    assert "Prefer ripgrep" in out
    # Inside the global root the same rule holds as in the workspace.
    (real / "rules").rename(real / "rules-real")
    (real / "rules").symlink_to(real / "rules-real", target_is_directory=True)
    code, out = cli(capsys, "load", "ripgrep code search")
    assert code != 0 and "symlink" in out
    assert link.is_symlink()


@pytest.mark.parametrize("given", [".agents/.engram", "{project}/.agents/.engram"])
def test_naming_a_symlinked_root_with_workspace_does_not_move_the_workspace(
        project: Path, outside: Path, capsys: pytest.CaptureFixture[str], given: str) -> None:
    (project / ".agents").mkdir()
    (outside / "root").mkdir()
    (project / ".agents" / ".engram").symlink_to(outside / "root", target_is_directory=True)
    before = _snapshot(outside)
    for args in (("init",), ("load", "smoke suite"),
                 ("save", "-f", "rule", "Pin every tool version in CI config.")):
        code, out = cli(capsys, *args, "--workspace", given.format(project=project))
        assert code != 0 and "symlink" in out, (args, out)
    assert _snapshot(outside) == before
