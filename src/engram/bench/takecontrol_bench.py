"""take-control benchmark (issue 29): candidate quality on the six-style fixture, and speed
on a generated repository.

Quality: tests/fixtures/takecontrol/repo (long sectioned CLAUDE.md, terse AGENTS.md, Cursor
`.mdc` rules with globs, memory-bank/, Copilot instructions) plus a Claude Code auto-memory
folder placed under a temporary HOME, run through the real CLI (`engram take-control --plan
--from-hosts --json`). Per style: coverage (expected items proposed), precision (proposed
candidates that match an expected item), type accuracy (matched candidates of the expected
type), duplicates folded, and secrets / injections / managed-block / personal lines proposed
(target 0); then a full run (`--answer A`) and a second run, which must propose nothing.
Speed: `--plan` and a full run's proposal (the preview, no answer) on 200 guidance files among
5,000 other files, cold processes, median of the runs.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import statistics
import subprocess
import time
from pathlib import Path
from typing import Any

from engram.adopt.hosts import claude_memory_dir
from engram.bench.harness import engram_argv
from engram.gitrun import git_argv

REPO = Path(__file__).resolve().parents[3]
FIXTURE = REPO / "tests" / "fixtures" / "takecontrol"
HOST_PREFIX = "~claude/"


def fixture_dir() -> Path:
    return FIXTURE


def _words(text: str) -> str:
    return " " + " ".join(re.findall(r"[a-z0-9]+", text.lower())) + " "


def _run(argv: list[str], cwd: Path, home: Path) -> tuple[subprocess.CompletedProcess[str],
                                                          float]:
    env = {**os.environ, "HOME": str(home), "ENGRAM_NO_AUTO_UPGRADE": "1",
           "GIT_CONFIG_GLOBAL": os.devnull, "GIT_AUTHOR_NAME": "Bench",
           "GIT_AUTHOR_EMAIL": "bench@example.com"}
    env.pop("CLAUDE_CONFIG_DIR", None)
    env.pop("ENGRAM_GLOBAL_DIR", None)
    env.pop("ENGRAM_WORKSPACE", None)
    t0 = time.perf_counter()
    proc = subprocess.run(engram_argv(*argv), cwd=cwd, env=env, capture_output=True, text=True,
                          check=False, stdin=subprocess.DEVNULL)
    return proc, time.perf_counter() - t0


def _project(base: Path, source: Path, name: str) -> tuple[Path, Path]:
    project = base / name / "project"
    home = base / name / "home"
    shutil.rmtree(base / name, ignore_errors=True)
    shutil.copytree(source, project)
    home.mkdir(parents=True)
    for args in (("init", "-q"), ("config", "user.email", "bench@example.com"),
                 ("config", "user.name", "Bench")):
        subprocess.run(git_argv(project, *args), check=True, capture_output=True)
    _run(["init"], project, home)
    return project, home


def score(expected: dict[str, Any], data: dict[str, Any], host_dir: str) -> dict[str, Any]:
    """Per style and overall: coverage, precision, type accuracy; and what must never show."""
    cands = data["candidates"]

    def real(name: str) -> str:
        return host_dir + name[len(HOST_PREFIX):] if name.startswith(HOST_PREFIX) else name

    all_items = [(style, item) for style, spec in expected["styles"].items()
                 for item in spec["items"]]
    styles: dict[str, Any] = {}
    for style, spec in expected["styles"].items():
        files = {real(f) for f in spec["files"]}
        mine = [c for c in cands if set(c["source_files"]) & files]
        found = typed = 0
        for item in spec["items"]:
            hit = next((c for c in mine if _words(item["match"]) in _words(c["text"])), None)
            if hit is not None:
                found += 1
                typed += hit["type"] == item["type"]
        own = [c for c in cands if c["source_files"][0] in files]
        precise = sum(any(_words(i["match"]) in _words(c["text"]) for _, i in all_items)
                      for c in own)
        styles[style] = {"expected": len(spec["items"]), "found": found,
                         "coverage": found / len(spec["items"]),
                         "proposed": len(own), "precision": precise / len(own) if own else 1.0,
                         "type_accuracy": typed / found if found else 0.0}
    text = "\n".join(f"{c['text']}\n{c.get('context', '')}" for c in cands).lower()
    never = {kind: sum(s.lower() in text for s in strings)
             for kind, strings in expected["never"].items()}
    total_expected = sum(s["expected"] for s in styles.values())
    total_found = sum(s["found"] for s in styles.values())
    total_own = sum(s["proposed"] for s in styles.values())
    return {"styles": styles, "never": never, "folded": len(data["folded"]),
            "expected_folded": expected["duplicates"],
            "coverage": total_found / total_expected,
            "precision": sum(s["precision"] * s["proposed"] for s in styles.values())
            / max(total_own, 1),
            "type_accuracy": sum(s["type_accuracy"] * s["found"] for s in styles.values())
            / max(total_found, 1)}


def run_quality(base: Path) -> dict[str, Any]:
    expected = json.loads((FIXTURE / "expected.json").read_text(encoding="utf-8"))
    project, home = _project(base, FIXTURE / "repo", "tc-quality")
    memory = claude_memory_dir(home / ".claude", project.resolve())
    shutil.copytree(FIXTURE / "claude-auto-memory", memory)
    host_dir = "~/" + memory.relative_to(home).as_posix() + "/"
    proc, plan_s = _run(["take-control", "--plan", "--from-hosts", "--json"], project, home)
    data = json.loads(proc.stdout)["data"]
    result = score(expected, data, host_dir)
    result["plan_s"] = plan_s
    pack, _ = _run(["take-control", "--agent", "--from-hosts", "--json"], project, home)
    pack_text = json.loads(pack.stdout)["data"]["pack"].lower()
    result["pack_leaks"] = sum(s.lower() in pack_text for kind in ("secrets", "injections")
                               for s in expected["never"][kind])
    full, full_s = _run(["take-control", "--from-hosts", "--answer", "A", "--json"], project,
                        home)
    first = json.loads(full.stdout)["data"]
    result["written"] = len(first.get("written") or [])
    result["full_s"] = full_s
    again, _ = _run(["take-control", "--plan", "--from-hosts", "--json"], project, home)
    second = json.loads(again.stdout)["data"]["candidates"]
    # A candidate the first run deferred (a possible duplicate the human must answer) is
    # proposed again, by design; anything else proposed again is a failure.
    deferred = _deferred_texts(full.stdout)
    result["second_run"] = len(second)
    result["second_run_new"] = sum(c["text"] not in deferred for c in second)
    return result


def _deferred_texts(stdout: str) -> set[str]:
    """Texts of the candidates a `take-control --json` run deferred."""
    return {str(d.get("text")) for d in json.loads(stdout)["data"].get("deferred") or []}


def generated_repo(path: Path, guidance: int = 200, others: int = 5000) -> None:
    """`guidance` rule files in the places hosts read, among `others` source files."""
    places = (".cursor/rules/r{i:03d}.mdc", ".claude/rules/r{i:03d}.md",
              "memory-bank/area{g}/note{i:03d}.md", ".github/instructions/i{i:03d}.instructions.md")
    for i in range(guidance):
        rel = places[i % len(places)].format(i=i, g=i % 7)
        f = path / rel
        f.parent.mkdir(parents=True, exist_ok=True)
        head = f"---\nglobs: src/pkg{i % 50:02d}/**/*.py\n---\n\n" if rel.endswith(".mdc") else ""
        f.write_text(f"{head}# Module {i} conventions\n\n"
                     f"- Always validate the input of handler{i} before parsing it.\n"
                     f"- Keep the cache of service{i} below {i + 10} megabytes.\n"
                     f"- The worker{i} queue drains every {i % 9 + 1} minutes.\n"
                     f"- Never log the payload of endpoint{i} at info level.\n",
                     encoding="utf-8")
    for i in range(others):
        f = path / "src" / f"pkg{i % 50:02d}" / f"mod{i:05d}.py"
        f.parent.mkdir(parents=True, exist_ok=True)
        f.write_text(f"def handler_{i}():\n    return {i}\n", encoding="utf-8")


def run_speed(base: Path, runs: int) -> dict[str, Any]:
    gen = base / "tc-speed-src"
    shutil.rmtree(gen, ignore_errors=True)
    generated_repo(gen)
    project, home = _project(base, gen, "tc-speed")
    plans, fulls = [], []
    candidates = 0
    for _ in range(max(runs, 1)):
        proc, s = _run(["take-control", "--plan", "--json"], project, home)
        plans.append(s)
        candidates = len(json.loads(proc.stdout)["data"]["candidates"])
        _, s = _run(["take-control"], project, home)  # the preview; no answer, nothing written
        fulls.append(s)
    return {"guidance": 200, "others": 5000, "candidates": candidates,
            "plan_s": statistics.median(plans), "proposal_s": statistics.median(fulls)}


def suite(base: Path, sizes: list[int], runs: int) -> tuple[dict[str, Any], list[str]]:
    q = run_quality(base)
    speed = run_speed(base, 3 if runs < 10 else 5)
    lines = ["| style | expected | proposed | coverage | precision | type accuracy |",
             "|---|---:|---:|---:|---:|---:|"]
    lines += [f"| {name} | {s['expected']} | {s['proposed']} | {s['coverage']:.2f} | "
              f"{s['precision']:.2f} | {s['type_accuracy']:.2f} |"
              for name, s in q["styles"].items()]
    lines += [f"| **all** | | | {q['coverage']:.2f} | {q['precision']:.2f} | "
              f"{q['type_accuracy']:.2f} |", "",
              f"Duplicates folded: {q['folded']} (expected {q['expected_folded']}). Proposed "
              f"anyway (target 0): secrets {q['never']['secrets']}, injections "
              f"{q['never']['injections']}, managed-block lines {q['never']['managed']}, "
              f"personal lines {q['never']['personal']}; in the agent's source pack: "
              f"{q['pack_leaks']}. Whole repository: `--plan` {q['plan_s']:.2f} s, full run "
              f"({q['written']} written) {q['full_s']:.2f} s; second run proposes "
              f"{q['second_run_new']} new (target 0) and {q['second_run'] - q['second_run_new']} "
              "the first run deferred for review (a possible duplicate a human must answer).",
              "",
              f"Generated repository ({speed['guidance']} guidance files, {speed['others']:,} "
              f"other files, {speed['candidates']} candidates): `take-control --plan` "
              f"{speed['plan_s']:.2f} s (target ≤ 1 s), a full run's proposal "
              f"{speed['proposal_s']:.2f} s (target ≤ 2 s); cold processes, median.",
              "Targets: coverage ≥ 0.95, precision ≥ 0.90, type accuracy ≥ 0.85."]
    return {"quality": q, "speed": speed}, lines
