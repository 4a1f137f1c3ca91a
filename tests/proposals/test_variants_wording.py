"""Generated rule variants (§7.1): deterministic light/balanced/strict wordings."""

from __future__ import annotations

import pytest

from engram.proposals.variants import generate, variants_for


@pytest.mark.parametrize(("text", "light", "strict"), [
    ("Always run the smoke suite before tagging",
     "When practical, run the smoke suite before tagging.",
     "Always run the smoke suite before tagging; no exceptions without explicit approval from "
     "the team."),
    ("Never commit generated files.", "Where practical, do not commit generated files.",
     "Never commit generated files; no exceptions without explicit approval from the team."),
    ("Don't push on Fridays", "Where practical, do not push on Fridays.",
     "Never push on Fridays; no exceptions without explicit approval from the team."),
    ("Avoid global state in handlers.", "Where practical, avoid global state in handlers.",
     "Never resort to global state in handlers; no exceptions without explicit approval from "
     "the team."),
    ("Run the linter before pushing.", "When practical: run the linter before pushing.",
     "Run the linter before pushing, always; no exceptions without explicit approval from the "
     "team."),
    ("API handlers return JSON.", "When practical: API handlers return JSON.",
     "API handlers return JSON, always; no exceptions without explicit approval from the team."),
])
def test_generated_wordings(text: str, light: str, strict: str) -> None:
    v = generate(text)
    assert v["light"] == light and v["strict"] == strict
    assert v["balanced"] == text.rstrip(".") + "."
    assert generate(text) == v  # deterministic


def test_given_variants_win_over_generated_ones() -> None:
    v = variants_for("Always pin versions.", {"strict": "pin every version, no ranges"})
    assert v["strict"] == "Pin every version, no ranges." and v["light"].startswith("When")
