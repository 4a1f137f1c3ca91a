"""The synthetic store generator and the shipped retrieval fixtures are well-formed v3 memory.

Until `engram.store.format.parse_memory` lands, a minimal local reader checks the shape the
fixtures and the generator promise (sorted frontmatter keys, flow lists, `# Title`,
`## Content`, rule variants); when the store parser exists, one more test runs every fixture
through it.
"""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path
from typing import Any

import pytest

from engram.bench.synth import generate
from engram.errors import UsageError

REPO = Path(__file__).resolve().parents[2]
FIXTURE = REPO / "benchmarks" / "fixtures" / "retrieval"
REQUIRED_KEYS = {"authority", "confidence", "created", "id", "last_confirmed", "revision",
                 "schema_version", "scope", "source", "tags", "type", "updated", "valid_from"}
OPTIONAL_KEYS = {"author_email", "author_name",
                 "depends_on", "role", "triggers", "lifecycle", "superseded_by", "supersedes",
                 "level"}
AUTHORITY = {"rule": "instruction", "skill": "instruction", "knowledge": "reference"}
TYPE_DIRS = {"rule": "rules", "skill": "skills", "knowledge": "knowledge"}


def slugify(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")[:80].rstrip("-")


def parse_value(raw: str) -> Any:
    if raw.startswith("[") and raw.endswith("]"):
        inner = raw[1:-1].strip()
        return [parse_value(item.strip()) for item in inner.split(",")] if inner else []
    if raw.startswith('"'):
        return json.loads(raw)
    return int(raw) if raw.isdigit() else raw


def split_memory(text: str) -> tuple[list[str], dict[str, Any], str]:
    """Frontmatter key order, parsed frontmatter, body. Raises AssertionError on bad shape."""
    assert text.startswith("---\n"), "no opening frontmatter fence"
    head, sep, body = text[4:].partition("\n---\n")
    assert sep, "no closing frontmatter fence"
    keys: list[str] = []
    meta: dict[str, Any] = {}
    for line in head.splitlines():
        key, colon, raw = line.partition(": ")
        assert colon and re.fullmatch(r"[a-z_]+", key), f"bad frontmatter line {line!r}"
        assert key not in meta, f"duplicate key {key}"
        keys.append(key)
        meta[key] = parse_value(raw)
    return keys, meta, body


def check_memory(path: Path, rel: str, scope: str) -> dict[str, Any]:
    """Assert one file is a well-formed v3 memory; return its frontmatter."""
    keys, meta, body = split_memory(path.read_text(encoding="utf-8"))
    assert keys == sorted(keys), f"{rel}: frontmatter keys not sorted"
    assert set(keys) >= REQUIRED_KEYS, f"{rel}: missing {REQUIRED_KEYS - set(keys)}"
    assert set(keys) <= REQUIRED_KEYS | OPTIONAL_KEYS, f"{rel}: unknown keys"
    assert meta["schema_version"] == 3 and meta["scope"] == scope
    assert meta["authority"] == AUTHORITY[meta["type"]]
    assert meta["id"] == path.stem, f"{rel}: id differs from file name"
    if not rel.startswith("archive/"):
        assert rel.split("/")[0] == TYPE_DIRS[meta["type"]], f"{rel}: wrong type directory"
    assert isinstance(meta["tags"], list) and meta["tags"]
    title = re.search(r"^# (.+)$", body, re.M)
    assert title and slugify(title.group(1)) == meta["id"], f"{rel}: title/id mismatch"
    assert "\n## Content\n" in body, f"{rel}: no ## Content section"
    if meta["type"] == "rule":
        for heading in ("## Rule Variants", "### Light", "### Balanced", "### Strict"):
            assert f"\n{heading}\n" in body, f"{rel}: rule without {heading}"
    assert "2026-01-01" <= meta["created"] <= meta["updated"] <= "2026-11-30", rel
    return meta


def memory_files(root: Path) -> list[tuple[str, Path]]:
    return sorted((p.relative_to(root).as_posix(), p) for p in root.rglob("*.md")
                  if p.name != "changelog.md")


def hashes_match(root: Path) -> None:
    recorded = json.loads((root / "memory.hashes.json").read_text(encoding="utf-8"))
    assert list(recorded) == sorted(recorded)
    files = dict(memory_files(root))
    assert set(recorded) == set(files), "memory.hashes.json and the files disagree"
    for rel, path in files.items():
        assert recorded[rel] == hashlib.sha256(path.read_bytes()).hexdigest(), (
            f"{rel} changed; recompute memory.hashes.json (engram rehash)")


# --- the generator -------------------------------------------------------------------------


@pytest.fixture(scope="module")
def synth_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("synth") / "store"
    generate(root, 400, seed=7)
    return root


def test_generate_writes_n_memories_in_a_realistic_type_mix(synth_root: Path) -> None:
    counts = {d: len(list((synth_root / d).glob("*.md"))) for d in TYPE_DIRS.values()}
    assert sum(counts.values()) == 400
    assert 0.30 < counts["rules"] / 400 < 0.50
    assert 0.15 < counts["skills"] / 400 < 0.35
    assert 0.25 < counts["knowledge"] / 400 < 0.45


def test_every_generated_file_is_a_well_formed_v3_memory(synth_root: Path) -> None:
    metas = [check_memory(p, rel, "workspace") for rel, p in memory_files(synth_root)]
    ids = {m["id"] for m in metas}
    deps = [d for m in metas for d in m.get("depends_on", [])]
    assert deps and set(deps) <= ids
    assert any("triggers" in m for m in metas)


def test_generated_memories_carry_the_author_fields_the_ts_tool_requires(synth_root: Path
                                                                          ) -> None:
    from engram.store.format import parse_memory
    from engram.store.ts_index import entry

    for rel, path in memory_files(synth_root):
        meta = check_memory(path, rel, "workspace")
        assert meta["author_name"] and "@" in meta["author_email"], rel
        ts = entry(parse_memory(path.read_text(encoding="utf-8"), rel, "workspace"))
        assert ts["author"] == meta["author_email"] != "unknown"


def test_generated_hashes_match_the_files(synth_root: Path) -> None:
    hashes_match(synth_root)
    assert (synth_root / "changelog.md").read_text(encoding="utf-8").startswith("# Changelog")


def test_generate_is_deterministic_for_a_seed(tmp_path: Path) -> None:
    generate(tmp_path / "a", 120, seed=3)
    generate(tmp_path / "b", 120, seed=3)
    generate(tmp_path / "c", 120, seed=4)
    a, b, c = (sorted((r, p.read_bytes()) for r, p in memory_files(tmp_path / x))
               for x in "abc")
    assert a == b
    assert a != c
    assert (tmp_path / "a" / "memory.hashes.json").read_bytes() == (
        tmp_path / "b" / "memory.hashes.json").read_bytes()


def test_generate_zero_creates_an_empty_root(tmp_path: Path) -> None:
    generate(tmp_path / "empty", 0)
    assert memory_files(tmp_path / "empty") == []
    assert json.loads((tmp_path / "empty" / "memory.hashes.json").read_text()) == {}


def test_generate_refuses_a_root_that_already_has_memories(synth_root: Path) -> None:
    with pytest.raises(UsageError) as info:
        generate(synth_root, 5)
    assert info.value.code == "bench.root_not_empty"


def test_generate_rejects_a_negative_count(tmp_path: Path) -> None:
    with pytest.raises(UsageError) as info:
        generate(tmp_path / "neg", -1)
    assert info.value.code == "bench.count"


# --- the shipped retrieval fixtures -----------------------------------------------------------


def fixture_metas() -> dict[str, dict[str, dict[str, Any]]]:
    """scope -> id -> frontmatter, every file checked on the way."""
    out: dict[str, dict[str, dict[str, Any]]] = {}
    for scope, folder in (("workspace", "workspace"), ("global", "global")):
        metas = [check_memory(p, rel, scope) for rel, p in memory_files(FIXTURE / folder)]
        out[scope] = {m["id"]: m for m in metas}
        assert len(out[scope]) == len(metas), f"duplicate id in {scope}"
    return out


def visible(meta: dict[str, Any], roles: list[str]) -> bool:
    if meta.get("lifecycle") in ("superseded", "archived") or meta["confidence"] == "low":
        return False
    return not meta.get("role") or bool(set(meta["role"]) & set(roles))


def test_every_fixture_file_is_well_formed_and_hashed() -> None:
    metas = fixture_metas()
    assert len(metas["workspace"]) >= 160 and 10 <= len(metas["global"]) <= 20
    for folder in ("workspace", "global"):
        hashes_match(FIXTURE / folder)


def test_fixture_references_point_at_existing_memories() -> None:
    ws = fixture_metas()["workspace"]
    for meta in ws.values():
        refs = meta.get("depends_on", []) + meta.get("supersedes", [])
        refs += [meta["superseded_by"]] if "superseded_by" in meta else []
        assert set(refs) <= set(ws), f"{meta['id']} points at a missing memory"
        if meta.get("lifecycle") == "superseded":
            assert meta["id"] in ws[meta["superseded_by"]].get("supersedes", [])


def test_fixture_queries_name_existing_and_visible_memories() -> None:
    metas = fixture_metas()
    known = {**metas["global"], **metas["workspace"]}  # workspace wins on a shared id
    queries = json.loads((FIXTURE / "queries.json").read_text(encoding="utf-8"))
    assert len(queries) >= 70
    assert sum(1 for q in queries if not q["expected"]) >= 6
    assert sum(1 for q in queries if "roles" in q) >= 5
    for q in queries:
        roles = q.get("roles", [])
        assert len(q["expected"]) <= 4 and not set(q["expected"]) & set(q["forbidden"])
        assert set(q["expected"]) | set(q["forbidden"]) <= set(known), q["query"]
        assert all(visible(known[i], roles) for i in q["expected"]), q["query"]
        for before, after in q.get("order", []):
            assert before in q["expected"] and after in q["expected"], q["query"]
    pairs = json.loads((FIXTURE / "near_duplicates.json").read_text(encoding="utf-8"))
    assert all(a in metas["workspace"] and b in metas["workspace"] for a, b in pairs)


def test_fixtures_contain_no_injection_lines_or_addresses() -> None:
    starts = re.compile(r"^\s*(?:[-*>]|\d+\.)?\s*(ignore|forget|disregard|override)\b", re.I | re.M)
    email = re.compile(r"[\w.+-]+@[\w-]+\.[\w.]{2,}")
    for _rel, path in memory_files(FIXTURE):
        text = path.read_text(encoding="utf-8")
        assert not starts.search(text) and not email.search(text), path


def test_fixtures_parse_with_the_store_parser() -> None:
    fmt = pytest.importorskip("engram.store.format")
    for scope in ("workspace", "global"):
        for rel, path in memory_files(FIXTURE / scope):
            memory = fmt.parse_memory(path.read_text(encoding="utf-8"), rel, scope)
            assert memory.id == path.stem


def test_fixtures_and_synthetic_files_pass_the_safety_scan(synth_root: Path) -> None:
    scan = pytest.importorskip("engram.safety.scan")
    if not hasattr(scan, "scan_text"):
        pytest.skip("engram.safety.scan has no scan_text yet")
    paths = [p for _rel, p in memory_files(FIXTURE)] + [p for _r, p in memory_files(synth_root)]
    flagged = [p for p in paths if scan.scan_text(p.read_text(encoding="utf-8"))]
    assert flagged == []


def test_every_bench_suite_the_cli_offers_is_registered_and_titled() -> None:
    from engram.bench.report import RUNNERS, TITLES
    from engram.cli.bench import SUITES

    assert set(SUITES) == set(RUNNERS) == set(TITLES)
