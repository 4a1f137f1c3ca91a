"""Every kind of effect a commit can have is rendered in the preview, the approval dialog and the
commit result (issue 27 class 1): one scenario per `effects.KINDS` entry, so a new kind without
a scenario fails here, and a commit refuses to change a file no effect names."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

import pytest

from engram.errors import EngramError
from engram.mcp import elicitation as dlg
from engram.proposals import api, effects
from engram.proposals.effects import Effect
from engram.workspace import Roots
from tests.proposals.conftest import FakeClock, Seeder


class Seen(NamedTuple):
    effects: list[Effect]
    preview: str
    dialog: str
    result: str


def _save(roots: Roots, clock: FakeClock, text: str) -> Seen:
    p = api.propose(roots, text, single=True, type="rule", clock=clock)
    form = dlg.save_form(p.items)
    assert form is not None
    out = api.commit(roots, p.token, clock=clock)
    return Seen([e for i in p.items for e in i.effects], p.preview,
                form.message + str(form.schema), out.text)


def _new(roots: Roots, seeder: Seeder, clock: FakeClock) -> Seen:
    return _save(roots, clock, "Run the smoke suite before tagging a release.")


def _updated(roots: Roots, seeder: Seeder, clock: FakeClock) -> Seen:
    mid = seeder("Use pnpm for installing JavaScript dependencies.")
    return _save(roots, clock, f"TYPE: rule | UPDATE: {mid} | TEXT: Use pnpm in CI too.")


def _superseded(roots: Roots, seeder: Seeder, clock: FakeClock) -> Seen:
    old = seeder("Always squash commits when merging pull requests.")
    return _save(roots, clock, f"TYPE: rule | SUPERSEDES: {old} | TEXT: Merge with a commit.")


def _note(roots: Roots, seeder: Seeder, clock: FakeClock) -> Seen:
    p = api.propose_note(roots, "The CI cache key is v7.", clock=clock)
    form = dlg.note_form(p.items, p.data.get("valid_until"))
    assert form is not None
    out = api.commit(roots, p.token, clock=clock)
    return Seen(list(p.items[0].effects), p.preview, form.message + str(form.schema), out.text)


def _note_removed(roots: Roots, seeder: Seeder, clock: FakeClock) -> Seen:
    note = api.propose_note(roots, "Deploys need the VPN on.", clock=clock)
    nid = api.commit(roots, note.token, clock=clock).data["id"]
    p = api.propose_promotion(roots, nid, clock=clock)
    form = dlg.save_form(p.items)
    assert form is not None
    out = api.commit(roots, p.token, clock=clock)
    return Seen([e for i in p.items for e in i.effects], p.preview,
                form.message + str(form.schema), out.text)


SCENARIOS: dict[str, Callable[[Roots, Seeder, FakeClock], Seen]] = {
    "new": _new, "updated": _updated, "superseded": _superseded, "note": _note,
    "note-removed": _note_removed}


def test_every_effect_kind_has_a_scenario() -> None:
    assert set(SCENARIOS) == set(effects.KINDS)


@pytest.mark.parametrize("kind", effects.KINDS)
def test_each_effect_is_shown_before_and_reported_after(
        kind: str, roots: Roots, seeder: Seeder, clock: FakeClock) -> None:
    seen = SCENARIOS[kind](roots, seeder, clock)
    assert kind in {e.kind for e in seen.effects}, seen.effects
    for e in seen.effects:
        line = effects.describe(e)
        assert line in seen.preview, (line, seen.preview)
        assert line in seen.dialog, (line, seen.dialog)
        assert effects.done(e) in seen.result, (effects.done(e), seen.result)
        assert e.scope in line and e.type in line and e.id in line


def test_a_retired_memory_is_shown_with_its_own_text(roots: Roots, seeder: Seeder,
                                                     clock: FakeClock) -> None:
    seen = _superseded(roots, seeder, clock)
    old = "always-squash-commits-merging-pull"  # its id: the first content words (store/ids.py)
    [gone] = [e for e in seen.effects if e.kind == "superseded"]
    assert (gone.id, gone.scope, gone.type) == (old, "workspace", "rule")
    assert "squash commits" in gone.excerpt and gone.by
    assert "lifecycle: superseded" in effects.describe(gone)


def test_a_commit_refuses_a_change_no_effect_names(
        roots: Roots, seeder: Seeder, clock: FakeClock, monkeypatch: pytest.MonkeyPatch) -> None:
    """The guard for the next side effect someone adds: if the list forgot it, nothing of that
    candidate is written."""
    old = seeder("Always squash commits when merging pull requests.")
    p = api.propose(roots, f"TYPE: rule | SUPERSEDES: {old} | TEXT: Merge with a commit.",
                    single=True, clock=clock)
    from engram.proposals import commit

    real = effects.of_candidate

    def forgetful(planned: Any) -> list[Effect]:
        return [e for e in real(planned) if e.kind != "superseded"]

    monkeypatch.setattr(commit, "of_candidate", forgetful)
    before = sorted(p.name for p in roots.workspace.path.rglob("*.md"))
    with pytest.raises(EngramError) as refused:
        api.commit(roots, p.token, clock=clock)
    assert refused.value.code == "internal.unlisted_effect"
    assert sorted(p.name for p in roots.workspace.path.rglob("*.md")) == before
