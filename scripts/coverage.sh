#!/usr/bin/env bash
# Line coverage per package (the table in the README's development section): runs the whole
# suite under coverage, then sums covered and total statements per package of src/engram.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PWD/.venv/bin:$PATH"
out="${TMPDIR:-/tmp}/engram-coverage.json"
pytest -q -p no:cacheprovider --cov=engram --cov-report="json:$out" "$@"
python - "$out" <<'PY'
import json
import sys
from collections import defaultdict

files = json.load(open(sys.argv[1], encoding="utf-8"))["files"]
totals: dict[str, list[int]] = defaultdict(lambda: [0, 0])
for path, info in files.items():
    parts = path.split("engram/", 1)[1].split("/")
    package = parts[0] + "/" if len(parts) > 1 else "(top level)"
    totals[package][0] += info["summary"]["covered_lines"]
    totals[package][1] += info["summary"]["num_statements"]
print("| package | lines covered |\n|---|---:|")
for package, (covered, total) in sorted(totals.items()):
    print(f"| `{package}` | {100 * covered / max(total, 1):.0f}% ({covered}/{total}) |")
covered = sum(c for c, _ in totals.values())
total = sum(t for _, t in totals.values())
print(f"| all | {100 * covered / max(total, 1):.0f}% ({covered}/{total}) |")
PY
