"""Commit (§7.6): verdicts applied end to end, pinned verdicts recomputed, ID-only deferrals."""

from __future__ import annotations

from pathlib import Path

import pytest

from engram.proposals import api
from engram.store.integrity import verify
from engram.store.layout import init_root
from engram.store.repo import Store
from engram.workspace import Roots, resolve
from tests.proposals.conftest import FakeClock, Seeder


def _files(roots: Roots) -> dict[str, bytes]:
    base = roots.workspace.path
    return {p.relative_to(base).as_posix(): p.read_bytes()
            for p in base.rglob("*.md") if "working" not in p.parts}


def _memory(roots: Roots, mid: str):  # type: ignore[no-untyped-def]
    return next(m for m in Store(roots.workspace).scan().memories if m.id == mid)


def test_add_writes_a_v3_file_with_its_hash_and_changelog_line(roots: Roots,
                                                               clock: FakeClock) -> None:
    p = api.propose(roots, "TYPE: rule | TEXT: Run the smoke suite before tagging a release.",
                    clock=clock)
    out = api.commit(roots, p.token, "all", clock=clock)
    [w] = out.data["written"]
    assert w["id"] == "run-smoke-suite-before-tagging"
    m = _memory(roots, w["id"])
    assert m.meta["schema_version"] == 3 and m.meta["revision"] == 1
    assert m.meta["created"] == "2026-08-01" and m.meta["authority"] == "instruction"
    assert set(m.variants) == {"light", "balanced", "strict"}
    assert Store(roots.workspace).load_hashes()[w["file"]]
    assert f"{w['file']}: ADD" in roots.workspace.changelog_file.read_text()
    assert verify(roots).exit_code == 0


def test_update_merges_bullets_tags_and_depends_on_and_bumps_revision(
        roots: Roots, seeder: Seeder, clock: FakeClock) -> None:
    mid = seeder("Use pnpm for installing JavaScript dependencies.")
    p = api.propose(roots, "TYPE: rule | TEXT: Use pnpm for installing JavaScript dependencies "
                    "in CI. | DEPENDS_ON: ci-setup | TAGS: ci", clock=clock)
    assert p.items[0].verdict == f"UPDATE {mid}"
    api.commit(roots, p.token, clock=clock)
    m = _memory(roots, mid)
    assert m.meta["revision"] == 2 and m.meta["last_confirmed"] == "2026-08-01"
    assert "ci" in m.tags and m.depends_on == ["ci-setup"]
    assert m.content.count("- ") == 2 and "in CI" in m.content


def test_supersede_writes_the_new_memory_and_marks_the_old(roots: Roots, seeder: Seeder,
                                                           clock: FakeClock) -> None:
    old = seeder("Always squash commits when merging pull requests.")
    p = api.propose(roots, "Never squash commits when merging pull requests.", single=True,
                    clock=clock)
    assert p.items[0].verdict == f"SUPERSEDE {old}"
    out = api.commit(roots, p.token, clock=clock)
    new = out.data["written"][0]["id"]
    assert _memory(roots, new).meta["supersedes"] == [old]
    marked = _memory(roots, old)
    assert marked.lifecycle == "superseded" and marked.meta["superseded_by"] == new


def test_noop_is_reported_not_written_and_leaves_the_token_usable(
        roots: Roots, seeder: Seeder, clock: FakeClock) -> None:
    mid = seeder("Run the smoke suite before tagging a release.")
    before = _files(roots)
    p = api.propose(roots, "Run the smoke suite before tagging a release.", single=True,
                    clock=clock)
    out = api.commit(roots, p.token, clock=clock)
    assert out.data["noop"][0]["verdict"] == f"NOOP duplicate of {mid}"
    assert _files(roots) == before
    again = api.commit(roots, p.token, clock=clock)  # nothing was written: token still valid
    assert again.data["written"] == []


def test_pinned_supersede_that_no_longer_holds_is_deferred_and_nothing_is_overwritten(
        roots: Roots, seeder: Seeder, clock: FakeClock) -> None:
    from engram.proposals.archive import archive

    old = seeder("Always squash commits when merging pull requests.")
    p = api.propose(roots, "Never squash commits when merging pull requests.", single=True,
                    clock=clock)
    assert p.items[0].verdict == f"SUPERSEDE {old}"
    archive(roots, old, "policy moved to the wiki", today=clock().date())
    before = _files(roots)
    out = api.commit(roots, p.token, clock=clock)
    assert out.data["written"] == []
    assert "Candidate 1: not written" in out.text and f"Related IDs: {old}" in out.text
    assert _files(roots) == before


def test_update_whose_target_vanished_is_deferred(roots: Roots, seeder: Seeder,
                                                  clock: FakeClock) -> None:
    from engram.proposals.archive import archive

    mid = seeder("Use pnpm for installing JavaScript dependencies.")
    p = api.propose(roots, f"TYPE: rule | TEXT: Pin the pnpm version. | UPDATE: {mid}",
                    clock=clock)
    archive(roots, mid, "we moved to bun", today=clock().date())
    out = api.commit(roots, p.token, clock=clock)
    assert out.data["deferred"][0]["related_ids"] == [mid]


def test_add_that_became_a_duplicate_is_reported_as_noop(roots: Roots, seeder: Seeder,
                                                         clock: FakeClock) -> None:
    text = "The staging database is refreshed from production every Sunday night."
    p = api.propose(roots, f"TYPE: knowledge | TEXT: {text}", clock=clock)
    seeder(text, "knowledge")
    out = api.commit(roots, p.token, clock=clock)
    assert out.data["noop"] and out.data["deferred"] == [] and out.data["written"] == []


def test_deferred_guidance_names_ids_only(roots: Roots, seeder: Seeder, clock: FakeClock) -> None:
    x = seeder("Run the smoke suite before tagging a release.")
    p = api.propose(roots, "TYPE: knowledge | TEXT: Release tags must follow the smoke suite "
                    "run.\nTYPE: knowledge | TEXT: Grafana dashboards live in the ops repo.",
                    clock=clock)
    out = api.commit(roots, p.token, clock=clock)
    assert [w["number"] for w in out.data["written"]] == [2]
    lines = out.text.splitlines()
    i = lines.index("Candidate 1: not written")
    assert lines[i + 2:i + 5] == [f"Related IDs: {x}", f"Inspect: engram load --id {x}",
                                  f"Action: rerun with DEPENDS_ON: {x}"]
    block = "\n".join(lines[i:i + 5])
    for leak in (".md", "0.", "smoke suite run", "author", "/"):
        assert leak not in block


def test_approve_subset_writes_only_those_numbers(roots: Roots, clock: FakeClock) -> None:
    p = api.propose(roots, "TYPE: knowledge | TEXT: Grafana lives in the ops repo.\n"
                    "TYPE: knowledge | TEXT: Sentry alerts go to the on-call channel.",
                    clock=clock)
    out = api.commit(roots, p.token, [2], clock=clock)
    assert [w["number"] for w in out.data["written"]] == [2]


def test_mcp_style_arguments_role_string_context_and_bad_query_level(roots: Roots,
                                                                     clock: FakeClock) -> None:
    import pytest

    from engram.errors import UsageError

    p = api.propose(roots, "Keep handlers free of global state.", single=True, type="rule",
                    role="Backend, ops", context="incident 42", clock=clock)
    api.commit(roots, p.token, clock=clock)
    m = _memory(roots, p.items[0].id)
    assert m.roles == ["backend", "ops"] and "Incident 42" in m.body
    with pytest.raises(UsageError) as err:
        api.propose(roots, "Grafana lives in ops.", query_level=0)
    assert err.value.code == "usage.query_level"


def test_preview_shows_each_candidate_and_the_approval_rule(roots: Roots, seeder: Seeder,
                                                            clock: FakeClock) -> None:
    x = seeder("Run the smoke suite before tagging a release.")
    p = api.propose(roots, "TYPE: knowledge | TEXT: Release tags must follow the smoke suite "
                    "run.\nTYPE: rule | TEXT: Never force-push to main.", clock=clock)
    out = p.outcome()
    assert "[1] knowledge · Release tags must follow the smoke suite run" in out.text
    assert "Verdict: ADD (needs review" in out.text
    assert f"Related: suggested dependency {x}" in out.text
    assert "→ workspace rules/never-force-push-main.md" in out.text
    assert "Never call engram_commit before the human approved them" in out.text
    assert out.data["approval_token"] == p.token
    assert [(i["number"], i["verdict"], i["writable"], i["ready"]) for i in out.data["items"]] \
        == [(1, "ADD", True, False), (2, "ADD", True, True)]


def test_update_keeps_old_context_and_adds_the_new_one(roots: Roots, clock: FakeClock) -> None:
    first = api.propose(roots, "TYPE: rule | TEXT: Use pnpm for installing JavaScript "
                        "dependencies. | CONTEXT: npm lockfiles drifted", clock=clock)
    api.commit(roots, first.token, clock=clock)
    mid = first.items[0].id
    p = api.propose(roots, "TYPE: rule | TEXT: Use pnpm for installing JavaScript dependencies "
                    "in CI. | CONTEXT: CI cache hits doubled", clock=clock)
    api.commit(roots, p.token, clock=clock)
    body = _memory(roots, mid).body
    assert "Npm lockfiles drifted." in body and "CI cache hits doubled." in body
    assert body.count("## Context") == 1


def test_items_carry_the_verdict_as_data_and_the_wire_keeps_the_text_only(
        roots: Roots, seeder: Seeder, clock: FakeClock, tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    mid = seeder("Use pnpm for installing JavaScript dependencies.")
    monkeypatch.setenv("ENGRAM_GLOBAL_DIR", str(tmp_path / "global"))
    roots = resolve()
    assert roots.global_root is not None
    init_root(roots.global_root)
    p = api.propose(roots, "TYPE: rule | TEXT: Use pnpm for installing JavaScript dependencies "
                    "in CI.", scope="both", clock=clock)
    [item] = p.items
    assert item.parts == (("workspace", "UPDATE"), ("global", "ADD"))
    assert item.verdict == f"workspace: UPDATE {mid}; global: ADD"
    assert "parts" not in item.as_dict()
    assert [set(i) for i in p.outcome().data["items"]] == [
        {"number", "verdict", "id", "title", "writable", "type", "ready", "text", "effects"}]
    note = api.propose_note(roots, "Halfway through the pnpm migration.", clock=clock)
    assert note.items[0].parts == (("workspace", "ADD"),)
