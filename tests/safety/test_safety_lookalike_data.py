"""The generated look-alike table is what scripts/gen-lookalikes.py makes from Unicode's
confusables, and the rules' `i`/`l` rewrite keeps regex syntax intact."""

from __future__ import annotations

import runpy
import sys
import unicodedata
from pathlib import Path

import pytest

from engram.safety.rules import lookalike_blind

ROOT = Path(__file__).resolve().parents[2]


def test_the_generated_table_is_current(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("confusable_homoglyphs")
    if unicodedata.unidata_version != "14.0.0":
        pytest.skip("the table is generated with Python 3.11's Unicode 14.0 names")
    out = tmp_path / "lookalike_data.py"
    script = runpy.run_path(str(ROOT / "scripts/gen-lookalikes.py"), run_name="gen")
    monkeypatch.setitem(script["main"].__globals__, "OUT", out)
    monkeypatch.setattr(sys, "argv", ["gen-lookalikes.py"])
    assert script["main"]() == 0
    current = (ROOT / "src/engram/safety/lookalike_data.py").read_text(encoding="utf-8")
    assert out.read_text(encoding="utf-8") == current, "run scripts/gen-lookalikes.py"


def test_lookalike_blind_reads_each_spelling_and_keeps_syntax() -> None:
    assert lookalike_blind(r"(?P<r1>ignore\b[ \t]{1,4}all\w\d)\u00ab(?:my)") == \
        r"(?P<r1>[il]gnore\b[ \t]{1,4}a[il][il]\w\d)\u00ab(?:(?:m|rn)y)"
    with pytest.raises(ValueError):
        lookalike_blind("[il]")
