"""Link sets each host's gate on engram_commit; unlink takes out exactly it; doctor finds bypasses.

Attack first: a host config that lets `engram_commit` run without a human (an allow rule, a
wildcard, bypass mode, OpenCode's default, a user rule that wins by order) must be reported, and
link must not leave one behind.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from engram.cli.main import main

ASK = "mcp__engram__engram_commit"
READ_ONLY = ["mcp__engram__engram_load", "mcp__engram__engram_search",
             "mcp__engram__engram_route", "mcp__engram__engram_status",
             "mcp__engram__engram_verify", "mcp__engram__engram_save",
             "mcp__engram__engram_save_session", "mcp__engram__engram_note"]




def _codes(findings: list[dict[str, Any]]) -> set[str]:
    return {f["code"] for f in findings if f["level"] != "ok"}


def test_claude_link_asks_for_commit_and_allows_only_tools_that_write_nothing(
    project: Path, bin_dir: Path, kit: Any
) -> None:
    assert main(["link", "claude"]) == 0
    perms = kit.json(project / ".claude/settings.local.json")["permissions"]
    assert perms["ask"] == [ASK]
    assert perms["allow"] == READ_ONLY
    assert not any("commit" in rule or rule.endswith("*") for rule in perms["allow"])


def test_claude_no_allow_keeps_the_commit_gate(project: Path, bin_dir: Path, kit: Any) -> None:
    assert main(["link", "claude", "--no-allow", "--team"]) == 0
    perms = kit.json(project / ".claude/settings.json")["permissions"]
    assert perms == {"ask": [ASK]}


def test_claude_global_gate_goes_in_the_user_settings(home: Path, bin_dir: Path, kit: Any) -> None:
    assert main(["link", "--global", "claude"]) == 0
    perms = kit.json(home / ".claude/settings.json")["permissions"]
    assert perms["ask"] == [ASK] and perms["allow"] == READ_ONLY
    assert main(["unlink", "--global", "claude"]) == 0
    assert not (home / ".claude/settings.json").exists()


def test_unlink_keeps_the_users_own_identical_rule(project: Path, bin_dir: Path, kit: Any) -> None:
    (project / ".claude").mkdir()
    mine = '{"permissions": {"allow": ["mcp__engram__engram_load"], "ask": ["Bash"]}}\n'
    (project / ".claude/settings.local.json").write_text(mine)
    assert main(["link", "claude", "--no-hooks"]) == 0
    perms = kit.json(project / ".claude/settings.local.json")["permissions"]
    assert perms["allow"].count("mcp__engram__engram_load") == 1 and ASK in perms["ask"]
    assert main(["unlink", "claude"]) == 0
    assert (project / ".claude/settings.local.json").read_text() == mine


def test_opencode_gate_is_appended_after_a_users_catch_all(
    project: Path, bin_dir: Path, kit: Any
) -> None:
    (project / "opencode.json").write_text('{"permission": {"*": "allow"}}\n')
    assert main(["link", "opencode"]) == 0
    permission = kit.json(project / "opencode.json")["permission"]
    keys = list(permission)
    assert keys[0] == "*" and permission["engram_engram_commit"] == "ask"
    assert keys.index("engram_engram_commit") > keys.index("*")  # last match wins in OpenCode


def test_opencode_users_commit_allow_is_kept_noted_and_reported(
    project: Path, bin_dir: Path, capsys: pytest.CaptureFixture[str], kit: Any
) -> None:
    (project / "opencode.json").write_text('{"permission": {"engram_engram_commit": "allow"}}\n')
    assert main(["link", "opencode"]) == 0
    assert "kept your permission engram_engram_commit = 'allow'" in capsys.readouterr().out
    code, findings = kit.doctor(capsys)
    assert "host.opencode_commit_allowed" in _codes(findings) and code == 1


@pytest.mark.parametrize("permission", [
    None, "allow", {"*": "ask", "engram_*": "allow"}, {"engram_engram_commit": "ask", "*": "allow"},
    {"engram_engram_commit": {"*": "allow"}},
])
def test_doctor_finds_opencode_configs_that_run_commit_unasked(
    project: Path, bin_dir: Path, capsys: pytest.CaptureFixture[str], permission: Any, kit: Any
) -> None:
    config: dict[str, Any] = {"mcp": {"engram": {"type": "local", "command": ["engram-mcp"]}}}
    if permission is not None:
        config["permission"] = permission
    (project / "opencode.json").write_text(json.dumps(config))
    assert "host.opencode_commit_allowed" in _codes(kit.doctor(capsys)[1])


def test_doctor_is_quiet_about_opencode_after_link(
    project: Path, bin_dir: Path, capsys: pytest.CaptureFixture[str], kit: Any
) -> None:
    assert main(["link", "opencode"]) == 0
    assert "host.opencode_commit_allowed" not in _codes(kit.doctor(capsys)[1])


@pytest.mark.parametrize("rule", [ASK, "mcp__engram", "mcp__engram__*", "mcp__engram__engram_*",
                                  "mcp__engram__engram_c*"])
def test_doctor_fails_any_claude_allow_that_covers_commit(
    project: Path, bin_dir: Path, capsys: pytest.CaptureFixture[str], rule: str, kit: Any
) -> None:
    (project / ".claude").mkdir()
    (project / ".claude/settings.json").write_text(json.dumps({"permissions": {"allow": [rule]}}))
    code, findings = kit.doctor(capsys)
    found = [f for f in findings if f["code"] == "host.commit_allowlisted"]
    assert code == 1 and found and rule in found[0]["message"]


def test_doctor_warns_on_claude_bypass_mode(
    project: Path, bin_dir: Path, capsys: pytest.CaptureFixture[str], kit: Any
) -> None:
    (project / ".claude").mkdir()
    (project / ".claude/settings.local.json").write_text(
        '{"permissions": {"defaultMode": "bypassPermissions"}}')
    assert "host.claude_bypass" in _codes(kit.doctor(capsys)[1])


def test_gemini_global_link_writes_a_user_policy_and_unlink_removes_it(
    home: Path, bin_dir: Path
) -> None:
    import tomllib

    assert main(["link", "--global", "gemini"]) == 0
    policy = home / ".gemini/policies/engram.toml"
    rules = tomllib.loads(policy.read_text())["rule"]
    commit = [r for r in rules if r["toolName"] == "engram_commit"]
    assert commit == [{"mcpName": "engram", "toolName": "engram_commit",
                       "decision": "ask_user", "priority": 900}]
    allowed = [r for r in rules if r["decision"] == "allow"]
    assert allowed and "engram_commit" not in allowed[0]["toolName"]
    assert main(["unlink", "--global", "gemini"]) == 0
    assert not (home / ".gemini/policies").exists()


def test_gemini_project_link_says_how_to_get_the_policy_only_while_it_is_missing(
    project: Path, home: Path, bin_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["link", "gemini"]) == 0
    assert "engram link --global gemini" in capsys.readouterr().out
    assert main(["unlink", "gemini"]) == 0
    assert main(["link", "--global", "gemini"]) == 0
    capsys.readouterr()
    assert main(["link", "gemini"]) == 0
    assert "engram link --global gemini" not in capsys.readouterr().out


def test_a_users_own_gemini_policy_file_is_kept(home: Path, bin_dir: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    policy = home / ".gemini/policies/engram.toml"
    policy.parent.mkdir(parents=True)
    policy.write_text("# mine\n")
    assert main(["link", "--global", "gemini"]) == 0
    assert policy.read_text() == "# mine\n" and "not Engram's" in capsys.readouterr().out
    assert main(["unlink", "--global", "gemini"]) == 0
    assert policy.read_text() == "# mine\n"


def test_claude_allow_rules_for_other_engram_tools_are_not_reported(
    project: Path, bin_dir: Path, capsys: pytest.CaptureFixture[str], kit: Any
) -> None:
    (project / ".claude").mkdir()
    rules = ["mcp__engram__engram_load", "mcp__engram__engram_s*", "mcp__engramx"]
    (project / ".claude/settings.json").write_text(json.dumps({"permissions": {"allow": rules}}))
    assert "host.commit_allowlisted" not in _codes(kit.doctor(capsys)[1])


def _gemini_project(project: Path, settings: dict[str, Any]) -> None:
    (project / ".gemini").mkdir(exist_ok=True)
    entry = {"command": "engram-mcp", "args": [], **settings.pop("entry", {})}
    (project / ".gemini/settings.json").write_text(
        json.dumps({"mcpServers": {"engram": entry}, **settings}))


@pytest.mark.parametrize("allowed", ["mcp_engram_engram_commit", "mcp_engram_*", "mcp_*", "*"])
def test_gemini_tools_allowed_over_commit_is_an_error_until_the_policy_outranks_it(
    project: Path, home: Path, bin_dir: Path, capsys: pytest.CaptureFixture[str], kit: Any,
    allowed: str,
) -> None:
    _gemini_project(project, {"tools": {"allowed": [allowed]}, "entry": {"trust": True}})
    codes = _codes(kit.doctor(capsys)[1])
    assert {"host.gemini_commit_allowed", "host.gemini_server_trust"} <= codes
    assert main(["link", "--global", "gemini"]) == 0
    codes = _codes(kit.doctor(capsys)[1])
    assert not codes & {"host.gemini_commit_allowed", "host.gemini_server_trust"}


@pytest.mark.parametrize(("rule", "reported"), [
    ('mcpName = "engram"\ntoolName = "engram_commit"\ndecision = "allow"\npriority = 999', True),
    ('toolName = "mcp_engram_*"\ndecision = "allow"\npriority = 950', True),
    ('mcpName = "engram"\ntoolName = "*"\ndecision = "allow"\npriority = 100', False),
    ('mcpName = "engram"\ntoolName = "engram_load"\ndecision = "allow"\npriority = 999', False),
])
def test_a_user_policy_that_outranks_engrams_ask_rule_is_reported(
    home: Path, bin_dir: Path, capsys: pytest.CaptureFixture[str], kit: Any,
    rule: str, reported: bool,
) -> None:
    assert main(["link", "--global", "gemini"]) == 0
    (home / ".gemini/policies/mine.toml").write_text(f"[[rule]]\n{rule}\n")
    assert ("host.gemini_commit_allowed" in _codes(kit.doctor(capsys)[1])) is reported


def test_gemini_project_link_allows_only_read_only_tools_and_unlink_keeps_the_users(
    project: Path, bin_dir: Path, kit: Any
) -> None:
    (project / ".gemini").mkdir()
    mine = '{"tools": {"allowed": ["run_shell_command(git status)"]}}\n'
    (project / ".gemini/settings.json").write_text(mine)
    assert main(["link", "gemini"]) == 0
    allowed = kit.json(project / ".gemini/settings.json")["tools"]["allowed"]
    assert "run_shell_command(git status)" in allowed
    assert "mcp_engram_engram_load" in allowed and not any("commit" in a for a in allowed)
    assert main(["unlink", "gemini"]) == 0
    assert (project / ".gemini/settings.json").read_text() == mine


@pytest.mark.parametrize(("permission", "noted"), [("allow", True), ("ask", False)])
def test_opencode_string_permission_is_kept_and_noted_only_when_it_allows(
    project: Path, bin_dir: Path, capsys: pytest.CaptureFixture[str], permission: str,
    noted: bool,
) -> None:
    text = json.dumps({"permission": permission}) + "\n"
    (project / "opencode.json").write_text(text)
    assert main(["link", "opencode"]) == 0
    assert ("runs unasked" in capsys.readouterr().out) is noted
    assert main(["unlink", "opencode"]) == 0
    assert (project / "opencode.json").read_text() == text
