"""The launch command starts the installation that ran link; hosts say what the human still does.

Issue #19 items 2, 3, 5 and 6: bare name only for a PATH copy that is this installation outside
an activated venv, else the absolute path, the uvx form only when asked (or under uvx); doctor
spawns the command and says how to fix it; link and doctor report Claude's pending approval and
Gemini's folder trust; notes appear only when true; `.claude/settings.local.json` is git-ignored.
"""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path
from typing import Any

import pytest

import engram
from engram.cli.main import main
from engram.hosts import jsonc


def _find(findings: list[dict[str, Any]], code: str) -> list[dict[str, Any]]:
    return [f for f in findings if f["code"] == code]


@pytest.fixture
def venv(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, kit: Any) -> Path:
    """This installation's scripts live in a virtualenv's bin."""
    scripts = tmp_path / "venv/bin"
    scripts.mkdir(parents=True)
    kit.fake(scripts / "engram")
    kit.fake(scripts / "engram-mcp", answers_initialize=True)
    kit.install_at(monkeypatch, scripts, isolated=True)
    return scripts


def _server(project: Path) -> Any:
    return jsonc.loads((project / ".gemini/settings.json").read_text())["mcpServers"]["engram"]


def test_activated_venv_gets_absolute_paths_for_server_and_hook(
    project: Path, venv: Path, monkeypatch: pytest.MonkeyPatch, kit: Any
) -> None:
    monkeypatch.setenv("PATH", str(venv))  # the venv is activated in this shell only
    assert main(["link", "gemini", "--launcher", "path"]) == 0
    assert _server(project)["command"] == str(venv / "engram-mcp")
    assert main(["link", "claude"]) == 0
    hook = kit.json(project / ".claude/settings.local.json")["hooks"]["SessionStart"][0]
    assert shlex.split(hook["hooks"][0]["command"]) == [
        str(venv / "engram"), "agent-hook", "--host", "claude"]


def test_a_shim_on_path_that_is_this_installation_gets_the_shims_absolute_path(
    project: Path, home: Path, venv: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
    kit: Any,
) -> None:
    """A host started from a desktop launcher or with PATH=/usr/bin:/bin still starts it, and
    the shim survives `pipx upgrade`; a project file (shared) gets the bare name."""
    shims = tmp_path / "local-bin"  # pipx / uv tool: a symlink into the isolated venv
    shims.mkdir()
    (shims / "engram-mcp").symlink_to(venv / "engram-mcp")
    monkeypatch.setenv("PATH", str(shims))
    assert main(["link", "gemini", "--launcher", "path"]) == 0
    assert _server(project)["command"] == str(shims / "engram-mcp")
    assert main(["link", "gemini"]) == 0  # a project file is shared: the bare name
    assert _server(project)["command"] == "engram-mcp"
    assert main(["link", "gemini", "--global"]) == 0  # the user's own file: the shim's path
    assert kit.json(home / ".gemini/settings.json")["mcpServers"]["engram"]["command"] == str(
        shims / "engram-mcp")


@pytest.mark.parametrize("on_path", ["nothing", "another copy"])
def test_path_without_this_installation_gets_its_absolute_path_never_uvx(
    project: Path, venv: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, kit: Any,
    on_path: str,
) -> None:
    other = tmp_path / "other"
    other.mkdir()
    if on_path == "another copy":
        kit.fake(other / "engram-mcp")
    monkeypatch.setenv("PATH", str(other))
    assert main(["link", "gemini", "--launcher", "path"]) == 0
    assert _server(project) == {"command": str(venv / "engram-mcp"), "args": []}


def test_launcher_uvx_is_pinned_recorded_and_kept_by_upgrade(
    project: Path, venv: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert main(["link", "gemini", "--launcher", "uvx"]) == 0
    assert _server(project)["args"] == ["--from", "engram-protocol==1.2.3", "engram-mcp"]
    monkeypatch.setattr(engram, "__version__", "1.3.0")
    assert main(["upgrade"]) == 0
    assert _server(project) == {"command": "uvx",
                                "args": ["--from", "engram-protocol==1.3.0", "engram-mcp"]}


def test_upgrade_moves_a_silently_pinned_uvx_entry_to_this_installation(
    project: Path, venv: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (project / ".gemini").mkdir()
    legacy = {"command": "uvx", "args": ["--from", "engram-protocol==1.0.0", "engram-mcp"]}
    (project / ".gemini/settings.json").write_text(json.dumps({"mcpServers": {"engram": legacy}}))
    assert main(["upgrade"]) == 0
    assert _server(project)["command"] == "engram-mcp"  # a project file: the portable form


def test_upgrade_keeps_an_absolute_path_that_still_starts(
    project: Path, venv: Path, tmp_path: Path, kit: Any
) -> None:
    (tmp_path / "mine").mkdir()
    mine = kit.fake(tmp_path / "mine/engram-mcp", answers_initialize=True)
    (project / ".gemini").mkdir()
    entry = {"command": str(mine), "args": ["--no-elicitation"]}
    (project / ".gemini/settings.json").write_text(json.dumps({"mcpServers": {"engram": entry}}))
    assert main(["upgrade"]) == 0
    assert _server(project) == entry


def test_doctor_spawns_the_command_and_reports_why_it_does_not_start(
    project: Path, venv: Path, capsys: pytest.CaptureFixture[str], kit: Any
) -> None:
    assert main(["link", "gemini", "--launcher", "path"]) == 0
    assert _find(kit.doctor(capsys)[1], "host.starts")
    kit.fake(venv / "engram-mcp", fails="ModuleNotFoundError: No module named engram")
    code, findings = kit.doctor(capsys)
    broken = _find(findings, "host.no_start")
    assert code == 1 and broken and "No module named engram" in broken[0]["message"]
    assert "engram link gemini" in broken[0]["remediation"]


def test_doctor_starts_the_real_server(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, kit: Any,
    capsys: pytest.CaptureFixture[str],
) -> None:
    real = Path(sys.executable).parent
    if not (real / "engram-mcp").is_file():
        pytest.skip("engram-mcp is not installed next to this interpreter")
    kit.install_at(monkeypatch, real, isolated=True)
    monkeypatch.setenv("PATH", str(tmp_path))  # nothing on PATH: the absolute path is written
    assert main(["link", "cursor", "--launcher", "path"]) == 0
    started = _find(kit.doctor(capsys)[1], "host.starts")
    assert started and "engram" in started[0]["message"]


def test_doctor_flags_a_bare_name_that_only_this_shell_finds(
    project: Path, venv: Path, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str], kit: Any,
) -> None:
    monkeypatch.setenv("PATH", str(venv))
    (project / ".cursor").mkdir()
    (project / ".cursor/mcp.json").write_text(
        '{"mcpServers": {"engram": {"command": "engram-mcp", "args": []}}}')
    fragile = _find(kit.doctor(capsys)[1], "host.launch_fragile")
    # a project file is shared: the fix is an install every shell finds, or a personal path
    assert fragile and "pipx install" in fragile[0]["remediation"]
    assert "engram link cursor --launcher path" in fragile[0]["remediation"]


def test_claude_link_says_pending_approval_until_it_is_approved(
    project: Path, home: Path, bin_dir: Path, capsys: pytest.CaptureFixture[str], kit: Any
) -> None:
    assert main(["link", "claude"]) == 0
    assert "Pending approval" in capsys.readouterr().out
    assert _find(kit.doctor(capsys)[1], "host.claude_pending")[0]["level"] == "warn"
    settings = project / ".claude/settings.local.json"
    data = kit.json(settings)
    data["enabledMcpjsonServers"] = ["engram"]  # what Claude's approval prompt writes
    settings.write_text(json.dumps(data))
    capsys.readouterr()
    # Claude Code 2.1.332 still shows "Pending approval" until the folder is trusted too
    assert main(["link", "claude"]) == 0
    assert "Pending approval" in capsys.readouterr().out
    (home / ".claude.json").write_text(json.dumps(  # what Claude's trust dialog writes
        {"projects": {str(project): {"hasTrustDialogAccepted": True}}}))
    assert main(["link", "claude"]) == 0
    assert "Pending approval" not in capsys.readouterr().out
    assert _find(kit.doctor(capsys)[1], "host.claude_pending")[0]["level"] == "ok"


@pytest.mark.parametrize(("rules", "trusted"), [
    (None, False), ({"@P@/x": "TRUST_PARENT"}, True), ({"@J@": "TRUST_FOLDER"}, True),
    ({"@P@/x": "TRUST_PARENT", "@J@": "DO_NOT_TRUST"}, False), ({"@J@/sub": "TRUST_FOLDER"}, False),
])
def test_gemini_link_says_disabled_until_the_folder_is_trusted(
    project: Path, home: Path, bin_dir: Path, capsys: pytest.CaptureFixture[str],
    rules: dict[str, str] | None, trusted: bool, kit: Any,
) -> None:
    if rules is not None:
        (home / ".gemini").mkdir()
        text = json.dumps(rules).replace("@P@", str(project.parent))
        (home / ".gemini/trustedFolders.json").write_text(text.replace("@J@", str(project)))
    assert main(["link", "gemini"]) == 0
    assert ("Disabled" in capsys.readouterr().out) is not trusted
    found = _find(kit.doctor(capsys)[1], "host.gemini_trust")
    assert found and found[0]["level"] == ("ok" if trusted else "warn")


def test_global_claude_notes_follow_the_users_claude_json(
    home: Path, bin_dir: Path, capsys: pytest.CaptureFixture[str], kit: Any
) -> None:
    assert main(["link", "--global", "claude"]) == 0
    server = bin_dir / "engram-mcp"
    assert f"claude mcp add --scope user engram -- {server}" in capsys.readouterr().out
    assert _find(kit.doctor(capsys)[1], "host.claude_user_missing")
    entry = {"type": "stdio", "command": "engram-mcp", "args": ["--always-load"], "env": {}}
    (home / ".claude.json").write_text(json.dumps({"mcpServers": {"engram": entry}}))
    findings = kit.doctor(capsys)[1]
    assert not _find(findings, "host.claude_user_missing")
    assert any(".claude.json" in f["message"] for f in _find(findings, "host.starts"))
    (home / ".claude.json").write_text(json.dumps({"mcpServers": {}}))  # `claude mcp remove`
    capsys.readouterr()
    assert main(["unlink", "--global", "claude"]) == 0
    assert "claude mcp remove" not in capsys.readouterr().out


def test_codex_project_link_points_at_global_only_while_it_is_missing(
    project: Path, home: Path, bin_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["link", "codex"]) == 0
    assert "engram link --global codex" in capsys.readouterr().out
    assert main(["link", "--global", "codex"]) == 0
    assert main(["unlink", "codex"]) == 0
    capsys.readouterr()
    assert main(["link", "codex"]) == 0
    assert "--global" not in capsys.readouterr().out


def test_claude_local_settings_are_git_ignored_when_engram_creates_them(
    project: Path, bin_dir: Path
) -> None:
    (project / ".git").mkdir()
    (project / ".gitignore").write_text("node_modules/")
    assert main(["link", "claude"]) == 0
    assert (project / ".gitignore").read_text() == "node_modules/\n.claude/settings.local.json\n"
    assert main(["unlink", "claude"]) == 0
    assert (project / ".gitignore").read_text() == "node_modules/\n"
    assert not (project / ".claude").exists()


def test_no_gitignore_line_when_already_covered_or_not_engrams_file(
    project: Path, bin_dir: Path
) -> None:
    (project / ".git").mkdir()
    (project / ".gitignore").write_text(".claude/\n")
    assert main(["link", "claude"]) == 0
    assert (project / ".gitignore").read_text() == ".claude/\n"


def test_upgrade_keeps_a_working_installation_and_link_moves_to_the_running_one(
    project: Path, venv: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, kit: Any
) -> None:
    assert main(["link", "claude"]) == 0
    other = tmp_path / "other/bin"
    other.mkdir(parents=True)
    kit.fake(other / "engram")
    kit.fake(other / "engram-mcp", answers_initialize=True)
    kit.install_at(monkeypatch, other, isolated=True)

    def commands() -> tuple[str, str]:
        hook = kit.json(project / ".claude/settings.local.json")["hooks"]["SessionStart"][0]
        server = kit.json(project / ".mcp.json")["mcpServers"]["engram"]["command"]
        return shlex.split(hook["hooks"][0]["command"])[0], server

    monkeypatch.setattr(engram, "__version__", "1.3.0")
    assert main(["upgrade"]) == 0  # the automatic re-pin runs the same relink
    assert commands() == (str(venv / "engram"), "engram-mcp")  # .mcp.json is shared
    assert main(["link", "claude"]) == 0
    assert commands() == (str(other / "engram"), "engram-mcp")


def test_doctor_reports_a_hook_whose_engram_is_gone(
    project: Path, venv: Path, capsys: pytest.CaptureFixture[str], kit: Any
) -> None:
    assert main(["link", "claude"]) == 0
    assert not _find(kit.doctor(capsys)[1], "host.hook_missing")
    (venv / "engram").unlink()
    found = _find(kit.doctor(capsys)[1], "host.hook_missing")
    assert found and "engram link claude" in found[0]["remediation"]


@pytest.mark.parametrize(("prefix", "under"), [
    ("/home/u/.cache/uv/archive-v0/5mledyZnvLs75xlCg-2oW", True),
    ("/home/u/.cache/uv/environments-v2/engram-1a2b", True),
    ("/home/u/.local/share/uv/tools/engram-protocol", False),
    ("/home/u/.local/pipx/venvs/engram-protocol", False),
])
def test_uvx_environments_are_told_from_installed_tools(prefix: str, under: bool) -> None:
    from engram.hosts.command import _in_uv_cache

    assert _in_uv_cache(Path(prefix)) is under


def test_link_says_when_a_project_file_runs_a_path_of_this_machine(
    project: Path, venv: Path, bin_dir: Path, monkeypatch: pytest.MonkeyPatch, kit: Any,
    capsys: pytest.CaptureFixture[str],
) -> None:
    kit.install_at(monkeypatch, venv, isolated=True)  # PATH has another copy: absolute path
    assert main(["link", "cursor", "--launcher", "path"]) == 0
    assert "a path on this machine" in capsys.readouterr().out
    kit.install_at(monkeypatch, bin_dir)  # a PATH shim install: its path, noted too
    assert main(["link", "cursor", "--launcher", "path"]) == 0
    assert "a path on this machine" in capsys.readouterr().out
    assert main(["link", "cursor"]) == 0  # the default in a project: the bare name, no note
    assert "a path on this machine" not in capsys.readouterr().out


def test_upgrade_keeps_the_bare_name_in_a_project_file_it_finds(
    project: Path, venv: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An unrecorded project entry (a teammate's commit) stays portable through `upgrade`."""
    (project / ".gemini").mkdir()
    entry = {"command": "engram-mcp", "args": []}
    (project / ".gemini/settings.json").write_text(json.dumps({"mcpServers": {"engram": entry}}))
    monkeypatch.setattr(engram, "__version__", "1.3.0")
    assert main(["upgrade"]) == 0
    assert _server(project) == entry
