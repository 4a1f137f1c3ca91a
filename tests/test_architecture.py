"""Import direction (STYLE.md): adapters call the core; the core never imports the adapters."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parent.parent / "src" / "engram"
CORE = ("store", "search", "proposals", "hosts", "safety", "bench", "anchors")
FORBIDDEN = {
    "store": {"cli", "mcp", "search", "proposals", "hosts"},
    "search": {"cli", "mcp", "proposals", "hosts"},
    "proposals": {"cli", "mcp", "hosts"},
    "hosts": {"cli", "mcp"},
    "anchors": {"cli", "mcp", "proposals", "hosts"},
    "export": {"cli", "mcp", "proposals", "hosts"},
    "safety": {"*"},
}


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
    return {n for n in names if n == "engram" or n.startswith("engram.")}


def test_core_packages_never_import_adapters_or_upper_layers() -> None:
    problems = []
    for pkg, banned in FORBIDDEN.items():
        for path in (SRC / pkg).rglob("*.py"):
            for name in _imports(path):
                parts = name.split(".")
                top = parts[1] if len(parts) > 1 else ""
                if ("*" in banned and top != pkg) or top in banned:
                    problems.append(f"{path.relative_to(SRC)} imports {name}")
    assert problems == []


def test_only_config_reads_the_environment() -> None:
    offenders = []
    for path in SRC.rglob("*.py"):
        if path.name == "config.py" or "bench" in path.parts:
            continue
        text = path.read_text(encoding="utf-8")
        if "os.environ" in text or "os.getenv" in text:
            offenders.append(str(path.relative_to(SRC)))
    assert offenders == []


# Where modules are imported by name: each is a table of plugins (commands, host targets, bench
# suites). Everything else imports ordinarily (lazily, inside a function, where start-up time
# matters), so mypy checks each call.
IMPORTLIB_ALLOWED = {"cli/main.py", "hosts/targets/__init__.py", "bench/report.py"}


def test_importlib_only_in_plugin_tables() -> None:
    users = {str(path.relative_to(SRC)) for path in SRC.rglob("*.py")
             if "importlib" in _imports_any(path)}
    assert users <= IMPORTLIB_ALLOWED, sorted(users - IMPORTLIB_ALLOWED)


def _imports_any(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module.split(".")[0])
    return names


def test_storage_faults_are_mapped_in_one_place() -> None:
    """Only engram/storage.py turns errno values into storage codes (the write helper, the CLI
    and the MCP server call it)."""
    offenders = [str(p.relative_to(SRC)) for p in SRC.rglob("*.py")
                 if p.name != "storage.py" and "errno.ENOSPC" in p.read_text(encoding="utf-8")]
    assert offenders == []


# What builds a mutable container: a literal, a comprehension or a call of one of these.
_MUTABLE_CALLS = {"dict", "list", "set", "OrderedDict", "defaultdict", "Counter", "deque",
                  "WeakValueDictionary", "WeakKeyDictionary", "bytearray"}
_MUTABLE_NODES = (ast.Dict, ast.List, ast.Set, ast.DictComp, ast.ListComp, ast.SetComp)


def _builds_mutable(node: ast.expr | None) -> bool:
    if node is None:
        return False
    if isinstance(node, _MUTABLE_NODES):
        return True
    if isinstance(node, ast.Call):
        func = node.func
        name = func.id if isinstance(func, ast.Name) else \
            func.attr if isinstance(func, ast.Attribute) else ""
        return name in _MUTABLE_CALLS
    return False


def _constant(target: ast.expr, value: ast.expr | None) -> bool:
    """An UPPER_CASE name (or `__all__`) bound to a tuple or frozenset (an immutable table)."""
    if not (isinstance(target, ast.Name) and (target.id.isupper() or target.id == "__all__")):
        return False
    if isinstance(value, ast.Tuple):
        return True
    return isinstance(value, ast.Call) and isinstance(value.func, ast.Name) \
        and value.func.id in {"frozenset", "tuple"}


def module_level_mutables(source: str) -> list[str]:
    """Module-level assignments that build a dict, list, set (or a call making one), except
    UPPER_CASE constants that are tuples or frozensets: the read path's state belongs to the read
    session (search/session.py), never to a module."""
    out = []
    for node in ast.parse(source).body:
        targets: list[ast.expr]
        value: ast.expr | None
        if isinstance(node, ast.Assign):
            targets, value = node.targets, node.value
        elif isinstance(node, ast.AnnAssign):
            targets, value = [node.target], node.value
        else:
            continue
        for target in targets:
            if not _constant(target, value) and _builds_mutable(value):
                out.append(f"line {node.lineno}: {ast.unparse(target)}")
    return out


def test_search_keeps_no_module_level_mutable_state() -> None:
    offenders = [f"{path.relative_to(SRC)} {found}" for path in (SRC / "search").rglob("*.py")
                 for found in module_level_mutables(path.read_text(encoding="utf-8"))]
    assert offenders == []


@pytest.mark.parametrize("source", [
    "_OPEN: dict[str, int] = {}",
    "_CACHE = dict()",
    "_SEEN = set()",
    "from collections import OrderedDict\n_LRU = OrderedDict()",
    "import collections\n_LRU = collections.OrderedDict()",
    "_BY = {k: 1 for k in 'ab'}",
    "KEYS = ['a', 'b']",
    "A = B = []",
])
def test_the_mutable_state_check_catches_each_form(source: str) -> None:
    assert module_level_mutables(source) != []


@pytest.mark.parametrize("source", [
    "KEYS = ('a', 'b')",
    "NAMES = frozenset({'a', 'b'})",
    "LIMIT = 4096",
    "def f() -> None:\n    cache = {}\n",
    "class C:\n    def __init__(self) -> None:\n        self.cache = {}\n",
])
def test_the_mutable_state_check_allows_constants_and_local_state(source: str) -> None:
    assert module_level_mutables(source) == []


def test_src_cites_the_repository_docs_never_spec_sections() -> None:
    """SPEC is not in the repository: a comment points at a docs/ section by its heading, and
    every such pointer names a doc file and a heading that exist."""
    docs = SRC.parent.parent / "docs"
    cites_spec, broken = [], []
    for path in sorted(SRC.parent.rglob("*")):
        if not path.is_file() or path.suffix in {".pyc", ".so"}:
            continue
        text = path.read_text(encoding="utf-8", errors="replace")
        rel = path.relative_to(SRC.parent)
        cites_spec += [f"{rel}:{n}" for n, line in enumerate(text.splitlines(), 1) if "§" in line]
        for name, heading in re.findall(r'docs/([\w-]+\.md)[\s#]*"([^"\n]+)"', text):
            doc = docs / name
            titles = ([ln.lstrip("#").strip().replace("`", "") for ln in
                       doc.read_text(encoding="utf-8").splitlines() if ln.startswith("#")]
                      if doc.is_file() else [])
            if not any(t.startswith(heading) for t in titles):
                broken.append(f'{rel}: docs/{name} "{heading}"')
    assert not cites_spec, f"§ (a SPEC section) cited in src/, point at docs/ instead: {cites_spec}"
    assert not broken, f"docs sections cited in src/ that do not exist: {broken}"
