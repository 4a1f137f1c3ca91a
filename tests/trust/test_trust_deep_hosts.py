"""Attack (issue 27, class 6): a host file nested 100,000 levels deep, run through the real CLI
(a subprocess with a temp HOME and a temp repository).

On main a deeply nested `~/.codex/config.toml` (or a project's `.codex/config.toml`, or a
Gemini policy) made `engram doctor` print `input.too_deep` and nothing else: tomllib recurses
once per level and its RecursionError escaped every TOMLDecodeError handler. A project's
`.codex/config.toml` with one dotted key of 100,000 parts made doctor run until killed (tomllib's
memory grows with the square of the key's length). `engram link <host>` stopped at the first such
file and linked nothing; a deep `~/.claude.json` or `.claude/settings.json` (which Claude may
still read) was skipped by doctor without a word. Now doctor reports each such file as
`host.unparseable` and every other finding as before; link leaves the file byte-identical, names
it under `skipped` with the code, links everything else and exits 1.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import engram_cmd, subprocess_env

LEVELS = 100_000
DEEP_JSON = '{"mcpServers": ' + "[" * LEVELS + "]" * LEVELS + "}"
DEEP_TOML = "x = " + "[" * LEVELS + "]" * LEVELS + "\n"
LONG_KEY = ".".join(["a"] * LEVELS) + " = 1\n"  # a dotted key: quadratic memory in tomllib


def _run(project: Path, *args: str) -> subprocess.CompletedProcess[str]:
    done = subprocess.run([*engram_cmd(), *args], cwd=project, env=subprocess_env(),
                          capture_output=True, text=True, check=False, timeout=120)
    assert "Traceback" not in done.stderr, done.stderr
    return done


def _envelope(done: subprocess.CompletedProcess[str]) -> dict[str, Any]:
    return dict(json.loads(done.stdout))


def _plant(path: Path, text: str) -> bytes:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path.read_bytes()


def _home(project: Path) -> Path:
    return project.parent / "home"


# (host file, where: project or home, its text)
DOCTOR_FILES = {
    "mcp.json": (".mcp.json", "project", DEEP_JSON),
    "gemini-settings": (".gemini/settings.json", "project", DEEP_JSON),
    "opencode": ("opencode.json", "project", DEEP_JSON),
    "claude-settings": (".claude/settings.json", "project", DEEP_JSON),
    "claude.json": (".claude.json", "home", DEEP_JSON),
    "codex-user": (".codex/config.toml", "home", DEEP_TOML),
    "codex-project": (".codex/config.toml", "project", DEEP_TOML),
    "codex-long-key": (".codex/config.toml", "project", LONG_KEY),
}


@pytest.fixture
def linked(project: Path) -> Path:
    """Claude, Gemini and OpenCode linked in the project: doctor has their files to report."""
    assert _run(project, "init").returncode == 0
    for host in ("claude", "gemini", "opencode"):
        assert _run(project, "link", host).returncode == 0
    return project


@pytest.mark.parametrize("name", sorted(DOCTOR_FILES))
def test_doctor_reports_a_deep_host_file_and_every_other_finding(linked: Path, name: str) -> None:
    rel, where, text = DOCTOR_FILES[name]
    path = (linked if where == "project" else _home(linked)) / rel
    before = _plant(path, text)
    done = _run(linked, "doctor", "--json")
    assert done.returncode == 1, done.stdout + done.stderr
    findings = _envelope(done)["data"]["findings"]
    unparseable = [f for f in findings if f["code"] == "host.unparseable"]
    assert [str(path) in f["message"] for f in unparseable] == [True], findings
    codes = {f["code"] for f in findings}
    assert {"config.ok", "integrity.ok", "memory.anchors_ok"} <= codes, codes
    # The other hosts' files are still checked (each linked host has its own finding).
    others = [f for f in ("opencode.json", ".gemini/settings.json", ".mcp.json")
              if not (where == "project" and rel == f)]
    for other in others:
        assert any(str(linked / other) in f["message"] for f in findings), (other, findings)
    assert path.read_bytes() == before


def test_a_deep_gemini_policy_does_not_stop_doctor(linked: Path) -> None:
    policy = _home(linked) / ".gemini/policies/team.toml"
    _plant(policy, DEEP_TOML)
    done = _run(linked, "doctor", "--json")
    findings = _envelope(done)["data"]["findings"]
    codes = {f["code"] for f in findings}
    assert {"config.ok", "integrity.ok", "host.claude_pending"} <= codes, codes
    assert any(f["code"] == "host.unparseable" and str(policy) in f["message"]
               for f in findings), findings


# (host, --global?, the deep file, a file the same link must still write)
LINK_FILES = {
    "claude-mcp": ("claude", False, ".mcp.json", DEEP_JSON, "CLAUDE.md"),
    "claude-hooks": ("claude", False, ".claude/settings.local.json", DEEP_JSON, ".mcp.json"),
    "gemini": ("gemini", False, ".gemini/settings.json", DEEP_JSON, "GEMINI.md"),
    "opencode": ("opencode", False, "opencode.json", DEEP_JSON, "AGENTS.md"),
    "codex": ("codex", True, ".codex/config.toml", DEEP_TOML, ".codex/AGENTS.md"),
    "codex-long-key": ("codex", True, ".codex/config.toml", LONG_KEY, ".codex/AGENTS.md"),
}


@pytest.mark.parametrize("name", sorted(LINK_FILES))
def test_link_skips_a_deep_host_file_and_links_the_rest(project: Path, name: str) -> None:
    host, is_global, rel, text, written = LINK_FILES[name]
    base = _home(project) if is_global else project
    path = base / rel
    before = _plant(path, text)
    args = ["link", host, "--json"] + (["--global"] if is_global else [])
    done = _run(project, *args)
    assert done.returncode == 1, done.stdout + done.stderr
    envelope = _envelope(done)
    assert envelope["ok"] is False
    result = envelope["data"]["results"][0]
    assert result["status"] == "linked", result
    assert [s["code"] for s in result["skipped"]] == ["host.unparseable"], result
    assert str(path) in result["skipped"][0]["message"]
    assert "host.unparseable" in [d["code"] for d in envelope["diagnostics"]]
    assert path.read_bytes() == before, "link rewrote a file it could not parse"
    assert "engram" in (base / written).read_text(), "the rest of the link was not written"
    assert str(path) not in [c["path"] for c in result["changes"]]
    text_done = _run(project, *[a for a in args if a != "--json"])
    assert text_done.returncode == 1
    assert f"skipped {path}" in text_done.stdout, text_done.stdout


def test_link_plan_names_the_skipped_file(project: Path) -> None:
    before = _plant(project / ".mcp.json", DEEP_JSON)
    done = _run(project, "link", "claude", "--plan")
    assert done.returncode == 1
    assert "skipped" in done.stdout and "CLAUDE.md" in done.stdout, done.stdout
    assert (project / ".mcp.json").read_bytes() == before
    assert not (project / "CLAUDE.md").exists()


def test_unlink_skips_a_deep_host_file_and_takes_engram_out_of_the_rest(project: Path) -> None:
    assert _run(project, "link", "claude").returncode == 0
    before = _plant(project / ".mcp.json", DEEP_JSON)
    done = _run(project, "unlink", "claude", "--json")
    assert done.returncode == 1, done.stdout + done.stderr
    result = _envelope(done)["data"]["results"][0]
    assert [s["code"] for s in result["skipped"]] == ["host.unparseable"], result
    assert (project / ".mcp.json").read_bytes() == before
    assert not (project / "CLAUDE.md").exists(), "the rest of the unlink was not applied"
