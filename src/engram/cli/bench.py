"""`engram bench`: run the repository's benchmark and optionally write BENCHMARKS.md.

The suites are measurements only; they never fail on a number. Sizes default to 100, 1,000 and
10,000 memories; `--quick` uses smaller sizes and fewer runs for a smoke check.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

from engram.outcome import Outcome

if TYPE_CHECKING:
    from engram.cli.main import Context

# each is a row of engram.bench.report.RUNNERS
SUITES = ("store", "retrieval", "latency", "mcp", "hooks", "load", "writes", "stale",
          "takecontrol", "record")


def configure_bench(p: argparse.ArgumentParser) -> None:
    p.add_argument("--sizes", default="100,1000,10000", help="store sizes (comma-separated)")
    p.add_argument("--only", help=f"suites to run: {', '.join(SUITES)} (default: all; only "
                   "retrieval with --fixture)")
    p.add_argument("--fixture", metavar="DIR", action="append",
                   help="score this retrieval fixture directory (workspace/, queries.json, "
                        "optional global/) instead of the defaults; repeatable")
    p.add_argument("--semantic", action="store_true",
                   help="turn the semantic extra on in the retrieval and latency stores "
                        "(needs its table: python scripts/build-vectors.py)")
    p.add_argument("--vectors", metavar="PATH",
                   help="the vector table for --semantic (default: the one Engram uses)")
    p.add_argument("--quick", action="store_true", help="small sizes and few runs (smoke check)")
    p.add_argument("--write", metavar="FILE", help="write the report (e.g. BENCHMARKS.md)")
    p.add_argument("--dir", metavar="DIR", help="where generated stores live (default: temp)")


def run_bench(args: argparse.Namespace, ctx: Context) -> Outcome:
    from engram.bench.report import run_all

    sizes = [100, 1000] if args.quick else [int(s) for s in args.sizes.split(",") if s.strip()]
    only = args.only or ("retrieval" if args.fixture else ",".join(SUITES))
    suites = [s.strip() for s in only.split(",") if s.strip()]
    fixtures = [Path(f).resolve() for f in args.fixture] if args.fixture else None
    vectors = None
    if args.semantic or args.vectors:
        from engram.bench.harness import semantic_table

        vectors = semantic_table(Path(args.vectors) if args.vectors else
                                 ctx.roots.vectors_file)
    text, data = run_all(sizes, suites, quick=args.quick, write=args.write, workdir=args.dir,
                         fixtures=fixtures, vectors=vectors)
    return Outcome(text=text, data=data)
