"""Link/unlink rules of SPEC §11.1–§11.3 beyond the goldens: ownership, forms, flags, errors."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

import pytest

from engram.cli.main import main
from engram.hosts import jsonc
from engram.hosts.files import STATE_FILE

PINNED = ["--from", "engram-protocol==1.2.3", "engram-mcp"]


def _json(path: Path) -> dict:  # type: ignore[type-arg]
    return jsonc.loads(path.read_text())  # type: ignore[no-any-return]


def test_unlink_keeps_other_servers_and_comments(project: Path, bin_dir: Path) -> None:
    original = '{\n  // team servers\n  "mcpServers": {\n    "db": {"command": "db-mcp"}\n  }\n}\n'
    (project / ".mcp.json").write_text(original)
    assert main(["link", "claude"]) == 0
    assert set(_json(project / ".mcp.json")["mcpServers"]) == {"engram", "db"}
    assert main(["unlink", "claude"]) == 0
    assert (project / ".mcp.json").read_text() == original


def test_link_creates_then_unlink_removes_files_it_created(project: Path, bin_dir: Path) -> None:
    assert main(["link", "claude"]) == 0
    assert (project / ".mcp.json").is_file() and (project / "CLAUDE.md").is_file()
    assert main(["unlink"]) == 0
    assert sorted(p.name for p in project.iterdir()) == []


def test_engram_under_uvx_writes_the_pinned_uvx_form(project: Path, empty_path: Path) -> None:
    assert main(["link", "gemini"]) == 0
    entry = _json(project / ".gemini/settings.json")["mcpServers"]["engram"]
    assert entry == {"command": "uvx", "args": PINNED}


def test_claude_hook_under_uvx_uses_the_pinned_form(
    project: Path, empty_path: Path
) -> None:
    assert main(["link", "claude"]) == 0
    hooks = _json(project / ".claude/settings.local.json")["hooks"]
    cmd = hooks["SessionStart"][0]["hooks"][0]["command"]
    assert cmd == "uvx --from engram-protocol==1.2.3 engram agent-hook --host claude"


def test_always_load_only_without_claude_hooks(project: Path, bin_dir: Path) -> None:
    assert main(["link", "claude", "--no-hooks"]) == 0
    assert _json(project / ".mcp.json")["mcpServers"]["engram"]["args"] == ["--always-load"]
    assert main(["unlink", "claude"]) == 0
    assert main(["link", "claude"]) == 0
    assert _json(project / ".mcp.json")["mcpServers"]["engram"]["args"] == []


def test_existing_entry_keeps_its_flags_on_link_and_refreshes_on_upgrade(
    project: Path, bin_dir: Path
) -> None:
    assert main(["link", "claude", "--no-hooks"]) == 0
    assert main(["link", "claude"]) == 0  # installs hooks; the entry itself is not changed
    assert _json(project / ".mcp.json")["mcpServers"]["engram"]["args"] == ["--always-load"]
    assert main(["upgrade"]) == 0  # upgrade applies §11.2: a hook is installed now
    assert _json(project / ".mcp.json")["mcpServers"]["engram"]["args"] == []


@pytest.mark.parametrize("host", ["gemini", "cursor", "opencode"])
def test_always_load_never_reaches_other_hosts(project: Path, bin_dir: Path, host: str) -> None:
    assert main(["link", host]) == 0
    assert main(["link", "--global", host]) == 0
    for path in project.rglob("*.json*"):
        assert "--always-load" not in path.read_text()


def test_global_claude_prints_the_user_scope_command(
    project: Path, bin_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["link", "--global", "claude", "--no-hooks"]) == 0
    out = capsys.readouterr().out
    server = bin_dir / "engram-mcp"
    assert f"claude mcp add --scope user engram -- {server} --always-load" in out
    assert main(["link", "--global", "claude"]) == 0
    assert f"claude mcp add --scope user engram -- {server}\n" in capsys.readouterr().out + "\n"


def test_foreign_engram_entry_changes_only_with_force(project: Path, bin_dir: Path) -> None:
    foreign = {"mcpServers": {"engram": {"command": "python", "args": ["my_engram.py"]}}}
    (project / ".cursor").mkdir()
    (project / ".cursor/mcp.json").write_text(json.dumps(foreign))
    assert main(["link", "cursor"]) == 0
    assert _json(project / ".cursor/mcp.json") == foreign
    assert main(["unlink", "cursor"]) == 0
    assert _json(project / ".cursor/mcp.json") == foreign
    assert main(["link", "cursor", "--force"]) == 0
    assert _json(project / ".cursor/mcp.json")["mcpServers"]["engram"]["command"] == \
        "engram-mcp"


def test_typescript_npx_entry_is_engrams_and_gets_repinned(project: Path, bin_dir: Path) -> None:
    ts = {"command": "npx", "args": ["-y", "--package", "@the-long-ride/engram@0.9.0",
                                     "engram-mcp"], "env": {"A": "1"}}
    (project / ".mcp.json").write_text(json.dumps({"mcpServers": {"engram": ts}}, indent=2))
    assert main(["link", "claude"]) == 0
    assert _json(project / ".mcp.json")["mcpServers"]["engram"] == \
        {"command": "engram-mcp", "args": [], "env": {"A": "1"}}


def test_unparseable_settings_stay_byte_identical_and_exit_non_zero(
    project: Path, bin_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    broken = b'{\n  "permissions": {"allow": [\n}\n'
    (project / ".claude").mkdir()
    (project / ".claude/settings.local.json").write_bytes(broken)
    assert main(["link", "claude"]) == 1
    assert (project / ".claude/settings.local.json").read_bytes() == broken
    # The file is skipped and named; the rest of the link is written (issue 27 class 6).
    assert (project / "CLAUDE.md").exists() and (project / ".mcp.json").exists()
    out = capsys.readouterr().out
    assert "skipped" in out and "cannot parse at line" in out, out


def test_unparseable_file_reports_its_code_in_json(
    project: Path, bin_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (project / "opencode.json").write_text("{ nope }")
    assert main(["link", "opencode", "--json"]) == 1
    env = json.loads(capsys.readouterr().out)
    assert env["ok"] is False and env["diagnostics"][0]["code"] == "host.unparseable"


def test_codex_config_keeps_user_tables_and_comments_and_parses(home: Path, bin_dir: Path) -> None:
    cfg = home / ".codex/config.toml"
    cfg.parent.mkdir(parents=True)
    original = ('# top comment\nmodel = "o3"\n\n[mcp_servers.other]\ncommand = "x" # why\n'
                '\n[[profiles_list]]\nname = "a"\n')
    cfg.write_text(original)
    assert main(["link", "--global", "codex"]) == 0
    text = cfg.read_text()
    data = tomllib.loads(text)
    assert data["mcp_servers"]["other"] == {"command": "x"}
    assert data["mcp_servers"]["engram"]["tools"]["engram_commit"] == {"approval_mode": "prompt"}
    assert "# top comment" in text and "# why" in text
    assert main(["unlink", "--global", "codex"]) == 0
    assert cfg.read_text() == original


def test_codex_hand_written_entry_moves_into_the_block(home: Path, bin_dir: Path) -> None:
    cfg = home / ".codex/config.toml"
    cfg.parent.mkdir(parents=True)
    cfg.write_text('# mine\n[mcp_servers.engram]\ncommand = "engram-mcp"\n'
                   'args = ["--no-elicitation"]\n')
    assert main(["link", "--global", "codex"]) == 0
    text = cfg.read_text()
    assert text.count("[mcp_servers.engram]") == 1 and "# mine" in text
    assert tomllib.loads(text)["mcp_servers"]["engram"]["args"] == ["--no-elicitation"]


def test_codex_block_is_repaired_when_someone_set_approve(home: Path, bin_dir: Path) -> None:
    assert main(["link", "--global", "codex"]) == 0
    cfg = home / ".codex/config.toml"
    cfg.write_text(cfg.read_text().replace('"prompt"', '"approve"'))
    assert main(["link", "--global", "codex"]) == 0
    assert 'approval_mode = "prompt"' in cfg.read_text()


def test_codex_workspace_link_prints_the_global_hint(
    project: Path, bin_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["link", "codex"]) == 0
    assert "engram link --global codex" in capsys.readouterr().out
    assert (project / "AGENTS.md").is_file()


def test_shared_instruction_file_survives_until_its_last_host_unlinks(
    project: Path, bin_dir: Path
) -> None:
    (project / "AGENTS.md").write_text("# Guide\n")
    assert main(["link", "codex"]) == 0
    assert main(["link", "opencode"]) == 0
    assert main(["unlink", "codex"]) == 0
    assert "engram:start" in (project / "AGENTS.md").read_text()
    assert main(["unlink", "opencode"]) == 0
    assert (project / "AGENTS.md").read_text() == "# Guide\n"


def test_opencode_uses_the_existing_jsonc_file(project: Path, bin_dir: Path) -> None:
    (project / "opencode.jsonc").write_text('{\n  // c\n  "theme": "x",\n}\n')
    assert main(["link", "opencode"]) == 0
    assert not (project / "opencode.json").exists()
    entry = jsonc.loads((project / "opencode.jsonc").read_text())["mcp"]["engram"]
    assert entry == {"type": "local", "command": ["engram-mcp"], "args": [], "enabled": True}


def test_team_hooks_go_to_the_shared_settings_file(project: Path, bin_dir: Path) -> None:
    assert main(["link", "claude", "--team"]) == 0
    assert "agent-hook" in (project / ".claude/settings.json").read_text()
    assert not (project / ".claude/settings.local.json").exists()
    assert main(["upgrade"]) == 0
    assert not (project / ".claude/settings.local.json").exists()
    assert main(["unlink", "claude"]) == 0
    assert not (project / ".claude").exists()


def test_read_mode_off_installs_no_hooks(project: Path, bin_dir: Path) -> None:
    root = project / ".agents/.engram"
    root.mkdir(parents=True)
    (root / "engram.config.json").write_text('{"read": "off"}')
    assert main(["link", "claude"]) == 0
    settings = _json(project / ".claude/settings.local.json")
    assert "hooks" not in settings and settings["permissions"]["ask"]  # the gate, no hooks
    assert _json(project / ".mcp.json")["mcpServers"]["engram"]["args"] == ["--always-load"]


def test_no_mcp_skips_the_registration(project: Path, bin_dir: Path) -> None:
    assert main(["link", "gemini", "--no-mcp"]) == 0
    assert (project / "GEMINI.md").is_file() and not (project / ".gemini").exists()


def test_slash_command_maps_forced_session_saves(project: Path, bin_dir: Path) -> None:
    assert main(["link", "claude"]) == 0
    text = (project / ".claude/commands/engram.md").read_text()
    assert "`ss -f last N sessions` | shell `engram save-session --query-level N --force`" in text
    assert "$ARGUMENTS" in text and "engram_commit" in text


def test_plan_writes_nothing_not_even_the_record(
    project: Path, home: Path, bin_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["link", "claude", "--plan"]) == 0
    assert "create" in capsys.readouterr().out
    assert list(project.iterdir()) == []
    assert not (home / ".engram" / STATE_FILE).exists()


def test_link_list_shows_recorded_links(
    project: Path, bin_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["link", "gemini"]) == 0
    assert main(["link", "--global", "windsurf"]) == 0
    capsys.readouterr()
    assert main(["link", "list", "--json"]) == 0
    links = json.loads(capsys.readouterr().out)["data"]["links"]
    assert {(x["host"], x["scope"]) for x in links} == {("gemini", "workspace"),
                                                        ("windsurf", "global")}


def test_unknown_host_is_a_usage_error(project: Path) -> None:
    assert main(["link", "vscode"]) == 2


def test_an_empty_config_file_counts_as_an_empty_object(project: Path, bin_dir: Path) -> None:
    (project / ".claude").mkdir()
    (project / ".claude/settings.local.json").write_text("")
    (project / ".mcp.json").write_text("\n")
    assert main(["link", "claude"]) == 0
    assert "engram" in _json(project / ".mcp.json")["mcpServers"]
    assert "SessionStart" in _json(project / ".claude/settings.local.json")["hooks"]
    assert main(["unlink", "claude"]) == 0
    assert _json(project / ".mcp.json") == {}
