"""Which strings of a memory are path candidates (pure)."""

from __future__ import annotations

from engram.anchors.extract import Anchor, candidates, decode, encode, parse
from engram.anchors.facts import glob_regex
from engram.anchors.rewrite import rewrite_paths


def test_backticks_links_and_frontmatter_become_candidates() -> None:
    body = ("- Alerts live in `infra/x.yaml` and [the runbook](docs/runbook.md#top).\n"
            "- Run `make` with `--fast` on `1.2.3`; see https://example.com/a/b.\n"
            "- `src/app.py::handle` handles it.")
    meta = {"anchors": ["deploy/*.tf", "src/", "lib/util.py::Helper"]}
    got = candidates(body, meta)
    assert [(a.path, a.kind, a.symbol, a.explicit) for a in got] == [
        ("deploy/*.tf", "glob", "", True), ("src", "dir", "", True),
        ("lib/util.py", "file", "Helper", True), ("infra/x.yaml", "file", "", False),
        ("src/app.py", "file", "handle", False), ("docs/runbook.md", "file", "", False)]


def test_unsafe_or_non_path_strings_are_refused() -> None:
    for raw in ("../etc/passwd", "/etc/passwd", "~/x", "a b.txt", "http://x/y", "$HOME/x",
                "-rf", "C:\\x"):
        assert parse(raw, explicit=False) is None, raw
    assert parse("a/*.py", explicit=False) is None  # globs only when declared


def test_cache_form_round_trips() -> None:
    items = [Anchor("a/b.py", "file", "f", True), Anchor("c", "dir")]
    assert decode(encode(items)) == items


def test_glob_regex_keeps_star_in_one_folder() -> None:
    import re

    rx = re.compile(glob_regex("deploy/*.tf"))
    assert rx.fullmatch("deploy/a.tf") and not rx.fullmatch("deploy/x/a.tf")
    deep = re.compile(glob_regex("deploy/**/*.tf"))
    assert deep.fullmatch("deploy/a.tf") and deep.fullmatch("deploy/x/y/a.tf")


def test_rewrite_touches_whole_paths_only() -> None:
    text = "`a/x.py`, b/a/x.py, a/x.pyc, [l](a/x.py) and `a/x.py::main`."
    assert rewrite_paths(text, [("a/x.py", "c/y.py")]) == (
        "`c/y.py`, b/a/x.py, a/x.pyc, [l](c/y.py) and `c/y.py::main`.")
