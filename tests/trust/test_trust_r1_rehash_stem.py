"""Review r1 of issue 27 class 7: `engram rehash <id>` matched files by file stem in every type
folder of every root, so a file an agent planted as `knowledge/<id>.md` beside the human's
hand-edited `rules/<id>.md` was approved, without a question, by the very command `verify`
told the human to run for their own edit. An id that names more than one changed file is now
refused (nothing approved for it) and the files are listed; a path (`rules/<id>`) picks one."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.trust.test_trust_rehash_all import HUMAN, PLANTED, _run


@pytest.fixture
def twin(engram_root: Path) -> tuple[str, Path, Path]:
    """The human's edit of an approved rule, and a file with the same stem an agent planted in
    another type folder (a knowledge memory declaring a rule's worth of text)."""
    done = _run("save", "rule", HUMAN, "--answer", "A")
    assert done.returncode == 0, done.stdout + done.stderr
    (human,) = sorted((engram_root / "rules").glob("*.md"))
    text = human.read_text(encoding="utf-8")
    human.write_text(text.replace("every push", "every push and every merge"), encoding="utf-8")
    planted = engram_root / "knowledge" / human.name
    planted.write_text(text.replace(HUMAN, PLANTED).replace("type: rule", "type: knowledge"),
                       encoding="utf-8")
    return human.stem, human, planted


def _approved(path: Path) -> bool:
    return f":{path.parent.name}/{path.name}" not in _run("verify").stdout


def test_rehash_of_an_id_never_approves_a_planted_twin(twin: tuple[str, Path, Path]) -> None:
    mid, human, planted = twin
    got = _run("rehash", mid)
    assert not _approved(planted), got.stdout  # the attack: approved with the human's edit
    assert got.returncode != 0, got.stdout
    assert f"knowledge/{planted.name}" in got.stdout and f"rules/{human.name}" in got.stdout


def test_a_path_picks_the_one_file_meant(twin: tuple[str, Path, Path]) -> None:
    mid, human, planted = twin
    got = _run("rehash", f"rules/{mid}")
    assert got.returncode == 0, got.stdout + got.stderr
    assert _approved(human) and not _approved(planted), got.stdout


def test_all_still_approves_both_after_listing_them(twin: tuple[str, Path, Path]) -> None:
    mid, human, planted = twin
    got = _run("rehash", "--all")
    assert got.returncode == 0, got.stdout + got.stderr
    assert _approved(human) and _approved(planted)


def test_verify_names_twins_by_path(twin: tuple[str, Path, Path]) -> None:
    """The hint `verify` prints must be a command that works (and approves one file each)."""
    mid, _human, _planted = twin
    out = _run("verify").stdout
    assert f"engram rehash knowledge/{mid} rules/{mid}`" in out, out


def test_a_path_in_both_roots_needs_its_root(engram_root: Path, tmp_path: Path) -> None:
    """The next variant: the same path changed in the workspace and in the global root."""
    import subprocess

    from tests.conftest import engram_cmd, subprocess_env

    env = {**subprocess_env(), "ENGRAM_GLOBAL_DIR": str(tmp_path / "global")}

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([*engram_cmd(), *args], capture_output=True, text=True, env=env,
                              timeout=60, check=False, stdin=subprocess.DEVNULL)

    assert run("init", "--global", str(tmp_path / "global")).returncode == 0
    for scope in ("workspace", "global"):
        got = run("save", "--scope", scope, "rule", HUMAN, "--answer", "A")
        assert got.returncode == 0, got.stdout + got.stderr
    files = [next((r / "rules").glob("*.md")) for r in (engram_root, tmp_path / "global")]
    for f in files:
        f.write_text(f.read_text().replace("every push", "every push and every merge"))
    mid = files[0].stem
    got = run("rehash", f"rules/{mid}")
    assert got.returncode == 2 and "none approved" in got.stdout, got.stdout + got.stderr
    assert f"global:rules/{mid}" in got.stdout
    got = run("rehash", f"workspace:rules/{mid}")
    assert got.returncode == 0, got.stdout + got.stderr
    out = run("verify").stdout
    assert f"workspace:rules/{mid}.md" not in out and f"global:rules/{mid}.md" in out, out
