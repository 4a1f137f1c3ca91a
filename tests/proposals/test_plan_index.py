"""Planning reads a root through its derived index: the same verdicts as from the files, hand
edits seen by the next proposal, and word caching that never changes a result."""

from __future__ import annotations

import re
import sqlite3
import unicodedata
from contextlib import closing
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from engram.proposals import api, similarity
from engram.proposals.candidates import parse_candidates
from engram.proposals.plan import plan_root, view
from engram.proposals.verdicts import FEATURES, decide
from engram.store.format import render_memory
from engram.store.ids import slugify, title_from_text
from engram.store.model import TYPE_DIR
from engram.store.repo import Change, Store
from engram.workspace import Roots
from tests.proposals.conftest import FakeClock, Seeder

PAIRS = Path(__file__).parent / "fixtures" / "verdict_pairs.txt"


def _pairs() -> list[list[str]]:
    return [[p.strip() for p in line.split("|")]
            for line in PAIRS.read_text(encoding="utf-8").splitlines()
            if line.strip() and not line.startswith("#")]


def _write(store: Store, text: str, mtype: str, mid: str, **meta: object) -> str:
    fm = {"id": mid, "type": mtype, "created": "2026-08-01", "revision": 1, **meta}
    rel = f"{TYPE_DIR[mtype]}/{mid}.md"
    store.write_files([Change(rel, render_memory(fm, title_from_text(text), f"- {text}"))],
                      "seed")
    return rel


def test_verdicts_through_the_index_equal_verdicts_from_the_files(roots: Roots) -> None:
    store = Store(roots.workspace)
    pairs = _pairs()
    for n, (_, _, old_type, old, _) in enumerate(pairs):
        _write(store, old, old_type, f"m{n:03d}-{slugify(title_from_text(old))[:30]}")
    _write(store, "Always.", "rule", "only-polarity")
    _write(store, "Old way to build the docs.", "knowledge", "gone", lifecycle="superseded")
    texts = [(mtype, new) for _, mtype, _, _, new in pairs] + [("rule", "Never.")]
    candidates = [c for t, x in texts for c in parse_candidates(f"TYPE: {t} | TEXT: {x}")]
    from_files = store.scan(include_notes=False).memories
    for _ in range(2):  # words computed, then words from the cache
        planned = [p for c in candidates for p in plan_root(store, "workspace", [c])]
        assert [(p.verdict.label, p.verdict.hints) for p in planned] == \
            [(decide(c, from_files).label, decide(c, from_files).hints) for c in candidates]
    assert {p.verdict.kind for p in planned} == {"NOOP", "UPDATE", "SUPERSEDE", "ADD"}
    assert planned[-1].verdict.label == "SUPERSEDE only-polarity"


def test_a_hand_edit_changes_the_next_verdict_and_drops_the_old_words(
        roots: Roots, seeder: Seeder, clock: FakeClock) -> None:
    mid = seeder("Run the smoke suite before tagging a release.")
    again = "TYPE: rule | TEXT: Run the smoke suite before tagging a release."
    assert api.propose(roots, again, clock=clock).items[0].verdict == f"NOOP duplicate of {mid}"
    derived = roots.workspace.cache_dir / "derived.sqlite"
    with closing(sqlite3.connect(derived)) as db:  # words an older release cached
        db.execute("INSERT INTO derived SELECT sha, 'verdict-words:0', 'x\n' FROM derived")
        db.commit()
        assert db.execute("SELECT count(*) FROM derived WHERE name = 'verdict-words:0'"
                          ).fetchone()[0] > 0
    path = roots.workspace.path / "rules" / f"{mid}.md"
    path.write_text(path.read_text().replace("smoke suite before tagging a release",
                                             "linter on every commit"))
    assert api.propose(roots, again, clock=clock).items[0].verdict == "ADD"
    with closing(sqlite3.connect(derived)) as db:
        cached = list(db.execute("SELECT name, value FROM derived"))
    assert [name for name, _ in cached] == [FEATURES]
    assert "lint" in cached[0][1] and "smoke" not in cached[0][1]


def test_taken_ids_include_note_and_archive_file_names(roots: Roots) -> None:
    store = Store(roots.workspace)
    _write(store, "Deploy from main.", "rule", "deploy-from-main")
    for rel in ("working/draft-idea.md", "archive/rules/old-rule.md"):
        (roots.workspace.path / rel).parent.mkdir(parents=True, exist_ok=True)
        (roots.workspace.path / rel).write_text("not even a memory\n")
    taken = view(store).taken
    assert {"deploy-from-main", "draft-idea", "old-rule"} <= taken


def _folded_in_turn(text: str) -> list[str]:
    """normalise as its phrases read: accents off, lower case, one phrase after another."""
    folded = unicodedata.normalize("NFKD", text)
    folded = "".join(c for c in folded if not unicodedata.combining(c)).lower()
    for pattern, repl in similarity._PHRASES:  # noqa: SLF001 - the reference the test needs
        folded = re.sub(pattern, repl, folded)
    return re.findall(r"[a-z0-9]+", folded)


_PIECES = ["do", "not", "don't", "dont", "don’t", "must", "mustn't", "Should", "shouldn’t", "no",
           "longer", "stop", "using", "deprecated", "Deprecating", "café", "naïve", "x", "2"]


@settings(max_examples=400, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(_PIECES), st.sampled_from([" ", "", "\n", "'", "  "])),
                max_size=12), st.text(max_size=20))
def test_one_pass_phrase_folding_gives_the_words_of_folding_in_turn(
        pieces: list[tuple[str, str]], noise: str) -> None:
    text = "".join(a + b for a, b in pieces) + noise
    assert re.findall(r"[a-z0-9]+", similarity.normalise(text)) == _folded_in_turn(text)


def test_a_commit_sees_a_file_added_after_the_proposal_in_the_same_process(
        roots: Roots, clock: FakeClock) -> None:
    text = "Rotate the staging database password every quarter."
    p = api.propose(roots, f"TYPE: rule | TEXT: {text}", clock=clock)
    assert p.items[0].verdict == "ADD"
    _write(Store(roots.workspace), text, "rule", "rotate-staging-db-password")
    out = api.commit(roots, p.token, clock=clock)
    assert out.data["written"] == []
    assert [n["verdict"] for n in out.data["noop"]] == \
        ["NOOP duplicate of rotate-staging-db-password"]
