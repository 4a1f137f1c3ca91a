"""Input that used to make a wrong memory quietly (issue 28 findings 1 and 2), through the real
CLI: a type word in the wrong place or misspelled is understood or refused, never saved as
text; piped text is the memory text, and the approval answer then comes only from `--answer`
or the terminal."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from engram.cli.savewords import split_save_words
from engram.errors import UsageError
from tests.cli.test_cli_first_hour import _until
from tests.conftest import engram_cmd, subprocess_env

SQUASH = "Always squash merge PRs."
NEVER = "Never commit directly to main."


def _run(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*engram_cmd(), *args], input=stdin, capture_output=True, text=True,
                          env=subprocess_env(), timeout=60, check=False,
                          stdin=subprocess.DEVNULL if stdin is None else None,
                          start_new_session=True)  # no controlling terminal: /dev/tty fails


def _files(root: Path) -> dict[str, str]:
    return {str(p.relative_to(root)): p.read_text(encoding="utf-8")
            for d in ("rules", "skills", "knowledge") for p in sorted((root / d).glob("*.md"))}


# Finding 1: the type word's place.

@pytest.mark.parametrize("args", [
    ["save", SQUASH, "rule"],
    ["save", SQUASH, "Rule"],
    ["save", "rule", SQUASH],
])
def test_a_type_word_first_or_last_is_understood(engram_root: Path, args: list[str]) -> None:
    got = _run(*args, "--answer", "A")
    assert got.returncode == 0, got.stderr
    files = _files(engram_root)
    assert list(files) == ["rules/always-squash-merge-prs.md"]
    body = files["rules/always-squash-merge-prs.md"]
    assert "- Always squash merge PRs." in body
    assert "PRs. rule" not in body and "PRs. Rule" not in body


@pytest.mark.parametrize(("args", "meant"), [
    (["save", SQUASH, "rules"], "rule"),
    (["save", SQUASH, "rlue"], "rule"),
    (["save", "rules", SQUASH], "rule"),
    (["save", "rlue", SQUASH], "rule"),
    (["save", "skils", "Run the release script."], "skill"),
    (["save", "rules"], "rule"),
])
def test_a_misspelled_type_word_is_refused_with_the_spelling(
        engram_root: Path, args: list[str], meant: str) -> None:
    got = _run(*args, "--answer", "A")
    assert got.returncode == 2, got.stdout
    assert f"did you mean {meant}?" in got.stderr
    assert f"engram save {meant} " in got.stderr
    assert _files(engram_root) == {}


def test_a_type_word_after_several_unquoted_words_is_refused(engram_root: Path) -> None:
    got = _run("save", "Always", "squash", "merge", "PRs.", "rule", "--answer", "A")
    assert got.returncode == 2
    assert 'engram save rule "Always squash merge PRs."' in got.stderr
    assert _files(engram_root) == {}


def test_quoted_text_keeps_every_word(engram_root: Path) -> None:
    got = _run("save", "knowledge", "Follow the team rules", "--answer", "A")
    assert got.returncode == 0, got.stderr
    assert "- Follow the team rules" in "".join(_files(engram_root).values())


@pytest.mark.parametrize(("words", "want"), [
    (["rule", "x"], ("rule", "x")),
    (["x", "skill"], ("skill", "x")),
    (["rule"], ("rule", None)),
    (["rule", "-"], ("rule", None)),
    (["-"], (None, None)),
    (["rule", "Follow", "the", "team", "rules"], ("rule", "Follow the team rules")),
    (["Follow", "the", "team", "rules"], (None, "Follow the team rules")),
    (["rule", "a b", "rule"], ("rule", "a b")),
])
def test_split_save_words(words: list[str], want: tuple[str | None, str | None]) -> None:
    assert tuple(split_save_words(words)) == want


@pytest.mark.parametrize("words", [["rule", "a b", "skill"], ["rlue", "a b"], ["a b", "rules"],
                                   ["a", "b", "rule"]])
def test_split_save_words_refuses(words: list[str]) -> None:
    with pytest.raises(UsageError) as err:
        split_save_words(words)
    assert err.value.code == "usage.save_type"


# Finding 2: piped text.

@pytest.mark.parametrize("args", [["save", "rule"], ["save", "rule", "-"], ["save", "-", "rule"]])
def test_piped_text_is_the_memory_text(engram_root: Path, args: list[str]) -> None:
    got = _run(*args, "--answer", "A", stdin=NEVER + "\n")
    assert got.returncode == 0, got.stderr
    files = _files(engram_root)
    assert list(files) == ["rules/never-commit-directly-main.md"]
    assert "- Never commit directly to main." in files["rules/never-commit-directly-main.md"]


def test_piped_text_without_an_answer_says_to_pass_answer(engram_root: Path) -> None:
    got = _run("save", "rule", stdin=NEVER + "\n")
    assert got.returncode == 3
    assert "The text came from stdin" in got.stdout and "--answer A" in got.stdout
    assert "unknown answer" not in got.stdout + got.stderr
    assert _files(engram_root) == {}


def test_piped_text_is_never_read_as_an_answer(engram_root: Path) -> None:
    got = _run("save", "rule", stdin="A\n")  # one line: it is the text, not an answer
    assert got.returncode == 3 and _files(engram_root) == {}
    got = _run("save", "rule", stdin=NEVER + "\nA\n")
    assert got.returncode == 2 and "looks like an approval answer" in got.stderr
    assert "--answer" in got.stderr and _files(engram_root) == {}


def test_text_argument_and_piped_text_collide_clearly(engram_root: Path) -> None:
    got = _run("save", "rule", SQUASH, stdin=NEVER + "\n")
    assert got.returncode == 2
    assert f"stdin held {NEVER!r}, which is not an approval answer" in got.stderr
    assert "the memory text came from the arguments" in got.stderr
    assert "--answer" in got.stderr and _files(engram_root) == {}


def test_a_piped_answer_still_answers_text_given_as_arguments(engram_root: Path) -> None:
    got = _run("save", "rule", SQUASH, stdin="A\n")
    assert got.returncode == 0, got.stderr
    assert list(_files(engram_root)) == ["rules/always-squash-merge-prs.md"]


def test_no_text_at_all_is_a_usage_error(engram_root: Path) -> None:
    got = _run("save", "rule")
    assert got.returncode == 2 and "no memory text given" in got.stderr
    got = _run("save", "rule", stdin="")
    assert got.returncode == 2 and "stdin was empty" in got.stderr


@pytest.mark.skipif(sys.platform == "win32", reason="pseudo-terminals are POSIX")
def test_piped_text_is_answered_at_the_terminal(engram_root: Path) -> None:
    """stdin a pipe (the text), stdout and the controlling terminal a pty: the prompt and the
    answer go through /dev/tty."""
    import pty

    env = subprocess_env()
    read_end, write_end = os.pipe()
    os.write(write_end, (NEVER + "\n").encode())
    os.close(write_end)
    pid, fd = pty.fork()
    if pid == 0:  # the child: `echo … | engram save rule` at a terminal
        os.dup2(read_end, 0)
        os.execve(sys.executable, [*engram_cmd(), "save", "rule"], env)  # noqa: S606 - argument list, no shell
    os.close(read_end)
    seen = _until(fd, b"Save?")
    os.write(fd, b"A\r")
    seen += _until(fd, b"\x00", timeout=20)
    _, status = os.waitpid(pid, 0)
    text = seen.decode()
    assert os.waitstatus_to_exitcode(status) == 0, text
    assert "Candidate 1: written" in text
    assert list(_files(engram_root)) == ["rules/never-commit-directly-main.md"]
