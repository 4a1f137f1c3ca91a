"""`engram upgrade` re-pins after a version change; `engram doctor` reports host findings."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import engram
from engram.cli.main import main
from engram.hosts import autopin, jsonc


def _doctor(capsys: pytest.CaptureFixture[str], *extra: str) -> tuple[int, list[dict[str, Any]]]:
    capsys.readouterr()
    code = main(["doctor", "--json", *extra])
    return code, json.loads(capsys.readouterr().out)["data"]["findings"]


def _codes(findings: list[dict[str, Any]]) -> set[str]:
    return {f["code"] for f in findings}


def test_upgrade_repins_after_a_version_change(
    project: Path, empty_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert main(["link", "gemini"]) == 0
    assert main(["link", "--global", "codex"]) == 0
    monkeypatch.setattr(engram, "__version__", "2.0.0")
    assert main(["upgrade", "--plan"]) == 0
    settings = project / ".gemini/settings.json"
    assert "engram-protocol==1.2.3" in settings.read_text()
    assert main(["upgrade"]) == 0
    entry = jsonc.loads(settings.read_text())["mcpServers"]["engram"]
    assert entry["args"] == ["--from", "engram-protocol==2.0.0", "engram-mcp"]
    codex = (project.parent / "home/.codex/config.toml").read_text()
    assert "engram-protocol==2.0.0" in codex and "1.2.3" not in codex


def test_upgrade_repins_an_unrecorded_engram_entry(
    project: Path, empty_path: Path
) -> None:
    old = {"mcpServers": {"engram": {"command": "uvx",
                                     "args": ["--from", "engram-protocol==0.0.1", "engram-mcp"]}}}
    (project / ".mcp.json").write_text(json.dumps(old))
    assert main(["upgrade"]) == 0
    assert "engram-protocol==1.2.3" in (project / ".mcp.json").read_text()


def test_first_command_after_a_package_update_repins(
    project: Path, empty_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert main(["link", "gemini"]) == 0
    monkeypatch.setenv("ENGRAM_NO_AUTO_UPGRADE", "0")
    autopin.maybe_repin()  # writes the stamp for 1.2.3
    monkeypatch.setattr(engram, "__version__", "1.3.0")
    assert main(["link", "list"]) == 0
    assert "engram-protocol==1.3.0" in (project / ".gemini/settings.json").read_text()


def test_first_command_after_link_says_nothing_about_re_pinning(
    project: Path, empty_path: Path, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["link", "gemini"]) == 0
    monkeypatch.setenv("ENGRAM_NO_AUTO_UPGRADE", "0")
    capsys.readouterr()
    assert main(["link", "list"]) == 0  # no stamp yet, but every entry is already current
    assert "re-pinned" not in capsys.readouterr().err
    monkeypatch.setattr(engram, "__version__", "1.3.0")
    assert main(["link", "list"]) == 0
    assert "re-pinned" in capsys.readouterr().err


def test_auto_repin_is_off_with_the_env_switch(
    project: Path, empty_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert main(["link", "gemini"]) == 0
    monkeypatch.setattr(engram, "__version__", "1.3.0")
    assert main(["link", "list"]) == 0  # conftest sets ENGRAM_NO_AUTO_UPGRADE=1
    assert "engram-protocol==1.2.3" in (project / ".gemini/settings.json").read_text()


def test_doctor_reports_a_stale_pin_after_a_version_change(
    project: Path, empty_path: Path, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str], kit: Any,
) -> None:
    kit.fake(empty_path / "uvx", answers_initialize=True)
    assert main(["link", "cursor"]) == 0
    monkeypatch.setattr(engram, "__version__", "2.0.0")
    code, findings = _doctor(capsys)
    stale = [f for f in findings if f["code"] == "host.stale_pin"]
    assert stale and "1.2.3" in stale[0]["message"] and stale[0]["level"] == "warn"
    assert stale[0]["remediation"]
    assert code == 0
    assert _doctor(capsys, "--strict")[0] == 1


def test_doctor_warns_on_gemini_server_trust(
    project: Path, bin_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (project / ".gemini").mkdir()
    entry = {"command": "engram-mcp", "args": [], "trust": True}
    (project / ".gemini/settings.json").write_text(json.dumps({"mcpServers": {"engram": entry}}))
    code, findings = _doctor(capsys)
    trust = [f for f in findings if f["code"] == "host.gemini_server_trust"]
    assert trust and trust[0]["level"] == "warn" and code == 0


@pytest.mark.parametrize("line", ['approval_mode = "approve"', 'approval_mode = "auto"'])
def test_doctor_fails_codex_autoapprove(
    home: Path, bin_dir: Path, capsys: pytest.CaptureFixture[str], line: str
) -> None:
    assert main(["link", "--global", "codex"]) == 0
    cfg = home / ".codex/config.toml"
    cfg.write_text(cfg.read_text().replace('approval_mode = "prompt"', line))
    code, findings = _doctor(capsys)
    assert "host.codex_autoapprove" in _codes(findings) and code == 1


def test_doctor_fails_codex_server_default_autoapprove(
    home: Path, bin_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cfg = home / ".codex/config.toml"
    cfg.parent.mkdir(parents=True)
    cfg.write_text('[mcp_servers.engram]\ncommand = "engram-mcp"\n'
                   'default_tools_approval_mode = "approve"\n')
    assert "host.codex_autoapprove" in _codes(_doctor(capsys)[1])


def test_doctor_fails_engram_commit_in_a_claude_allow_list(
    project: Path, bin_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (project / ".claude").mkdir()
    (project / ".claude/settings.json").write_text(
        '{"permissions": {"allow": ["mcp__engram__engram_commit"]}}')
    code, findings = _doctor(capsys)
    assert "host.commit_allowlisted" in _codes(findings) and code == 1


def test_doctor_reports_clamped_config_and_missing_gitignore_lines(
    project: Path, bin_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = project / ".agents/.engram"
    root.mkdir(parents=True)
    (root / "engram.config.json").write_text('{"load": {"limit": 99}}')
    findings = _doctor(capsys)[1]
    assert {"config.clamped", "root.gitignore"} <= _codes(findings)
    assert all(f["remediation"] for f in findings if f["level"] != "ok")


def test_a_uvx_entry_without_uvx_is_an_error_whose_fix_is_link_not_uvx(
    project: Path, empty_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["link", "gemini"]) == 0  # under uvx: the pinned form
    code, findings = _doctor(capsys)
    missing = [f for f in findings if f["code"] == "host.missing_executable"]
    assert code == 1 and missing and "uvx is not on PATH" in missing[0]["message"]
    assert "engram link gemini" in missing[0]["remediation"]
    assert not any("uvx form" in f["remediation"] and "switch" in f["remediation"]
                   for f in findings)


def test_doctor_on_a_clean_link_has_no_errors(
    project: Path, bin_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["link", "claude"]) == 0
    assert main(["link", "--global", "codex"]) == 0
    code, findings = _doctor(capsys)
    assert code == 0 and not [f for f in findings if f["level"] == "error"]
    assert "host.starts" in _codes(findings)


def test_auto_repin_writes_nothing_when_nothing_is_linked(
    project: Path, home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ENGRAM_NO_AUTO_UPGRADE", "0")
    assert main(["link", "list"]) == 0
    assert not (home / ".engram").exists()


def test_doctor_warns_when_a_linked_host_lost_its_entry(
    project: Path, bin_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["link", "gemini"]) == 0
    (project / ".gemini/settings.json").write_text("{}\n")
    found = [f for f in _doctor(capsys)[1] if f["code"] == "host.link_incomplete"]
    assert found and "engram link gemini" in found[0]["remediation"]


def test_doctor_reports_a_tampered_memory_file(
    project: Path, bin_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from engram.store.repo import Change, Store
    from engram.workspace import resolve

    roots = resolve()
    roots.workspace.path.mkdir(parents=True)
    text = (Path(__file__).resolve().parent.parent / "fixtures/memories/v3/"
            "run-smoke-suite-before-tagging.md").read_text()
    Store(roots.workspace).write_files([Change("rules/run-smoke.md", text)], "seed")
    assert "integrity.ok" in _codes(_doctor(capsys)[1])
    (roots.workspace.path / "rules/run-smoke.md").write_text(text + "\nsneaky edit\n")
    code, findings = _doctor(capsys)
    assert "integrity.mismatch" in _codes(findings) and code == 1
