"""Roles and settings (§9): checked config writes with the agent action line."""

from __future__ import annotations

import json

import pytest

from engram.errors import ConfigValueError, NotFoundError
from engram.settings import AGENT_ACTION, set_load_limit, set_role, set_rule_variant
from engram.workspace import Roots
from tests.helpers import run_cli


def _config(roots: Roots) -> dict[str, object]:
    return json.loads(roots.workspace.config_file.read_text())  # type: ignore[no-any-return]


def test_set_role_stores_roles_and_asks_the_agent_to_reload(roots: Roots) -> None:
    out = set_role(roots, ["Backend", "ops,backend"])
    assert out.data == {"roles": ["backend", "ops"]} and out.text.endswith(AGENT_ACTION)
    assert roots.settings().get("roles") == ["backend", "ops"]
    assert set_role(roots, []).data == {"roles": []}


def test_rule_variant_modes_and_status(roots: Roots) -> None:
    assert set_rule_variant(roots, "strict").text.endswith(AGENT_ACTION)
    s = roots.settings()
    assert s.get("rule_variants.enabled") is True and s.get("rule_variants.active") == "strict"
    status = set_rule_variant(roots, "status")
    assert status.text == "rule variants: strict" and AGENT_ACTION not in status.text
    set_rule_variant(roots, "off")
    assert roots.settings().get("rule_variants.enabled") is False
    with pytest.raises(ConfigValueError):
        set_rule_variant(roots, "loud")


def test_load_limit_range_and_reset_keep_other_keys(roots: Roots) -> None:
    set_role(roots, ["backend"])
    assert set_load_limit(roots, "12").data == {"load.limit": 12}
    with pytest.raises(ConfigValueError) as err:
        set_load_limit(roots, "33")
    assert "1 to 32" in err.value.hint
    set_load_limit(roots, "reset")
    assert roots.settings().int("load.limit") == 8
    assert _config(roots)["roles"] == ["backend"]


def test_cli_settings_commands(roots: Roots, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli("set-read", "manual", capsys=capsys)
    assert code == 0 and AGENT_ACTION in out and roots.settings().get("read") == "manual"
    code, out, _ = run_cli("set-save-target", "workspace", capsys=capsys)
    assert code == 0 and roots.settings().get("scope") == "workspace"
    code, _, err = run_cli("set-save-target", "global", capsys=capsys)
    assert code == 1 and "engram init --global" in err
    code, _, _ = run_cli("set-load-limit", "0", capsys=capsys)
    assert code == 2
    code, out, _ = run_cli("set-role", "frontend", capsys=capsys)
    assert code == 0 and "roles: frontend" in out


def test_settings_need_an_initialised_workspace(project: object) -> None:
    from engram.workspace import resolve

    with pytest.raises(NotFoundError):
        set_role(resolve(), ["backend"])
