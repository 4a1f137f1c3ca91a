"""Routing quality on fixture sets (BENCHMARKS.md), side by side with a grep baseline.

A fixture directory holds `workspace/` (an Engram root), optionally `global/`, and
`queries.json`. It is copied to a scratch project (so the derived index never lands in the
fixture), then every query runs through the real `engram.search.api.load` with the query's roles
in the workspace config, and each pack is scored: recall@8 (share of expected ids in the pack),
shown recall (share in the pack or its map, docs/reading.md "The map"), MRR (1 / position of
the first expected id in pack order), forbidden hits, dependency-order failures (a dependant
whose prerequisite is missing or after it), zero-result correctness (queries that must route
nothing, and list no map), mean and p95 tokens of a load (pack and map) and loads over the
configured budget. Queries carrying a `split` (`dev`,
`check`) are scored per split, and every split per `kind`. The grep baseline ranks memory files
by how often they contain the query's words (stop words dropped, no stemming, no visibility
rules) and keeps the same number of memories. Measures only: nothing here asserts a target.

By default the suite scores the repository's own fixture and, when a `shared/retrieval-2/`
directory sits beside the checkout (or beside one of its parents), that held-out set too; it is
read in place, never copied into the repository.
"""

from __future__ import annotations

import json
import math
import os
import re
import shutil
import tempfile
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from engram.config import read_env
from engram.errors import UsageError
from engram.search.terms import STOP_WORDS
from engram.workspace import Roots, resolve

LIMIT = 8
_WORD = re.compile(r"[a-z0-9]+")
REPO = Path(__file__).resolve().parents[3]
HELD_OUT = Path("shared") / "retrieval-2"


def fixtures_dir() -> Path:
    """The own fixture set in a source checkout (benchmarks/ is not part of the wheel)."""
    return REPO / "benchmarks" / "fixtures" / "retrieval"


def held_out_dir(repo: Path = REPO) -> Path | None:
    """`shared/retrieval-2/` beside the checkout or beside one of its two parents, if any."""
    for parent in (repo.parent, *list(repo.parent.parents)[:2]):
        cand = parent / HELD_OUT
        if (cand / "queries.json").is_file():
            return cand
    return None


@dataclass
class Score:
    """Totals of one router over the query set."""

    name: str
    recall: list[float] = field(default_factory=list)
    shown: list[float] = field(default_factory=list)  # recall of pack + map
    rr: list[float] = field(default_factory=list)
    forbidden_hits: int = 0
    order_failures: int = 0
    zero_ok: int = 0
    zero_total: int = 0
    tokens: list[int] = field(default_factory=list)
    over_budget: int | None = None  # loads whose tokens exceed their budget (None: no budget)
    by_kind: dict[str, list[float]] = field(default_factory=dict)

    def summary(self) -> dict[str, Any]:
        return {
            "recall_at_8": round(_mean(self.recall), 3),
            "shown_recall": round(_mean(self.shown), 3), "mrr": round(_mean(self.rr), 3),
            "forbidden_hits": self.forbidden_hits, "order_failures": self.order_failures,
            "zero_result_correct": f"{self.zero_ok}/{self.zero_total}",
            "mean_pack_tokens": round(_mean([float(t) for t in self.tokens])),
            "p95_pack_tokens": _p95(self.tokens),
            "loads_over_budget": "-" if self.over_budget is None else self.over_budget,
            "recall_by_kind": {k: round(_mean(v), 3) for k, v in sorted(self.by_kind.items())},
        }


def _mean(values: list[float]) -> float:
    return sum(values) / len(values) if values else 0.0


def _p95(values: list[int]) -> int:
    """The nearest-rank 95th percentile (0 for no values)."""
    if not values:
        return 0
    ordered = sorted(values)
    return ordered[max(0, math.ceil(0.95 * len(ordered)) - 1)]


def score_pack(s: Score, q: dict[str, Any], pack: list[str], tokens: int,
               misses: list[str], listed: Sequence[str] = (), budget: int | None = None) -> None:
    """Score one load: `pack` is what it holds (ids, pack order), `listed` the ids its map
    names (docs/reading.md "The map"), `budget` the token budget it was given, if any."""
    expected, forbidden = q.get("expected", []), set(q.get("forbidden", []))
    s.tokens.append(tokens)
    if budget is not None:
        s.over_budget = (s.over_budget or 0) + (tokens > budget)
    bad = [i for i in pack if i in forbidden]
    s.forbidden_hits += len(bad)
    if not expected:
        s.zero_total += 1
        s.zero_ok += not pack and not listed
        if pack or listed:
            misses.append(f"[{s.name}] {q['query']!r}: routed {pack[:3]} map {listed[:3]} "
                          "(expected nothing)")
        return
    found = [e for e in expected if e in pack]
    s.recall.append(len(found) / len(expected))
    s.shown.append(len([e for e in expected if e in pack or e in listed]) / len(expected))
    s.by_kind.setdefault(q.get("kind", "other"), []).append(len(found) / len(expected))
    first = next((i for i, pid in enumerate(pack) if pid in expected), None)
    s.rr.append(0.0 if first is None else 1.0 / (first + 1))
    pos = {pid: i for i, pid in enumerate(pack)}
    for pre, dep in q.get("order", []):
        if dep in pos and (pre not in pos or pos[pre] > pos[dep]):
            s.order_failures += 1
            misses.append(f"[{s.name}] {q['query']!r}: {pre} must precede {dep}")
    if len(found) < len(expected) or bad:
        misses.append(f"[{s.name}] {q['query']!r}: missing {sorted(set(expected) - set(found))}"
                      f" forbidden {bad}")


def grep_pack(roots: Roots, query: str, n: int = LIMIT) -> tuple[list[str], int]:
    """The baseline: files holding any query word, most occurrences first."""
    words = [w for w in _WORD.findall(query.lower()) if w not in STOP_WORDS]
    scored: list[tuple[int, str, int]] = []
    seen: set[str] = set()
    for root in roots.existing():
        for d in ("rules", "skills", "knowledge"):
            for path in sorted((root.path / d).glob("*.md")):
                if path.stem in seen:
                    continue
                seen.add(path.stem)
                text = path.read_text(encoding="utf-8").lower()
                count = sum(text.count(w) for w in words)
                if count:
                    scored.append((count, path.stem, len(text)))
    scored.sort(key=lambda t: (-t[0], t[1]))
    top = scored[:n]
    return [pid for _, pid, _ in top], sum(math.ceil(size / 4) for _, _, size in top)


def _setup(base: Path, src: Path) -> Roots:
    project = base / "project"
    root = project / ".agents" / ".engram"
    shutil.copytree(src / "workspace", root, ignore=shutil.ignore_patterns(".cache"))
    if (src / "global").is_dir():
        shutil.copytree(src / "global", base / "global", ignore=shutil.ignore_patterns(".cache"))
    else:  # a fixture without a global root gets an empty one
        (base / "global").mkdir()
    (project / ".git").mkdir()
    env = read_env({"HOME": str(base), "ENGRAM_CONFIG_DIR": str(base / "config"),
                    "ENGRAM_GLOBAL_DIR": str(base / "global")}, cwd=project)
    return resolve(env)


def _set_roles(roots: Roots, roles: list[str]) -> None:
    path = roots.workspace.config_file
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        data = {}
    data["roles"] = roles
    path.write_text(json.dumps(data), encoding="utf-8")


def read_queries(src: Path) -> list[dict[str, Any]]:
    """A fixture's queries, or a coded error saying what the directory lacks."""
    if not (src / "workspace").is_dir() or not (src / "queries.json").is_file():
        raise UsageError(f"{src} is not a retrieval fixture",
                         hint="a fixture directory holds workspace/ and queries.json "
                              "(global/ is optional)")
    try:
        queries = json.loads((src / "queries.json").read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise UsageError(f"{src / 'queries.json'} is not readable JSON: {exc}",
                         hint="fix the file; it holds a list of query objects") from exc
    if not isinstance(queries, list) or not all(
            isinstance(q, dict) and isinstance(q.get("query"), str) for q in queries):
        raise UsageError(f"{src / 'queries.json'} must be a list of objects with a `query`",
                         hint="see benchmarks/fixtures/retrieval/queries.json for the schema")
    return queries


def run(src: Path | None = None, vectors: Path | None = None) -> dict[str, Any]:
    """Score Engram's router and the grep baseline on every query of one fixture directory.

    Returns `{name, path, queries, splits: {split: {queries, kinds, engram, grep, misses}}}`;
    a fixture without `split` fields has the one split `all`. With `vectors` (a table) the
    semantic extra is on and every query is one request of a long-lived read session, as in
    the MCP server."""
    from engram.search.api import load
    from engram.search.session import ReadSession

    src = src or fixtures_dir()
    queries = read_queries(src)
    scores: dict[str, tuple[Score, Score, list[str], Counter[str]]] = {}
    with tempfile.TemporaryDirectory(prefix="engram-bench-") as tmp:
        roots = _setup(Path(tmp), src)
        session = None
        if vectors is not None:
            from engram.bench.harness import enable_semantic

            enable_semantic(roots, vectors)
            session = ReadSession(roots, long_lived=True)
        for q in queries:
            split = str(q.get("split", "all"))
            engram, grep, misses, kinds = scores.setdefault(
                split, (Score("engram"), Score("grep"), [], Counter()))
            kinds[str(q.get("kind", "other"))] += 1
            _set_roles(roots, list(q.get("roles", [])))
            out = load(roots, query=q["query"], session=session)
            pack = [k.split(":", 1)[1] for k in out.data["selected_keys"]]
            listed = [k.split(":", 1)[1] for k in out.data["map_ids"]]
            score_pack(engram, q, pack, int(out.data["tokens"]), misses, listed,
                       roots.settings().int("load.max_tokens"))
            gpack, gtokens = grep_pack(roots, q["query"])
            score_pack(grep, q, gpack, gtokens, [])
        if session is not None:
            session.close()
    splits = {name: {"queries": sum(kinds.values()), "kinds": dict(sorted(kinds.items())),
                     "engram": e.summary(), "grep": g.summary(), "misses": misses}
              for name, (e, g, misses, kinds) in sorted(scores.items(), key=_split_order)}
    return {"name": src.name, "path": str(src), "queries": len(queries), "splits": splits}


def _split_order(item: tuple[str, Any]) -> tuple[int, str]:
    return ({"dev": 0, "check": 1}.get(item[0], 2), item[0])


def render_split(name: str, split: dict[str, Any]) -> list[str]:
    rows = [("recall@8 (pack)", "recall_at_8"), ("shown recall (pack + map)", "shown_recall"),
            ("MRR", "mrr"), ("forbidden hits", "forbidden_hits"),
            ("dependency-order failures", "order_failures"),
            ("zero-result correctness", "zero_result_correct"),
            ("mean load tokens (pack + map)", "mean_pack_tokens"),
            ("p95 load tokens", "p95_pack_tokens"), ("loads over budget", "loads_over_budget")]
    e, g = split["engram"], split["grep"]
    head = f"`{name}`: " if name != "all" else ""
    lines = [f"{head}{split['queries']} queries "
             f"({', '.join(f'{k} {v}' for k, v in split['kinds'].items())}), pack of {LIMIT}:",
             "", "| metric | engram | grep baseline |", "|---|---|---|"]
    lines += [f"| {label} | {e[key]} | {g[key]} |" for label, key in rows]
    lines += ["", "| recall@8 by kind | engram | grep baseline |", "|---|---|---|"]
    lines += [f"| {k} | {v} | {g['recall_by_kind'].get(k, '-')} |"
              for k, v in e["recall_by_kind"].items()]
    return lines


def _shown(path: Path) -> str:
    """A fixture's path relative to the checkout (`benchmarks/…`, `../shared/…`)."""
    return f"`{os.path.relpath(path.resolve(), REPO)}/`"


def render_markdown(report: dict[str, Any]) -> str:
    lines = [f"### Fixture `{report['name']}` ({_shown(Path(report['path']))})", ""]
    for name, split in report["splits"].items():
        lines += [*render_split(name, split), ""]
    return "\n".join(lines)


def run_many(fixtures: list[Path] | None = None,
             vectors: Path | None = None) -> tuple[dict[str, Any], list[str]]:
    """The given fixtures, or the own fixture plus the held-out set when it is present."""
    notes: list[str] = []
    if fixtures is None:
        fixtures = [fixtures_dir()]
        held = held_out_dir()
        if held is None:
            notes.append(f"Held-out set `{HELD_OUT}/` not found beside the checkout: skipped.")
        else:
            fixtures.append(held)
    reports = [run(f, vectors) for f in fixtures]
    if vectors is not None:
        notes.append(f"Semantic extra on (table `{vectors.name}`).")
    lines = [*notes, *([""] if notes else [])]
    for r in reports:
        lines += [*render_markdown(r).splitlines(), ""]
    return {"fixtures": reports, "notes": notes}, lines


def suite(base: Path, sizes: list[int], runs: int, fixtures: list[Path] | None = None,
          vectors: Path | None = None) -> tuple[dict[str, Any], list[str]]:
    """The `engram bench` runner interface (engram.bench.report.RUNNERS); sizes are unused."""
    return run_many(fixtures, vectors)


def main() -> None:
    import sys

    fixtures = [Path(a) for a in sys.argv[1:]] or None
    report, lines = run_many(fixtures)
    print("\n".join(lines))
    for r in report["fixtures"]:
        for name, split in r["splits"].items():
            for line in split["misses"]:
                print(f"{r['name']}/{name} {line}")


if __name__ == "__main__":
    main()
