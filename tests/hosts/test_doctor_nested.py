"""Attack: plant a second workspace in a subfolder (`src/.agents/.engram`, with its own
`memory.hashes.json` and a `.gitignore` keeping it out of `git status`). Every command and host
started in `src/` reads it instead of the reviewed one; `engram doctor` must say so."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from engram.cli.main import main
from engram.hosts import nested


def _doctor(capsys: pytest.CaptureFixture[str]) -> list[dict[str, Any]]:
    capsys.readouterr()
    main(["doctor", "--json"])
    return list(json.loads(capsys.readouterr().out)["data"]["findings"])


def _nested(findings: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [f for f in findings if f["code"] == "workspace.nested"]


def test_a_workspace_planted_in_a_subfolder_is_reported(
        project: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    (project / ".git").mkdir()
    assert main(["init"]) == 0
    src = project / "src"
    (src / ".agents" / ".engram" / "rules").mkdir(parents=True)  # what the agent plants
    (src / ".agents" / ".engram" / "memory.hashes.json").write_text("{}")
    (src / ".gitignore").write_text(".agents/\n")
    monkeypatch.chdir(project)
    found = _nested(_doctor(capsys))
    assert [f["level"] for f in found] == ["warn"]
    assert "another workspace at src/.agents/.engram" in found[0]["message"]
    assert "engram verify --workspace src" in found[0]["remediation"]
    monkeypatch.chdir(src)  # and from inside, doctor names the workspace it shadows
    inner = _nested(_doctor(capsys))
    assert len(inner) == 1 and f"inside {project}" in inner[0]["message"]


def test_one_workspace_reports_nothing(project: Path,
                                       capsys: pytest.CaptureFixture[str]) -> None:
    (project / ".git").mkdir()
    assert main(["init"]) == 0
    (project / "node_modules" / "pkg" / ".agents" / ".engram").mkdir(parents=True)
    assert _nested(_doctor(capsys)) == []


def test_the_walk_is_bounded(tmp_path: Path) -> None:
    for i in range(30):
        (tmp_path / f"d{i:02}").mkdir()
    (tmp_path / "d29" / ".agents" / ".engram").mkdir(parents=True)
    found, cut = nested.below(tmp_path, max_dirs=10)
    assert cut and found == []
    found, cut = nested.below(tmp_path)
    assert not cut and found == [tmp_path / "d29"]
