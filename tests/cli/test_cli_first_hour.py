"""What a new user hits in the first hour (issue 19): options anywhere, forgiving terminal
prompts, strict piped answers, typos of commands and types."""

from __future__ import annotations

import io
import os
import select
import sys
import time
from pathlib import Path

import pytest

from engram.cli.answers import ask_terminal, near_type
from engram.store.layout import init_root
from engram.store.repo import Store
from engram.workspace import Roots, resolve
from tests.conftest import engram_cmd, subprocess_env
from tests.helpers import run_cli, run_json

Cap = pytest.CaptureFixture[str]
MP = pytest.MonkeyPatch

SMOKE = "Run the smoke suite before tagging a release."
AGENT_WORDS = "Show these exact candidates"


@pytest.fixture
def roots(project: Path, monkeypatch: MP) -> Roots:
    monkeypatch.setattr("sys.stdin", io.StringIO(""))
    r = resolve()
    init_root(r.workspace)
    return r


def _memories(roots: Roots) -> dict[str, tuple[object, ...]]:
    return {m.id: tuple(m.meta.get("role") or ()) for m in
            Store(roots.workspace).scan(include_notes=False).memories}


# Item 8: options between the type and the text.

@pytest.mark.parametrize("args", [
    ["save", "rule", "--role", "backend", SMOKE, "--answer", "A"],
    ["save", "--role", "backend", "rule", SMOKE, "--answer", "A"],
    ["save", "rule", SMOKE, "--answer", "A", "--role", "backend"],
    ["save", "rule", "--force", "--role", "backend", SMOKE],
    ["save", "rule", "--answer", "A", "--role=backend", "Run", "the", "smoke", "suite",
     "before", "tagging", "a", "release."],
])
def test_options_may_sit_anywhere_in_save(roots: Roots, capsys: Cap, args: list[str]) -> None:
    code, out, err = run_cli(*args, capsys=capsys)
    assert code == 0, err
    mems = _memories(roots)
    assert mems == {"run-smoke-suite-before-tagging": ("backend",)}
    m = Store(roots.workspace).read("rules/run-smoke-suite-before-tagging.md")
    assert m.type == "rule"


def test_options_between_words_of_other_commands(roots: Roots, capsys: Cap) -> None:
    run_cli("save", "rule", "--force", SMOKE, capsys=capsys)
    code, data = run_json("search", "smoke", "--limit", "3", "suite", capsys=capsys)
    assert code == 0 and data["data"]["entries"]


# Item 4: prompts that forgive at a terminal, stay strict when piped.

def _script(*lines: str):  # type: ignore[no-untyped-def]
    prompts: list[str] = []
    it = iter(lines)

    def ask(prompt: str) -> str:
        prompts.append(prompt)
        return next(it)
    return ask, prompts


def test_y_at_a_terminal_is_reasked_with_the_legend_then_enter_means_a() -> None:
    ask, prompts = _script("y", "")
    assert ask_terminal(ask) == "A"
    assert len(prompts) == 2 and "`y` means A (save all)" in prompts[1]
    assert "B <note>" in prompts[1] and "C = cancel" in prompts[1]


@pytest.mark.parametrize(("lines", "expected"), [
    (("yes", "yes"), "A"), (("n", ""), "C"), (("no", "no"), "C"), (("y", "C"), "C"),
    (("maybe", "A 1"), "A 1"), (("B", "B looks right"), "B looks right"), (("A",), "A"),
    (("",), None), (("x", "y", "z"), None),
])
def test_terminal_dialog_answers(lines: tuple[str, ...], expected: str | None) -> None:
    ask, _ = _script(*lines)
    assert ask_terminal(ask) == expected


def test_end_of_input_at_the_prompt_is_no_answer() -> None:
    def ask(prompt: str) -> str:
        raise EOFError
    assert ask_terminal(ask) is None


def test_a_piped_y_keeps_the_strict_error_and_shows_the_preview_first(roots: Roots, capsys: Cap,
                                                                       monkeypatch: MP) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO("y\n"))
    code, out, err = run_cli("save", "rule", SMOKE, capsys=capsys)
    assert code == 2 and "unknown answer 'y'" in err and "A means save all" in err
    assert "Verdict: ADD" in out and _memories(roots) == {}


def test_a_piped_answer_prints_the_preview_before_the_outcome(roots: Roots, capsys: Cap,
                                                              monkeypatch: MP) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO("A\n"))
    code, out, _ = run_cli("save", "rule", SMOKE, capsys=capsys)
    assert code == 0
    assert out.index("Verdict: ADD") < out.index("Candidate 1: written")
    assert AGENT_WORDS not in out


def test_agent_instructions_go_to_agents_only(roots: Roots, capsys: Cap) -> None:
    code, out, _ = run_cli("save", "rule", SMOKE, capsys=capsys)
    assert code == 3 and "Verdict: ADD" in out and AGENT_WORDS not in out
    code, data = run_json("save", "rule", SMOKE, capsys=capsys)
    assert code == 3 and AGENT_WORDS in data["data"]["preview"]


def test_agent_instructions_stay_in_mcp_results(roots: Roots) -> None:
    from engram.proposals.api import propose

    assert AGENT_WORDS in propose(roots, SMOKE, type="rule").preview


@pytest.mark.skipif(sys.platform == "win32", reason="pseudo-terminals are POSIX")
def test_y_on_a_real_pseudo_terminal_is_reasked_then_saved(roots: Roots) -> None:
    import pty

    env = subprocess_env()
    pid, fd = pty.fork()
    if pid == 0:  # the child: engram save at a terminal
        os.execve(sys.executable, [*engram_cmd(), "save", "rule", SMOKE], env)  # noqa: S606 - argument list, no shell
    seen = _until(fd, b"Save?")
    os.write(fd, b"y\r")
    seen += _until(fd, b"Press Enter")
    os.write(fd, b"\r")
    seen += _until(fd, b"\x00", timeout=20)  # to the end of output
    _, status = os.waitpid(pid, 0)
    text = seen.decode()
    assert os.waitstatus_to_exitcode(status) == 0, text
    assert "`y` means A" in text and "Candidate 1: written" in text
    assert AGENT_WORDS not in text
    assert list(_memories(roots)) == ["run-smoke-suite-before-tagging"]


def _until(fd: int, token: bytes, timeout: float = 30.0) -> bytes:
    buf = b""
    end = time.monotonic() + timeout
    while token not in buf and time.monotonic() < end:
        ready, _, _ = select.select([fd], [], [], 0.2)
        if ready:
            try:
                chunk = os.read(fd, 4096)
            except OSError:  # the child closed the terminal
                break
            if not chunk:
                break
            buf += chunk
    return buf


# Item 5: typos of commands and of the type word.

def test_a_mistyped_command_suggests_the_closest(capsys: Cap) -> None:
    code, _, err = run_cli("lod", "tag the release", capsys=capsys)
    assert code == 2 and "did you mean `engram load`?" in err
    code, _, err = run_cli("zzz", capsys=capsys)
    assert code == 2 and "did you mean" not in err and "engram --help" in err


@pytest.mark.parametrize(("word", "meant"), [
    ("rul", "rule"), ("rulle", "rule"), ("ruel", "rule"), ("skil", "skill"),
    ("knowlege", "knowledge"), ("rule", None), ("run", None), ("always", None),
])
def test_near_type(word: str, meant: str | None) -> None:
    assert near_type(word) == meant


def test_save_refuses_a_first_word_one_edit_from_a_type(roots: Roots, capsys: Cap) -> None:
    code, _, err = run_cli("save", "rul", "Run", "the", "linter.", "--answer", "C",
                           capsys=capsys)
    assert code == 2 and "'rul' is not a type; did you mean rule?" in err
    code, data = run_json("save", "rul", "Run the linter.", capsys=capsys)
    assert code == 2 and [d["code"] for d in data["diagnostics"]] == ["usage.save_type"]
    code, _, err = run_cli("save", "rule", "Run the linter.", "--answer", "C", capsys=capsys)
    assert code == 0 and "error" not in err


def test_status_names_the_rule_variant_load_prints(roots: Roots, capsys: Cap) -> None:
    run_cli("save", "rule", "--force", SMOKE, capsys=capsys)
    for variant in (None, "strict", "off", "light"):
        if variant:
            assert run_cli("set-rule-variant", variant, capsys=capsys)[0] == 0
        _, status, _ = run_cli("status", capsys=capsys)
        _, pack, _ = run_cli("load", "tag the release smoke suite", capsys=capsys)
        shown = pack.split("## Rule variants (1/3: ", 1)[1].split(")", 1)[0].lower()
        assert f"rule_variant={shown}" in status, (variant, status)
        assert run_json("status", capsys=capsys)[1]["data"]["rule_variant"] == shown
