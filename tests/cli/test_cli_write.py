"""`engram save`, `save-session`/`ss`, answers, `--force`, `--query-level` and `archive` (§7.7)."""

from __future__ import annotations

import io
from collections.abc import Callable
from pathlib import Path

import pytest

from engram.store.layout import init_root
from engram.store.repo import Store
from engram.workspace import Roots, resolve
from tests.helpers import run_cli

SMOKE = "Run the smoke suite before tagging a release."


@pytest.fixture
def roots(project: Path) -> Roots:
    r = resolve()
    init_root(r.workspace)
    return r


Feed = Callable[[str], None]
Capsys = pytest.CaptureFixture[str]


@pytest.fixture
def stdin(monkeypatch: pytest.MonkeyPatch) -> Feed:
    def feed(text: str) -> None:
        monkeypatch.setattr("sys.stdin", io.StringIO(text))
    feed("")
    return feed


def _ids(roots: Roots) -> list[str]:
    return sorted(m.id for m in Store(roots.workspace).scan(include_notes=False).memories)


def test_save_without_an_answer_prints_the_preview_and_exits_3(
        roots: Roots, stdin: Feed, capsys: Capsys) -> None:
    code, out, _ = run_cli("save", "rule", SMOKE, capsys=capsys)
    assert code == 3
    assert "Verdict: ADD" in out and SMOKE in out and "Nothing was saved" in out
    assert _ids(roots) == []


def test_save_with_answer_a_writes_the_memory(roots: Roots, stdin: Feed, capsys: Capsys) -> None:
    code, out, _ = run_cli("save", "rule", SMOKE, "--answer", "A", capsys=capsys)
    assert code == 0 and "Candidate 1: written" in out
    assert _ids(roots) == ["run-smoke-suite-before-tagging"]


def test_answer_comes_from_the_last_stdin_line_when_text_came_from_args(roots: Roots, stdin: Feed,
                                                                        capsys: Capsys) -> None:
    stdin("some chatter\nC\n\nA\n")
    code, _, _ = run_cli("save", SMOKE, capsys=capsys)
    assert code == 0 and len(_ids(roots)) == 1


def test_cancel_writes_nothing(roots: Roots, stdin: Feed, capsys: Capsys) -> None:
    code, out, _ = run_cli("save", SMOKE, "--answer", "C", capsys=capsys)
    assert code == 0 and "nothing was saved" in out and _ids(roots) == []


def test_answer_a_with_numbers_and_b_with_a_note(roots: Roots, stdin: Feed, capsys: Capsys) -> None:
    args = ["ss", "TYPE: knowledge | TEXT: Grafana lives in the ops repo.",
            "TYPE: knowledge | TEXT: Sentry alerts go to the on-call channel.",
            "TYPE: knowledge | TEXT: Feature flags live in LaunchDarkly."]
    code, _, _ = run_cli(*args, "--answer", "A 1,3", capsys=capsys)
    assert code == 0 and _ids(roots) == ["feature-flags-live-launchdarkly",
                                         "grafana-lives-ops-repo"]
    code, _, _ = run_cli("save", "knowledge", "Backups run nightly at 02:00 UTC.",
                         "--answer", "B confirmed with ops", capsys=capsys)
    m = Store(roots.workspace).read("knowledge/backups-run-nightly-02-00.md")
    assert code == 0 and "Human note: confirmed with ops" in m.body


def test_candidates_from_stdin_cannot_also_answer(
        roots: Roots, stdin: Feed, capsys: Capsys) -> None:
    stdin("TYPE: knowledge | TEXT: Grafana lives in the ops repo.\nA\n")
    code, out, _ = run_cli("ss", capsys=capsys)
    # "A" is read as a second (plain) candidate, and nothing answers the preview.
    assert code == 3 and "[2]" in out and _ids(roots) == []


def test_file_candidates_with_answer_on_stdin(roots: Roots, stdin: Feed, tmp_path: Path,
                                              capsys: Capsys) -> None:
    f = tmp_path / "c.txt"
    f.write_text("TYPE: knowledge | TEXT: Grafana lives in the ops repo.\n"
                 "TYPE: rule | TEXT: Never force-push to main.\n")
    stdin("A 2\n")
    code, _, _ = run_cli("ss", "--file", str(f), capsys=capsys)
    assert code == 0 and _ids(roots) == ["never-force-push-main"]


def test_force_writes_ready_and_defers_a_related_candidate_until_it_declares_it(
        roots: Roots, stdin: Feed, capsys: Capsys) -> None:
    run_cli("save", "rule", SMOKE, "-f", capsys=capsys)
    x = "run-smoke-suite-before-tagging"
    follow = "TYPE: knowledge | TEXT: Release tags must follow the smoke suite run."
    code, out, _ = run_cli("ss", "-f", "TYPE: knowledge | TEXT: Grafana lives in the ops repo.",
                           follow, capsys=capsys)
    assert code == 0
    assert "Candidate 1: written" in out and "Candidate 2: not written" in out
    assert f"Related IDs: {x}" in out and f"Inspect: engram load --id {x}" in out
    assert len(_ids(roots)) == 2
    code, out, _ = run_cli("ss", "-f", f"{follow} | DEPENDS_ON: {x} | LEVEL: advanced",
                           capsys=capsys)
    assert code == 0 and "Candidate 1: written" in out
    m = Store(roots.workspace).read("knowledge/release-tags-must-follow-smoke.md")
    assert m.depends_on == [x] and m.meta["level"] == "advanced"


def test_last_n_sessions_normalises_to_query_level(
        roots: Roots, stdin: Feed, capsys: Capsys) -> None:
    code, out, _ = run_cli("ss", "-f", "last", "50", "sessions", capsys=capsys)
    assert code == 0 and "at most 50 recent accessible sessions" in out
    assert "--query-level 50" in out
    code, out, _ = run_cli("ss", "--query-level", "last 50 sessions", "--answer", "A",
                           "TYPE: knowledge | TEXT: Grafana lives in the ops repo.",
                           capsys=capsys)
    assert code == 0 and _ids(roots) == ["grafana-lives-ops-repo"]
    code, _, err = run_cli("ss", "--query-level", "0", capsys=capsys)
    assert code == 2 and "query-level" in err


def test_scope_both_without_a_global_root_is_a_clear_error(
        roots: Roots, stdin: Feed, capsys: Capsys) -> None:
    code, _, err = run_cli("save", SMOKE, "--scope", "both", "-f", capsys=capsys)
    assert code == 1 and "engram init --global" in err


def test_save_to_both_roots_writes_each(roots: Roots, stdin: Feed, tmp_path: Path, capsys: Capsys,
                                        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ENGRAM_GLOBAL_DIR", str(tmp_path / "global"))
    init_root(resolve().global_root)  # type: ignore[arg-type]
    code, out, _ = run_cli("save", SMOKE, "-f", capsys=capsys)  # default scope: both
    assert code == 0 and "(workspace): written" in out and "(global): written" in out


def test_archive_moves_the_memory_with_its_reason(
        roots: Roots, stdin: Feed, capsys: Capsys) -> None:
    run_cli("save", SMOKE, "-f", capsys=capsys)
    mid = "run-smoke-suite-before-tagging"
    code, out, _ = run_cli("archive", "--reason", "CI runs it now: automatic", mid,
                           capsys=capsys)
    assert code == 0 and _ids(roots) == []
    [rel] = Store(roots.workspace).archived_files()
    m = Store(roots.workspace).read(rel)
    assert m.lifecycle == "archived" and m.meta["archive_reason"] == "CI runs it now: automatic"
    code, _, _ = run_cli("verify", capsys=capsys)
    assert code == 0
    code, _, err = run_cli("archive", "--reason", "x", "ghost", capsys=capsys)
    assert code == 1 and "engram search" in err


def test_save_json_envelope_reports_written_items(
        roots: Roots, stdin: Feed, capsys: Capsys) -> None:
    import json

    code, out, _ = run_cli("save", SMOKE, "-f", "--json", capsys=capsys)
    data = json.loads(out)
    assert code == 0 and data["ok"] and data["data"]["written"][0]["verdict"] == "ADD"


def test_an_idle_stdin_pipe_does_not_hang_a_save(roots: Roots) -> None:
    import subprocess

    from tests.conftest import engram_cmd, subprocess_env

    with subprocess.Popen([*engram_cmd(), "save", SMOKE], cwd=roots.project,
                          env=subprocess_env(), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, text=True) as proc:
        code = proc.wait(timeout=30)  # stdin stays open and idle the whole time
        out = proc.stdout.read()  # type: ignore[union-attr]
    assert code == 3 and "Nothing was saved" in out
