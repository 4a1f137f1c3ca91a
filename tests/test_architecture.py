"""Import direction (STYLE.md): adapters call the core; the core never imports the adapters."""

from __future__ import annotations

import ast
from pathlib import Path

SRC = Path(__file__).resolve().parent.parent / "src" / "engram"
CORE = ("store", "search", "proposals", "hosts", "safety", "bench", "anchors")
FORBIDDEN = {
    "store": {"cli", "mcp", "search", "proposals", "hosts"},
    "search": {"cli", "mcp", "proposals", "hosts"},
    "proposals": {"cli", "mcp", "hosts"},
    "hosts": {"cli", "mcp"},
    "anchors": {"cli", "mcp", "proposals", "hosts"},
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
# suites). mcp/core.py is the one exception left; the one-entry-per-tool table replaces it with
# ordinary function-level imports that mypy checks.
IMPORTLIB_ALLOWED = {"cli/main.py", "hosts/targets/__init__.py", "bench/report.py", "mcp/core.py"}


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
