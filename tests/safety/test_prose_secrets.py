"""A secret written in prose (issue 28 finding 3): warned as `safety.prose_secret` before
approval, and never part of the new memory's id or file name. Through the real CLI."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from engram.safety.prose import prose_secrets, without_prose_secrets
from tests.conftest import engram_cmd, subprocess_env

PASSWORD = "The staging database password is hunter2-Blue-Sky"


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*engram_cmd(), *args], capture_output=True, text=True,
                          env=subprocess_env(), timeout=60, check=False,
                          stdin=subprocess.DEVNULL, start_new_session=True)


def test_a_prose_password_is_warned_and_kept_out_of_the_file_name(engram_root: Path) -> None:
    got = _run("save", "knowledge", PASSWORD, "--answer", "A")
    assert got.returncode == 0, got.stderr
    assert "Warning (safety.prose_secret)" in got.stdout
    names = [p.name for p in (engram_root / "knowledge").glob("*.md")]
    assert len(names) == 1
    assert "hunter2" not in names[0].lower() and "blue-sky" not in names[0].lower()
    assert names[0] == "staging-database-password.md"
    assert "hunter2" not in (engram_root / "changelog.md").read_text(encoding="utf-8").lower()
    warning = got.stdout.split("Warning (safety.prose_secret)")[1]
    assert "hunter2" not in warning


def test_the_warning_is_a_coded_diagnostic(engram_root: Path) -> None:
    got = _run("save", "knowledge", "The deploy key is Zq81x7Lm", "--json")
    assert got.returncode == 3
    doc = json.loads(got.stdout)
    assert [d["code"] for d in doc["diagnostics"]] == ["safety.prose_secret"]
    assert "Zq81x7Lm" not in json.dumps(doc["diagnostics"])
    assert "Zq81x7Lm" not in json.dumps([i["id"] for i in doc["data"]["items"]])


@pytest.mark.parametrize(("text", "value"), [
    (PASSWORD, "hunter2-Blue-Sky"),
    ("token: abc123", "abc123"),
    ("key = X9y2k", "X9y2k"),
    ("secret=s3cr3tValue", "s3cr3tValue"),
    ('the api key is "Zq81-x"', "Zq81-x"),
    ("The passphrase was CorrectHorse", "CorrectHorse"),
])
def test_prose_secret_forms(text: str, value: str) -> None:
    found = prose_secrets(text)
    assert [text[s.start:s.end] for s in found] == [value]
    assert value not in without_prose_secrets(text)


@pytest.mark.parametrize("text", [
    "The key is to test early.", "The password is stored in Vault.", "The primary key is id.",
    "Rotate the token every month.", "The password is <your password>.",
])
def test_prose_that_names_a_secret_without_one_is_not_flagged(text: str) -> None:
    assert prose_secrets(text) == []
