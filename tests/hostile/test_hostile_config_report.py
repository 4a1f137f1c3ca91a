"""A hand-edited config value Engram cannot use is reported where the README says (`engram
status` and `engram doctor`), in the file's own JSON spelling, with the accepted values.

Before: plain `engram status` said nothing (only `--json` carried the warning), doctor printed
Python spellings (`read = True … using 'auto'`), said "a value that is not allowed is out of
range", offered `engram config set roles <value in range>` for a key that has no range, and a
section that is not an object (`"load": 5`) was ignored without a word ("configuration is valid").
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.helpers import run_cli


@pytest.fixture
def config(engram_root: Path) -> Path:
    return engram_root / "engram.config.json"


CASES = [
    ('{"load": {"limit": 500}}', "load.limit = 500", "using 32", "from 1 to 32"),
    ('{"read": true}', "read = true", 'using "auto"', "use one of: startup, auto"),
    ('{"load": {"limit": "many"}}', 'load.limit = "many"', "using 8", "from 1 to 32"),
    ('{"roles": [1, null]}', "roles holds a value that is not allowed", "using []",
     "comma-separated list"),
    ('{"load": 5}', "load = 5", "using the defaults", "an object"),
    ('{"scope": "global"}', 'scope = "global"', "using the default",
     "engram config set scope global --user"),
]


@pytest.mark.parametrize(("text", "shown", "used", "fix"), CASES)
def test_a_value_engram_cannot_use_is_reported_with_its_fix(
        config: Path, capsys: pytest.CaptureFixture[str],
        text: str, shown: str, used: str, fix: str) -> None:
    config.write_text(text)
    for args in (("status",), ("doctor",)):
        _, out, _ = run_cli(*args, capsys=capsys)
        line = next((x for x in out.splitlines() if shown in x), "")
        assert line and used in line, (args, out)
        assert fix in out, (args, out)
        for python_spelling in ("True", "'auto'", "'many'", "is out of range"):
            assert python_spelling not in out, (args, out)
