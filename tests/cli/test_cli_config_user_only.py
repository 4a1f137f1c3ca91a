"""`global_path` is read only from the user's config: setting it anywhere else is refused with
the command that works. Before, `engram config set global_path P` wrote it into the repository's
config, where nothing reads it, and `config get` echoed it back as if it applied."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.helpers import run_cli


def test_global_path_outside_the_user_config_is_refused(
        project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run_cli("init", capsys=capsys)[0] == 0
    before = (project / ".agents" / ".engram" / "engram.config.json").read_text()
    code, _, err = run_cli("config", "set", "global_path", str(tmp_path / "g"), capsys=capsys)
    assert code == 2
    assert "engram init --global" in err and "--user" in err
    assert (project / ".agents" / ".engram" / "engram.config.json").read_text() == before
    code, _, _ = run_cli("config", "set", "global_path", str(tmp_path / "g"), "--user",
                         capsys=capsys)
    assert code == 0


def test_doctor_names_where_a_missing_global_root_was_configured(
        engram_root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """It always said `or unset ENGRAM_GLOBAL_DIR`, also when the path came from the user's
    config file and that variable was never set."""
    user = Path.home() / ".engram" / "engram.config.json"
    user.parent.mkdir(parents=True, exist_ok=True)
    user.write_text('{"global_path": "%s"}' % (tmp_path / "gone"))
    _, out, _ = run_cli("doctor", capsys=capsys)
    assert "ENGRAM_GLOBAL_DIR" not in out and str(user) in out
    monkeypatch.setenv("ENGRAM_GLOBAL_DIR", str(tmp_path / "gone2"))
    _, out, _ = run_cli("doctor", capsys=capsys)
    assert "unset ENGRAM_GLOBAL_DIR" in out
