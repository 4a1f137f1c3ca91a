"""Run the real hosts against the mock model and print a pass/fail table (host × scenario).

Meant to run inside a network namespace that has only loopback (see check-hosts-e2e.sh).
Exit 0 when no scenario failed, 1 otherwise, 2 on a setup error.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from . import project as proj
from .checks import SCENARIOS, TITLES, Result, judge
from .hosts import HOSTS, Ctx, Host, base_env
from .session import Session, run_session


def parse(argv: list[str]) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--hosts-bin", type=Path, required=True,
                   help="node_modules/.bin holding claude, codex, gemini, opencode")
    p.add_argument("--engram-bin", type=Path, required=True,
                   help="bin dir of the engram install under test")
    p.add_argument("--work", type=Path, required=True, help="empty scratch directory")
    p.add_argument("--hosts", default=",".join(HOSTS), help="comma-separated subset")
    p.add_argument("--timeout", type=int, default=120, help="seconds per host run")
    p.add_argument("--jobs", type=int, default=1, help="hosts run at once")
    p.add_argument("--report", type=Path, help="write the results as JSON here")
    p.add_argument("--allow-load-save", action="store_true",
                   help="diagnostic: allow engram_load and engram_save with each host's own "
                        "per-run switch (never engram_commit)")
    p.add_argument("--known-failures", type=Path,
                   help="file of host/scenario lines expected to fail: they count as XFAIL; "
                        "one that passes is XPASS and fails the run (update the file)")
    p.add_argument("--engram-off-path", action="store_true",
                   help="link and run hosts without the engram bin dir on PATH")
    return p.parse_args(argv)


def version(host: Host, ctx: Ctx) -> str:
    try:
        done = subprocess.run([host.binary, "--version"], env=host.env(ctx), capture_output=True,
                              text=True, timeout=60, check=False, cwd=ctx.home)
    except (OSError, subprocess.SubprocessError) as exc:
        return f"? ({exc})"
    lines = (done.stdout or done.stderr).strip().splitlines()
    return lines[-1] if lines else "?"


def known(path: Path) -> set[str]:
    """host/scenario lines of a known-failures file (# comments allowed)."""
    lines = (line.split("#", 1)[0].strip() for line in path.read_text("utf-8").splitlines())
    return {line for line in lines if line}


def expect(rows: dict[str, dict[str, Result]], known: set[str]) -> dict[str, dict[str, Result]]:
    """Known failures become XFAIL; a known failure that passed becomes XPASS (strict)."""
    out: dict[str, dict[str, Result]] = {}
    for host, results in rows.items():
        out[host] = {}
        for scenario, (status, evidence) in results.items():
            if f"{host}/{scenario}" in known:
                if status == "FAIL":
                    status = "XFAIL"
                elif status == "PASS":
                    status, evidence = "XPASS", "listed as a known failure but passed: " \
                                                "remove it from the known-failures file"
            out[host][scenario] = (status, evidence)
    return out


def table(rows: dict[str, dict[str, Result]]) -> str:
    width = max(len(h) for h in rows) + 2
    cols = {s: max(8, len(s) + 1) for s in SCENARIOS}
    head = "host".ljust(width) + "".join(s.ljust(cols[s]) for s in SCENARIOS)
    lines = [head, "-" * len(head)]
    for host, results in rows.items():
        lines.append(host.ljust(width) + "".join(results[s][0].ljust(cols[s]) for s in SCENARIOS))
    return "\n".join(lines)


def main(argv: list[str]) -> int:
    args = parse(argv)
    names = [n for n in args.hosts.split(",") if n]
    unknown = [n for n in names if n not in HOSTS]
    if unknown:
        print(f"unknown host(s): {', '.join(unknown)}; known: {', '.join(HOSTS)}")
        return 2
    work: Path = args.work
    on_path = not args.engram_off_path
    setup_ctx = Ctx(args.hosts_bin, args.engram_bin, work / "template-home", work / "template", 0,
                    on_path)
    setup_ctx.home.mkdir(parents=True)
    try:
        proj.make_template(setup_ctx.project, args.engram_bin / "engram", base_env(setup_ctx))
    except (RuntimeError, OSError, subprocess.SubprocessError) as exc:
        print(f"setup failed: {exc}")
        return 2
    engram_version = proj.run([str(args.engram_bin / "engram"), "--version"], work,
                              base_env(setup_ctx)).strip()

    def one(name: str) -> tuple[Session, str, float]:
        host = HOSTS[name]
        ctx = Ctx(args.hosts_bin, args.engram_bin, work / name / "home", work / name / "project",
                  0, on_path, args.allow_load_save)
        ctx.home.mkdir(parents=True)
        start = time.monotonic()
        session = run_session(host, ctx, setup_ctx.project, work, args.timeout)
        return session, version(host, ctx), time.monotonic() - start

    started = time.monotonic()
    with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        done = list(pool.map(one, names))
    rows = {s.host.name: judge(s) for s, _, _ in done}
    if args.known_failures:
        rows = expect(rows, known(args.known_failures))

    print(f"\nengram under test: {engram_version} ({args.engram_bin})")
    if args.allow_load_save:
        print("variant: engram_load and engram_save allowed per run (--allowedTools, Codex "
              "approval_mode, Gemini --policy); engram_commit left as link wrote it")
    for s, ver, secs in done:
        turns = ", ".join(f"exit {t.exit_code} in {t.seconds:.1f}s" for t in s.turns)
        print(f"  {s.host.name}: {ver}; {secs:.0f}s ({turns})")
    print("\n" + table(rows) + "\n")
    for host, results in rows.items():
        for scenario, (status, evidence) in results.items():
            if status in ("FAIL", "SKIP", "XFAIL", "XPASS"):
                print(f"{status:4} {host}/{scenario}: {evidence}")
    print("\nscenarios: " + "; ".join(f"{k} = {v}" for k, v in TITLES.items()))
    print(f"requests recorded under {work} (<host>-run<N>*.jsonl, host output in .out); "
          f"total {time.monotonic() - started:.0f}s")
    failed = sum(1 for r in rows.values() for status, _ in r.values()
                 if status in ("FAIL", "XPASS"))
    if args.report:
        args.report.write_text(json.dumps({
            "engram": engram_version,
            "hosts": {s.host.name: {"version": ver, "seconds": round(secs, 1),
                                    "results": rows[s.host.name]} for s, ver, secs in done},
        }, indent=2) + "\n", encoding="utf-8")
    print(f"{'FAIL' if failed else 'PASS'}: {failed} failing scenario(s)")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
