"""Routing quality on the shipped fixture set (BENCHMARKS.md), side by side with a grep baseline.

Copies `benchmarks/fixtures/retrieval/{workspace,global}` to a scratch project (so the derived
index never lands in the repository), then runs every query of `queries.json` through the real
`engram.search.api.load` with the query's roles in the workspace config, and scores the pack:
recall@8 (share of expected ids in the pack), MRR (1 / position of the first expected id in
pack order), forbidden hits, dependency-order failures (a dependant whose prerequisite is
missing or after it), zero-result correctness (queries that must route nothing) and mean pack
tokens. The grep baseline ranks memory files by how often they contain the query's words (stop
words dropped, no stemming, no visibility rules) and keeps the same number of memories.
Measures only: nothing here asserts a target.
"""

from __future__ import annotations

import json
import math
import re
import shutil
import tempfile
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from engram.config import read_env
from engram.search.terms import STOP_WORDS
from engram.workspace import Roots, resolve

LIMIT = 8
_WORD = re.compile(r"[a-z0-9]+")


def fixtures_dir() -> Path:
    """The fixture set in a source checkout (benchmarks/ is not part of the wheel)."""
    return Path(__file__).resolve().parents[3] / "benchmarks" / "fixtures" / "retrieval"


@dataclass
class Score:
    """Totals of one router over the query set."""

    name: str
    recall: list[float] = field(default_factory=list)
    rr: list[float] = field(default_factory=list)
    forbidden_hits: int = 0
    order_failures: int = 0
    zero_ok: int = 0
    zero_total: int = 0
    tokens: list[int] = field(default_factory=list)
    by_kind: dict[str, list[float]] = field(default_factory=dict)

    def summary(self) -> dict[str, Any]:
        return {
            "recall_at_8": round(_mean(self.recall), 3), "mrr": round(_mean(self.rr), 3),
            "forbidden_hits": self.forbidden_hits, "order_failures": self.order_failures,
            "zero_result_correct": f"{self.zero_ok}/{self.zero_total}",
            "mean_pack_tokens": round(_mean([float(t) for t in self.tokens])),
            "recall_by_kind": {k: round(_mean(v), 3) for k, v in sorted(self.by_kind.items())},
        }


def _mean(values: list[float]) -> float:
    return sum(values) / len(values) if values else 0.0


def score_pack(s: Score, q: dict[str, Any], pack: list[str], tokens: int,
               misses: list[str]) -> None:
    expected, forbidden = q.get("expected", []), set(q.get("forbidden", []))
    s.tokens.append(tokens)
    bad = [i for i in pack if i in forbidden]
    s.forbidden_hits += len(bad)
    if not expected:
        s.zero_total += 1
        s.zero_ok += not pack
        if pack:
            misses.append(f"[{s.name}] {q['query']!r}: routed {pack[:3]} (expected nothing)")
        return
    found = [e for e in expected if e in pack]
    s.recall.append(len(found) / len(expected))
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
    shutil.copytree(src / "workspace", root)
    shutil.copytree(src / "global", base / "global")
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


def run(src: Path | None = None) -> dict[str, Any]:
    """Score Engram's router and the grep baseline on every query; returns a report dict."""
    from engram.search.api import load

    src = src or fixtures_dir()
    queries = json.loads((src / "queries.json").read_text(encoding="utf-8"))
    engram, grep = Score("engram"), Score("grep")
    misses: list[str] = []
    with tempfile.TemporaryDirectory(prefix="engram-bench-") as tmp:
        roots = _setup(Path(tmp), src)
        for q in queries:
            _set_roles(roots, list(q.get("roles", [])))
            out = load(roots, query=q["query"])
            pack = [k.split(":", 1)[1] for k in out.data["selected_keys"]]
            score_pack(engram, q, pack, int(out.data["tokens"]), misses)
            gpack, gtokens = grep_pack(roots, q["query"])
            score_pack(grep, q, gpack, gtokens, [])
    kinds = Counter(q.get("kind", "other") for q in queries)
    return {"queries": len(queries), "kinds": dict(sorted(kinds.items())),
            "engram": engram.summary(), "grep": grep.summary(), "misses": misses}


def render_markdown(report: dict[str, Any]) -> str:
    rows = [("recall@8", "recall_at_8"), ("MRR", "mrr"), ("forbidden hits", "forbidden_hits"),
            ("dependency-order failures", "order_failures"),
            ("zero-result correctness", "zero_result_correct"),
            ("mean pack tokens", "mean_pack_tokens")]
    e, g = report["engram"], report["grep"]
    lines = [f"Routing quality on {report['queries']} queries "
             f"({', '.join(f'{k} {v}' for k, v in report['kinds'].items())}), pack of {LIMIT}:",
             "", "| metric | engram | grep baseline |", "|---|---|---|"]
    lines += [f"| {label} | {e[key]} | {g[key]} |" for label, key in rows]
    lines += ["", "| recall@8 by kind | engram | grep baseline |", "|---|---|---|"]
    lines += [f"| {k} | {v} | {g['recall_by_kind'].get(k, '-')} |"
              for k, v in e["recall_by_kind"].items()]
    return "\n".join(lines) + "\n"


def suite(base: Path, sizes: list[int], runs: int) -> tuple[dict[str, Any], list[str]]:
    """The `engram bench` runner interface (engram.bench.report.RUNNERS); sizes are unused."""
    report = run()
    return report, render_markdown(report).splitlines()


def main() -> None:
    report = run()
    print(render_markdown(report))
    for line in report["misses"]:
        print(line)


if __name__ == "__main__":
    main()
