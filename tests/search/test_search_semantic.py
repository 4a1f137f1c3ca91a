"""The semantic extra (off by default, docs/reading.md "Semantic extra"): a tiny hand-made vector
table, written with the same writer scripts/build-vectors.py uses, drives the real read path."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path

import pytest

from engram.search.api import load
from engram.search.semantic_table import decode, encode, write_table
from engram.search.session import ReadSession
from engram.workspace import Roots, resolve
from tests.conftest import REPO, subprocess_env
from tests.helpers import run_cli, run_json
from tests.search.test_search_load import put

TASK = "speed up the checkout page"
# Four dimensions: 0 = speed, 1 = commerce, 2 = documents, 3 = food. Frequency order matters
# only for the SIF weights.
WORDS = {
    "page": (0.3, 0.3, 0.3, 0.3), "speed": (1.0, 0.0, 0.0, 0.0),
    "checkout": (0.0, 1.0, 0.0, 0.0), "slow": (0.95, 0.1, 0.0, 0.0),
    "latency": (0.95, 0.0, 0.1, 0.0), "render": (0.9, 0.1, 0.1, 0.0),
    "fast": (1.0, 0.05, 0.0, 0.0), "buyers": (0.2, 0.9, 0.0, 0.0),
    "fridge": (0.0, 0.0, 0.0, 1.0), "lunch": (0.0, 0.0, 0.1, 1.0),
    "print": (0.0, 0.0, 1.0, 0.0),
}


def matrix(words: Mapping[str, tuple[float, ...]] = WORDS) -> bytes:
    """The int8 rows, as the build script quantises them (unit vectors times 127)."""
    out = bytearray()
    for vec in words.values():
        norm = sum(x * x for x in vec) ** 0.5
        out += bytes(round(x / norm * 127) & 0xFF for x in vec)
    return bytes(out)


def table_bytes() -> bytes:
    return encode(list(WORDS), 4, matrix())


@pytest.fixture
def store(project: Path) -> Roots:
    """A pack with free slots: one strong match, one memory whose only task word is in its body
    (below the relative score floor) but which is about speed, and memories about speed that share
    no task word (one reachable only through the active role)."""
    root = project / ".agents" / ".engram"
    root.mkdir(parents=True)
    put(root, "checkout-page-speed", "rule", "- Keep the checkout page speed under budget.",
        title="Checkout page speed", tags=["checkout"])
    put(root, "slow-render", "knowledge", "- A page that renders slow loses buyers; keep "
        "latency low and render fast.", title="Slow render latency", tags=["latency"])
    put(root, "fast-render-role", "knowledge", "- Render fast, keep latency low for buyers.",
        title="Fast render latency", tags=["latency"], role=["frontend"])
    put(root, "render-latency", "knowledge", "- Slow render, latency.", title="Render latency",
        tags=["latency"])
    put(root, "office-fridge", "knowledge", "- Clean the fridge before lunch on Fridays.",
        title="Office fridge", tags=["office"])
    roots = resolve()
    write_table(roots.vectors_file, list(WORDS), 4, matrix())
    return roots


def enable(roots: Roots, on: bool = True, *, roles: list[str] | None = None) -> None:
    path = roots.workspace.config_file
    data = json.loads(path.read_text(encoding="utf-8")) if path.is_file() else {}
    data["semantic"] = {"enabled": on}
    if roles is not None:
        data["roles"] = roles
    path.write_text(json.dumps(data), encoding="utf-8")


def routed(roots: Roots, task: str = TASK, *, explain: bool = True,
           session: ReadSession | None = None) -> tuple[list[str], str]:
    out = load(roots, query=task, explain=explain, session=session)
    return [k.split(":", 1)[1] for k in out.data["selected_keys"]], out.text


def test_off_by_default_the_pack_is_the_lexical_one(store: Roots) -> None:
    keys, text = routed(store)
    assert keys == ["checkout-page-speed"]
    assert "(2 matching" in text  # slow-render matched `page`, below the score floor
    assert "similar to the task" not in text and "semantic" not in text


def test_on_a_similar_memory_sharing_a_task_word_fills_a_free_slot(store: Roots) -> None:
    enable(store)
    session = ReadSession(store, long_lived=True)  # the MCP server's session
    keys, text = routed(store, session=session)
    assert keys == ["checkout-page-speed", "slow-render"]
    line = text.split("slow-render [body] ")[1].split("\n", 1)[0]
    assert line.startswith("similar to the task (cosine 0.") and line.endswith(", free slot)")
    assert float(line.split("cosine ")[1].split(",")[0]) >= 0.6
    keys, _ = routed(store, session=session)  # the warm session keeps the table loaded
    assert keys == ["checkout-page-speed", "slow-render"]
    session.close()


def test_the_cold_cli_uses_it_and_explain_names_it(store: Roots, capsys: pytest.CaptureFixture[str]
                                                    ) -> None:
    enable(store)
    code, out, _ = run_cli("load", TASK, "--explain", capsys=capsys)
    assert code == 0
    assert "slow-render [body] similar to the task (cosine" in out


def test_a_cold_cli_over_budget_skips_it_and_says_so(store: Roots,
                                                     monkeypatch: pytest.MonkeyPatch,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    from engram.search import semantic_load

    monkeypatch.setattr(semantic_load, "COLD_CLI", False)
    enable(store)
    code, out, _ = run_cli("load", TASK, "--explain", capsys=capsys)
    assert code == 0
    assert "slow-render [body]" not in out
    assert "semantic: off: skipped in a one-shot CLI process" in out


def test_a_memory_without_a_task_word_is_never_added_however_similar(store: Roots) -> None:
    """A secondary signal never selects a memory with no anchor overlap (SPEC 6.1). The
    role-scoped memory enters the BM25 pool through the active role alone, and its vector is
    as close to the task as the one that is added."""
    from engram.search.semantic import load as load_table

    enable(store, roles=["frontend"])
    embedder = load_table(store.vectors_file)
    task = embedder.text_vector(TASK)
    assert task is not None
    from engram.search.roots_index import MemoryIndex

    index = MemoryIndex(store)
    mems = {m.id: m for m in index.memories()}
    index.close()
    for mid in ("fast-render-role", "render-latency"):
        v = embedder.memory_vector(mems[mid])
        assert v is not None and float(task @ v) >= 0.6
    keys, _ = routed(store, session=ReadSession(store, long_lived=True))
    assert "fast-render-role" not in keys and "render-latency" not in keys
    assert "office-fridge" not in keys
    assert "slow-render" in keys


def _vec_rows(roots: Roots) -> tuple[int, int]:
    db = sqlite3.connect(roots.workspace.cache_dir / "index.sqlite")
    try:
        mem = db.execute("SELECT count(*) FROM mem").fetchone()[0]
        vec = db.execute("SELECT count(*) FROM vec WHERE length(v) > 0").fetchone()[0]
    finally:
        db.close()
    return int(mem), int(vec)


def test_vectors_are_stored_in_the_index_and_filled_for_rows_indexed_while_off(store: Roots
                                                                               ) -> None:
    routed(store)
    assert _vec_rows(store) == (5, 0)  # off: nothing computed, numpy never needed
    enable(store)
    routed(store)
    assert _vec_rows(store) == (5, 5)
    enable(store, on=False)
    put(store.workspace.path, "print-queue", "knowledge", "- The print queue page.",
        title="Print queue page")
    routed(store)
    assert _vec_rows(store) == (6, 5)  # indexed while off: no vector yet
    enable(store)
    keys, _ = routed(store)
    assert _vec_rows(store) == (6, 6)
    assert "print-queue" not in keys  # shares `page`, but is about documents, not speed


def test_a_rebuilt_table_replaces_every_stored_vector(store: Roots) -> None:
    enable(store)
    routed(store)
    db = sqlite3.connect(store.workspace.cache_dir / "index.sqlite")
    before = dict(db.execute("SELECT rowid, v FROM vec"))
    ident = db.execute("SELECT value FROM meta WHERE key = 'vectors'").fetchone()
    # The speed words now mean food: the memory about them is no longer close to the task.
    food = {w: (0.0, 0.0, 0.0, 1.0) if w in {"slow", "latency", "render", "fast"} else v
            for w, v in WORDS.items()}
    write_table(store.vectors_file, list(food), 4, matrix(food))
    keys, _ = routed(store)
    after = dict(db.execute("SELECT rowid, v FROM vec"))
    assert db.execute("SELECT value FROM meta WHERE key = 'vectors'").fetchone() != ident
    db.close()
    assert before.keys() == after.keys()
    assert sum(before[k] != after[k] for k in before) == 3  # the three about render speed
    assert keys == ["checkout-page-speed"]


@pytest.mark.parametrize(("damage", "code"), [
    (lambda p: p.unlink(), "semantic.table_missing"),
    (lambda p: p.write_bytes(b"NOTVECS\0" + p.read_bytes()[8:]), "semantic.table"),
    (lambda p: p.write_bytes(p.read_bytes()[:-3]), "semantic.table"),
    (lambda p: p.write_bytes(b""), "semantic.table"),
])
def test_a_missing_or_corrupt_table_routes_lexically_and_doctor_names_the_fix(
        store: Roots, damage: object, code: str, capsys: pytest.CaptureFixture[str]) -> None:
    enable(store)
    damage(store.vectors_file)  # type: ignore[operator]
    keys, text = routed(store)
    assert keys == ["checkout-page-speed"]
    assert "semantic: off:" in text and "build-vectors.py" in text
    _, report = run_json("doctor", capsys=capsys)
    found = [f for f in report["data"]["findings"] if f["code"] == code]
    assert found and found[0]["level"] == "warn"
    assert "scripts/build-vectors.py" in found[0]["remediation"]


def test_missing_numpy_routes_lexically_and_doctor_says_how_to_install(
        store: Roots, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    enable(store)
    monkeypatch.setitem(sys.modules, "numpy", None)  # `import numpy` raises ImportError
    import engram.search

    monkeypatch.delitem(sys.modules, "engram.search.semantic", raising=False)
    monkeypatch.delattr(engram.search, "semantic", raising=False)
    keys, text = routed(store)
    assert keys == ["checkout-page-speed"]
    assert "numpy is not installed" in text and "engram-protocol[semantic]" in text
    _, report = run_json("doctor", capsys=capsys)
    codes = {f["code"]: f for f in report["data"]["findings"]}
    assert codes["semantic.no_numpy"]["level"] == "warn"


def test_doctor_is_quiet_when_off_and_ok_when_on(store: Roots,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    _, report = run_json("doctor", capsys=capsys)
    assert not [f for f in report["data"]["findings"] if f["code"].startswith("semantic.")]
    enable(store)
    _, report = run_json("doctor", capsys=capsys)
    assert [f["level"] for f in report["data"]["findings"] if f["code"] == "semantic.ok"] == ["ok"]


def test_config_set_validates_the_switch(project: Path, capsys: pytest.CaptureFixture[str]
                                         ) -> None:
    (project / ".agents" / ".engram").mkdir(parents=True)
    assert run_cli("init", capsys=capsys)[0] == 0
    assert run_cli("config", "set", "semantic.enabled", "true", capsys=capsys)[0] == 0
    assert resolve().settings().get("semantic.enabled") is True
    code, _, err = run_cli("config", "set", "semantic.enabled", "maybe", capsys=capsys)
    assert code == 2 and "true or false" in err


def test_the_default_path_never_imports_numpy(store: Roots) -> None:
    """A default `engram load` (the channel off, a table present) and the search modules do
    not import numpy: it is the extra's alone."""
    probe = ("import sys; sys.argv = ['engram', 'load', " + repr(TASK) + "]\n"
             "import engram.search.api, engram.search.route, engram.search.session\n"
             "from engram.cli.main import main\n"
             "code = main(sys.argv[1:])\n"
             "print('NUMPY' if 'numpy' in sys.modules else 'CLEAN', code)")
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                         env=subprocess_env(), cwd=store.project, check=False)
    assert out.stdout.strip().splitlines()[-1] == "CLEAN 0", out.stderr


def test_the_table_format_refuses_foreign_and_truncated_bytes() -> None:
    from engram.errors import VectorTableError

    data = table_bytes()
    table = decode(data)
    assert table.words == list(WORDS) and table.dims == 4
    for bad in (b"", data[:10], b"X" + data[1:], data[:-1], data + b"\0"):
        with pytest.raises(VectorTableError):
            decode(bad)
    with pytest.raises(ValueError, match="newline"):
        encode(["a\nb"], 1, b"\0")


def test_bench_semantic_without_a_table_says_how_to_build_it(
        project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run_cli("bench", "--only", "retrieval", "--semantic", "--vectors",
                           str(project / "none.bin"), capsys=capsys)
    assert code != 0
    assert "semantic.table_missing" in err or "no vector table" in err
    assert "scripts/build-vectors.py" in err


def test_build_script_writes_a_table_engram_reads(project: Path) -> None:
    """scripts/build-vectors.py on a tiny file in the npm package's shape (`--from`)."""
    words = ["the", ",", "speed", "Checkout", "page", "x-ray", "fast"]
    vectors = {w: [float(i + 1), 0.5, -1.0, 2.0, 0.0, i * 1.0] for i, w in enumerate(words)}
    source = project / "pkg.json"
    source.write_text(json.dumps({"precision": 8, "words": words, "vectors": vectors}),
                      encoding="utf-8")
    out = project / "t.bin"
    res = subprocess.run([sys.executable, str(REPO / "scripts" / "build-vectors.py"),
                          "--from", str(source), "--out", str(out), "--dims", "4"],
                         capture_output=True, text=True, env=subprocess_env(), check=False)
    assert res.returncode == 0, res.stderr
    assert "PDDL" in res.stdout and "MIT" in res.stdout
    table = decode(out.read_bytes())
    assert table.words == ["the", "speed", "page", "fast"]
    assert len(table.matrix) == 4 * 4


def test_the_warm_mcp_server_loads_the_table_once_and_uses_it(
        store: Roots, monkeypatch: pytest.MonkeyPatch) -> None:
    from engram.search import semantic_load
    from tests.mcp_server.mcp_harness import InProcessServer
    from tests.mcp_server.test_mcp_raw_lines import initialize

    enable(store)
    loads: list[Path] = []
    real = semantic_load.load

    def counting(path: Path) -> semantic_load.Semantic:
        loads.append(path)
        return real(path)

    monkeypatch.setattr(semantic_load, "load", counting)
    server = InProcessServer(["--real-core", "--workspace", str(store.project)], None)
    try:
        initialize(server)
        for _ in range(3):
            reply = server.call("tools/call", {"name": "engram_load", "arguments": {
                "query": TASK, "explain": True}})
            text = "".join(c.get("text", "") for c in reply["result"]["content"])
            assert "slow-render [body] similar to the task (cosine" in text
    finally:
        server.close()
    assert loads == [store.vectors_file]
