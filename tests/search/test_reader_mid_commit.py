"""A load that meets a commit half-way (file renamed, hash not yet recorded) waits for the
writer and prints the memory instead of calling it unapproved."""

from __future__ import annotations

import threading
import time
from pathlib import Path

from engram.search import api
from engram.store.fileio import atomic_write, root_lock
from engram.store.repo import Store, sha256_bytes
from engram.workspace import Root, resolve
from tests.helpers import memory_text, write_memory


def _half_way_commit(root: Path, rel: str, text: str, started: threading.Event) -> None:
    store = Store(Root(root, "workspace"))
    with root_lock(root):
        atomic_write(root / rel, text)  # the file is in place, its hash is not
        started.set()
        time.sleep(0.3)
        hashes = store.load_hashes()
        before = dict(hashes)
        hashes[rel] = sha256_bytes(text.encode())
        store.save_hashes(hashes, {rel: hashes[rel]}, before)  # as a commit does: recorded


def test_load_during_a_commit_waits_for_the_hash_instead_of_skipping(project: Path) -> None:
    root = project / ".agents" / ".engram"
    write_memory(root, "lint-first", content="- Always lint first.")
    roots = resolve(workspace=project)
    api.load(roots, query="lint")  # build the index before the commit starts
    rel = "rules/quokka-rule.md"
    text = memory_text("quokka-rule", content="- Always feed the quokka before standup.")
    started = threading.Event()
    writer = threading.Thread(target=_half_way_commit, args=(root, rel, text, started))
    writer.start()
    assert started.wait(5)
    outcome = api.load(roots, ids=["quokka-rule"])
    writer.join()
    assert "SKIPPED" not in outcome.text
    assert "feed the quokka" in outcome.text


def test_a_hand_edited_file_is_still_skipped_after_the_wait(project: Path) -> None:
    root = project / ".agents" / ".engram"
    rel = write_memory(root, "lint-first", content="- Always lint first.")
    (root / rel).write_text(memory_text("lint-first", content="- Never lint."), encoding="utf-8")
    outcome = api.load(resolve(workspace=project), ids=["lint-first"])
    assert "SKIPPED" in outcome.text and "Never lint" not in outcome.text


def test_the_index_resource_during_a_commit_lists_the_memory_not_skipped(project: Path) -> None:
    from engram.search.resources import index_text

    root = project / ".agents" / ".engram"
    write_memory(root, "lint-first", content="- Always lint first.")
    roots = resolve(workspace=project)
    index_text(roots)
    rel = "rules/quokka-rule.md"
    text = memory_text("quokka-rule", content="- Always feed the quokka before standup.")
    started = threading.Event()
    writer = threading.Thread(target=_half_way_commit, args=(root, rel, text, started))
    writer.start()
    assert started.wait(5)
    listed = index_text(roots)
    writer.join()
    assert "quokka-rule" in listed and "SKIPPED" not in listed
