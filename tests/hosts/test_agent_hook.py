"""The Claude hook runtime, driven by recorded Claude Code payloads and an injected router."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from engram.config import read_env
from engram.hosts import hooks
from engram.hosts.hooks import Pack
from engram.workspace import Roots

FIX = Path(__file__).resolve().parent.parent / "fixtures" / "hosts" / "claude"


class FakeRouter:
    """Routes by a table {query substring: pack text}; records every query it saw."""

    def __init__(self, table: dict[str, str]) -> None:
        self.table = table
        self.queries: list[str] = []

    def __call__(self, roots: Roots, query: str,
                 in_context: frozenset[str] = frozenset()) -> Pack:
        self.queries.append(query)
        for needle, text in self.table.items():
            if needle in query:
                ids = tuple(ln.split()[1] for ln in text.splitlines() if ln.startswith("- "))
                return Pack(text, tuple(f"workspace:{i}" for i in ids), ids)
        return Pack("")


def _cards(roots: Roots, budget: int) -> str:
    return "- run-smoke-suite (rule, workspace): Run the smoke suite before tagging"


def _payload(name: str, project: Path, **changes: Any) -> str:
    data = json.loads((FIX / name).read_text())
    data["cwd"] = str(project)
    data.update(changes)
    return json.dumps(data)


@pytest.fixture
def root(project: Path) -> Path:
    r = project / ".agents/.engram"
    (r / "rules").mkdir(parents=True)
    return r


def _ask(raw: str, router: FakeRouter, **env: str) -> dict[str, Any]:
    return hooks.respond(raw, read_env(env or None), router=router, cards=_cards)


def _context(out: dict[str, Any]) -> str:
    return str(out["hookSpecificOutput"]["additionalContext"])


def test_first_prompt_injects_same_route_nothing_changed_route_reinjects(
    project: Path, root: Path
) -> None:
    router = FakeRouter({"smoke": "- run-smoke-suite (rule, workspace): Run it",
                         "deploy": "- deploy-steps (skill, workspace): Deploy"})
    first = _ask(_payload("hook-user-prompt-submit.json", project), router)
    assert first["hookSpecificOutput"]["hookEventName"] == "UserPromptSubmit"
    assert "run-smoke-suite" in _context(first)
    again = _payload("hook-user-prompt-submit.json", project, prompt="smoke suite again please")
    assert _ask(again, router) == {}
    changed = _payload("hook-user-prompt-submit.json", project, prompt="now deploy it")
    assert "deploy-steps" in _context(_ask(changed, router))


def test_cache_holds_hashes_never_prompt_text(project: Path, root: Path) -> None:
    router = FakeRouter({"smoke": "- a (rule, workspace): x"})
    _ask(_payload("hook-user-prompt-submit.json", project), router)
    cache = (root / ".cache/hooks.json").read_text()
    assert "smoke" not in cache and "9f3c2b1e" not in cache and "Tag" not in cache


def test_session_start_routes_the_objective(project: Path, root: Path) -> None:
    router = FakeRouter({"billing": "- invoice-rules (rule, workspace): Invoices"})
    out = _ask(_payload("hook-session-start.json", project), router,
               ENGRAM_SESSION_OBJECTIVE="fix billing rounding", HOME=str(project))
    assert out["hookSpecificOutput"]["hookEventName"] == "SessionStart"
    assert "invoice-rules" in _context(out)
    assert router.queries == ["fix billing rounding"]


def test_session_start_routes_branch_and_last_commit(project: Path, root: Path) -> None:
    subprocess.run(["git", "init", "-q", "-b", "feature/release-tagging", str(project)],
                   check=True)
    subprocess.run(["git", "-C", str(project), "-c", "user.name=t", "-c", "user.email=t@e",
                    "commit", "-q", "--allow-empty", "-m", "Add smoke suite"], check=True)
    router = FakeRouter({"smoke": "- run-smoke-suite (rule, workspace): Run it"})
    out = _ask(_payload("hook-session-start.json", project), router)
    assert router.queries == ["feature release tagging Add smoke suite"]
    assert "run-smoke-suite" in _context(out)


def test_session_start_falls_back_to_rule_cards(project: Path, root: Path) -> None:
    out = _ask(_payload("hook-session-start.json", project), FakeRouter({}))
    assert _context(out).startswith("- run-smoke-suite (rule, workspace)")


def test_notes_show_at_session_start_only_for_a_matching_objective(
    project: Path, root: Path
) -> None:
    (root / "working").mkdir()
    (root / "working/flaky-login-test.md").write_text(
        "---\nid: flaky-login-test\nobjective: fix flaky login test\ntier: working\n---\n\nx\n")
    pack = "engram: loaded 0 of 2\n- login-rules (rule, workspace): L\n" \
           "- flaky-login-test (knowledge, workspace): retry once"
    router = FakeRouter({"login": pack})
    hit = _ask(_payload("hook-session-start.json", project), router,
               ENGRAM_SESSION_OBJECTIVE="flaky login", HOME=str(project))
    assert "flaky-login-test" in _context(hit)
    miss = _ask(_payload("hook-session-start.json", project, session_id="other"), router,
                ENGRAM_SESSION_OBJECTIVE="login rules", HOME=str(project))
    assert "flaky-login-test" not in _context(miss) and "login-rules" in _context(miss)


@pytest.mark.parametrize(("mode", "start", "prompt", "repeat"), [
    ("startup", True, False, False),
    ("auto", True, True, False),
    ("always", True, True, True),
    ("manual", False, False, False),
    ("off", False, False, False),
])
def test_read_modes(project: Path, root: Path, mode: str, start: bool, prompt: bool,
                    repeat: bool) -> None:
    (root / "engram.config.json").write_text(json.dumps({"read": mode}))
    router = FakeRouter({"smoke": "- s (rule, workspace): x"})
    got_start = _ask(_payload("hook-session-start.json", project), router,
                     ENGRAM_SESSION_OBJECTIVE="smoke", HOME=str(project))
    assert bool(got_start) is start
    ask = _payload("hook-user-prompt-submit.json", project, session_id="s2")
    assert bool(_ask(ask, router)) is prompt
    assert bool(_ask(ask, router)) is repeat


@pytest.mark.parametrize("raw", ["", "not json", "[]", '{"hook_event_name": "Stop"}',
                                 '{"hook_event_name": "UserPromptSubmit", "prompt": 3}'])
def test_bad_input_answers_empty(project: Path, root: Path, raw: str) -> None:
    assert _ask(raw, FakeRouter({"": "- x (rule, workspace): y"})) == {}


def test_cli_prints_empty_object_and_exits_zero_on_garbage(project: Path) -> None:
    env_path = Path(__file__).resolve().parents[2] / "src"
    for raw in ("{broken", json.dumps({"hook_event_name": "SessionStart", "cwd": "/nope"})):
        done = subprocess.run([sys.executable, "-m", "engram", "agent-hook", "--host", "claude"],
                              input=raw, capture_output=True, text=True, check=False,
                              env={"PATH": "/usr/bin:/bin", "HOME": str(project),
                                   "PYTHONPATH": str(env_path)})
        assert (done.returncode, done.stdout.strip()) == (0, "{}")


def test_unknown_host_answers_empty(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from engram.cli.hook import answer

    assert answer(_payload("hook-session-start.json", project), "vscode") == {}


def test_set_read_command_drives_the_hook_mode(project: Path, root: Path) -> None:
    from engram.cli.main import main

    router = FakeRouter({"smoke": "- s (rule, workspace): x"})
    assert main(["set-read", "startup"]) == 0
    assert _ask(_payload("hook-user-prompt-submit.json", project), router) == {}
    assert main(["set-read", "always"]) == 0
    assert _ask(_payload("hook-user-prompt-submit.json", project), router)
    assert _ask(_payload("hook-user-prompt-submit.json", project), router)


def test_session_start_with_only_hidden_notes_falls_back_to_rule_cards(
    project: Path, root: Path
) -> None:
    (root / "working").mkdir()
    (root / "working/flaky-login-test.md").write_text(
        "---\nid: flaky-login-test\nobjective: fix flaky login test\ntier: working\n---\n\nx\n")
    router = FakeRouter({"login": "engram: loaded 0 of 1\n\n- flaky-login-test (knowledge, "
                                  "workspace): retry once"})
    out = _ask(_payload("hook-session-start.json", project), router,
               ENGRAM_SESSION_OBJECTIVE="login rules", HOME=str(project))
    assert _context(out).startswith("- run-smoke-suite (rule, workspace)")


def test_session_start_reads_the_branch_of_a_git_worktree(project: Path, root: Path) -> None:
    gitdir = project.parent / "repo.git" / "worktrees" / "p"
    gitdir.mkdir(parents=True)
    (gitdir / "HEAD").write_text("ref: refs/heads/fix-smoke-release\n")
    (project / ".git").write_text(f"gitdir: {gitdir}\n")
    router = FakeRouter({"smoke": "- run-smoke-suite (rule, workspace): Run it"})
    _ask(_payload("hook-session-start.json", project), router)
    assert router.queries[0].startswith("fix smoke release")
