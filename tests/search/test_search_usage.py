"""Recall counts in usage.json."""

from __future__ import annotations

import json
import threading
from pathlib import Path

from engram.search.usage import read_usage, record
from engram.workspace import Root


def test_recalls_accumulate_and_survive_concurrent_writers(tmp_path: Path) -> None:
    root = Root(tmp_path / "root", "workspace")
    root.path.mkdir()
    workers = [threading.Thread(target=record, args=(root, ["workspace:a"])) for _ in range(8)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    record(root, ["workspace:a", "workspace:b"])
    data = json.loads(root.usage_file.read_text(encoding="utf-8"))
    assert data["workspace:a"]["recalls"] == 9
    assert data["workspace:b"]["recalls"] == 1
    assert read_usage(root)["workspace:b"]["last_recalled"]


def test_a_broken_usage_file_counts_as_empty(tmp_path: Path) -> None:
    root = Root(tmp_path, "workspace")
    root.usage_file.write_text("{not json", encoding="utf-8")
    assert read_usage(root) == {}
    record(root, ["workspace:a"])
    assert read_usage(root)["workspace:a"]["recalls"] == 1
