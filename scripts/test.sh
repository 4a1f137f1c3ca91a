#!/usr/bin/env bash
# The README's test command: create a venv, install Engram with its test extra, run the suite,
# ruff and mypy. One command on a fresh machine.
set -euo pipefail
cd "$(dirname "$0")/.."
[ -x .venv/bin/python ] || python3 -m venv .venv
export PIP_DISABLE_PIP_VERSION_CHECK=1
.venv/bin/python -m pip install --quiet -e '.[test]'
export PATH="$PWD/.venv/bin:$PATH"
ruff check src tests
mypy
mypy --platform win32 src  # the package as Windows sees it (the CI matrix runs the rest there)
pytest -q -p no:cacheprovider "$@"
