"""`engram bench --fixture DIR` scores any fixture directory, split by split and kind by kind."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from engram.bench import retrieval
from engram.cli.main import main
from engram.search.api import load

OWN = retrieval.fixtures_dir()


def _fixture(tmp_path: Path, queries: list[dict[str, object]]) -> Path:
    """The own workspace without a global root, with the given queries."""
    fix = tmp_path / "fix"
    shutil.copytree(OWN / "workspace", fix / "workspace")
    (fix / "queries.json").write_text(json.dumps(queries), encoding="utf-8")
    return fix


def test_bench_fixture_reports_each_split_and_kind(tmp_path: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    own = json.loads((OWN / "queries.json").read_text(encoding="utf-8"))
    hit = next(q for q in own if q.get("expected") and q.get("kind") == "task")
    nothing = next(q for q in own if not q.get("expected"))
    fix = _fixture(tmp_path, [{**hit, "split": "dev"}, {**nothing, "split": "check"},
                              {**hit, "kind": "paraphrase", "split": "check"}])
    code = main(["bench", "--fixture", str(fix)])
    text = capsys.readouterr().out
    assert code == 0
    assert "`dev`: 1 queries" in text and "`check`: 2 queries" in text
    assert "| paraphrase |" in text
    assert "Read path" not in text  # --fixture alone runs only the retrieval suite
    report = retrieval.run(fix)
    assert list(report["splits"]) == ["dev", "check"]
    dev, check = report["splits"]["dev"], report["splits"]["check"]
    assert dev["queries"] == 1 and check["queries"] == 2
    assert check["kinds"] == {nothing.get("kind", "other"): 1, "paraphrase": 1}
    assert set(check["engram"]["recall_by_kind"]) == {"paraphrase"}
    assert check["engram"]["zero_result_correct"].endswith("/1")


def test_bench_fixture_without_queries_is_a_coded_error(tmp_path: Path,
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "workspace").mkdir()
    code = main(["bench", "--fixture", str(tmp_path)])
    err = capsys.readouterr().err
    assert code != 0
    assert "queries.json" in err and "Traceback" not in err


def test_held_out_set_is_found_beside_the_checkout_or_skipped(tmp_path: Path) -> None:
    repo = tmp_path / "work" / "clone"
    repo.mkdir(parents=True)
    assert retrieval.held_out_dir(repo) is None
    held = tmp_path / "work" / "shared" / "retrieval-2"
    held.mkdir(parents=True)
    (held / "queries.json").write_text("[]", encoding="utf-8")
    assert retrieval.held_out_dir(repo) == held


def test_bench_scores_the_map_apart_from_the_pack(tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    """An expected id the pack cannot hold but the map lists counts for shown recall only."""
    query = "flaky test"
    fix = _fixture(tmp_path, [{"query": query, "expected": [], "split": "dev"}])
    out = load(retrieval._setup(tmp_path / "probe", fix), query=query)
    pack = [k.split(":", 1)[1] for k in out.data["selected_keys"]]
    listed = [k.split(":", 1)[1] for k in out.data["map_ids"]]
    assert pack and listed
    (fix / "queries.json").write_text(json.dumps([
        {"query": query, "expected": [pack[0], listed[0]], "split": "dev"},
        {"query": "recommend a sci-fi novel", "expected": [], "split": "dev"}]),
        encoding="utf-8")
    e = retrieval.run(fix)["splits"]["dev"]["engram"]
    assert e["recall_at_8"] == 0.5 and e["shown_recall"] == 1.0
    assert e["zero_result_correct"] == "1/1" and e["loads_over_budget"] == 0
    assert e["p95_pack_tokens"] >= e["mean_pack_tokens"] > 0
    assert main(["bench", "--fixture", str(fix)]) == 0
    text = capsys.readouterr().out
    for row in ("| shown recall (pack + map) | 1.0 |", "| p95 load tokens |",
                "| loads over budget | 0 | - |"):
        assert row in text
