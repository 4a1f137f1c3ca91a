"""Structure of the safety package: a leaf, its rules are data, and each rule is documented."""

from __future__ import annotations

import ast
from pathlib import Path

import engram.safety as safety
from engram.safety import INJECTION_RULES, SECRET_RULES

PACKAGE = Path(safety.__file__).resolve().parent
REPO = Path(__file__).resolve().parents[2]
DOC = REPO / "docs" / "safety.md"


def _imported_modules(path: Path) -> set[str]:
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module)
    return found


def test_safety_imports_nothing_from_engram_outside_itself() -> None:
    for path in PACKAGE.glob("*.py"):
        for module in _imported_modules(path):
            if module == "engram" or module.startswith("engram."):
                assert module.startswith("engram.safety"), f"{path.name} imports {module}"


def test_rule_kinds_are_unique_and_prefixed_by_their_category() -> None:
    kinds = [rule.kind for rule in SECRET_RULES + INJECTION_RULES]
    assert len(kinds) == len(set(kinds))
    for rule in SECRET_RULES + INJECTION_RULES:
        assert rule.kind.split(".")[0] == rule.category
        assert rule.label


def test_secret_rules_have_distinct_placeholders() -> None:
    placeholders = [rule.placeholder for rule in SECRET_RULES]
    assert all(placeholders)
    assert len(placeholders) == len(set(placeholders))


def test_anchored_rules_declare_the_hints_they_start_at() -> None:
    for rule in SECRET_RULES:
        if rule.anchored:
            assert rule.hints, rule.kind
        assert all(h == h.lower() for h in rule.hints), rule.kind


def test_every_rule_kind_is_documented() -> None:
    doc = DOC.read_text(encoding="utf-8")
    for rule in SECRET_RULES + INJECTION_RULES:
        assert f"`{rule.kind}`" in doc, rule.kind


def test_the_public_api_is_exported() -> None:
    for name in ("scan_text", "scan_secrets", "scan_injection", "redact", "strip_injection_lines",
                 "describe", "Finding", "is_contained", "contained_path", "PathEscape"):
        assert name in safety.__all__
