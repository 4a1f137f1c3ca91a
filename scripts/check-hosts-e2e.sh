#!/usr/bin/env bash
# End-to-end check with the real hosts: what does the model receive from Engram?
#
# Installs Claude Code, Codex CLI, Gemini CLI and OpenCode from npm into a temp dir, then runs
# the driver (scripts/e2e, `python -m e2e.run`) inside a network namespace that has only
# loopback: nothing can leave the machine. There, a mock of each model API on 127.0.0.1 scripts
# the model's tool calls (engram_load, engram_save, engram_search, a bad engram_load, engram_note,
# an engram_load whose text ends with the map and engram_load of an id read off that map, the
# host's resource reader, engram_commit) and records every request the host sends; the
# checks read what the model received. Each host runs with `timeout`, a
# throwaway HOME, an explicit environment (nothing inherited) and dummy keys, in a scratch git
# repo holding an `engram init`ed store with approved memories, after `engram link <host>`.
#
# Needs root (for `unshare -n`), iproute2, npm and node. When any is missing it prints
# "SKIP …" and exits 0 (or 1 with ENGRAM_E2E_REQUIRED=1).
# Environment:
#   ENGRAM_BIN      bin dir of the engram install under test (default: this checkout's .venv/bin)
#   HOST_CLI_DIR    an npm prefix that already holds the four hosts (skips the install)
#   E2E_HOSTS       comma-separated subset (default: claude,codex,gemini,opencode)
#   E2E_WORK        keep the scratch dir (recorded requests, host output) here instead of a temp
#   E2E_TIMEOUT     seconds per host run (default 120)
#   E2E_JOBS        hosts run at once (default 1)
#   E2E_LATEST=1    install exactly the registry's latest host releases (npm view <pkg> version),
#                   printed, instead of the pinned, verified ones
#   E2E_REPORT      write the results as JSON to this file
#   E2E_KNOWN_FAILURES=1  host/scenario pairs in scripts/e2e/known-failures.txt count as XFAIL
#                   (one that passes fails the run); CI uses this until the fixes land
#   E2E_ENGRAM_OFF_PATH=1  run `engram link` by absolute path and the hosts without the engram
#                   bin dir on PATH (tests the launch command link writes; default: on PATH,
#                   as with an activated venv)
#   E2E_ALLOW=1     diagnostic: allow engram_load/engram_save per run in each host (never commit),
#                   to tell a denied tool apart from a result whose text the host dropped
#   PYTHON          interpreter for the driver (stdlib only; default python3)
set -uo pipefail

here="$(cd "$(dirname "$0")/.." && pwd)"
engram_bin="${ENGRAM_BIN:-$here/.venv/bin}"
py="${PYTHON:-python3}"

skip() {
  echo "SKIP host e2e: $1"
  [ "${ENGRAM_E2E_REQUIRED:-0}" = 1 ] && exit 1
  exit 0
}
[ "$(id -u)" = 0 ] || skip "needs root for a loopback-only network namespace (unshare -n)"
command -v unshare >/dev/null || skip "unshare not found (util-linux)"
command -v ip >/dev/null || skip "ip not found (iproute2)"
command -v timeout >/dev/null || skip "timeout not found (coreutils)"
unshare -n true 2>/dev/null || skip "unshare -n is not permitted here"
[ -x "$engram_bin/engram" ] && [ -x "$engram_bin/engram-mcp" ] ||
  skip "no engram/engram-mcp in $engram_bin (set ENGRAM_BIN)"

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
clis="${HOST_CLI_DIR:-$tmp/npm}"
start=$(date +%s)
# The versions the suite was last verified with (CI installs these, so a host release cannot turn
# main red by itself); E2E_LATEST=1 installs exactly the versions `npm view <pkg> version` calls
# latest instead (a bare package name could leave an older release that a cached range allows).
hosts="@anthropic-ai/claude-code@2.1.332 @openai/codex@0.171.0 @google/gemini-cli@0.61.0 opencode-ai@1.18.33"
if [ -z "${HOST_CLI_DIR:-}" ]; then
  command -v npm >/dev/null && command -v node >/dev/null || skip "npm/node not found"
  if [ "${E2E_LATEST:-0}" = 1 ]; then
    # Exactly what the registry calls latest: a bare name lets npm keep an older release that
    # satisfies a range from a lockfile or its cache, so ask for each version and pin it.
    latest=()
    for pkg in $hosts; do
      name="${pkg%@*}"
      version="$(npm view "$name" version 2>/dev/null)" || version=""
      [ -n "$version" ] || skip "npm view $name version failed (offline?)"
      latest+=("$name@$version")
    done
    hosts="${latest[*]}"
  fi
  echo "host CLIs: $hosts"
  mkdir -p "$clis"
  echo "installing host CLIs into $clis (npm)…"
  if ! (cd "$clis" && npm init -y >/dev/null &&
    npm install --no-audit --no-fund --loglevel=error $hosts >/dev/null); then
    skip "npm install of the host CLIs failed (offline?)"
  fi
  echo "installed in $(($(date +%s) - start))s"
fi
# What is really there (an install can differ from what was asked; HOST_CLI_DIR is whatever it is).
got=()
for pkg in $hosts; do
  name="${pkg%@*}"
  got+=("$name@$(node -p "require('$clis/node_modules/$name/package.json').version" 2>/dev/null || echo '?')")
done
echo "host CLIs installed: ${got[*]}"

work="${E2E_WORK:-$tmp/work}"
if [ -d "$work" ] && [ -n "$(ls -A "$work")" ] && [ ! -e "$work/.engram-e2e" ]; then
  echo "FAIL E2E_WORK=$work is not empty and not an earlier e2e scratch dir; pick another"
  exit 2
fi
rm -rf "$work" && mkdir -p "$work" && touch "$work/.engram-e2e"
args=(--hosts-bin "$clis/node_modules/.bin" --engram-bin "$engram_bin" --work "$work"
      --timeout "${E2E_TIMEOUT:-120}" --jobs "${E2E_JOBS:-1}")
[ -n "${E2E_HOSTS:-}" ] && args+=(--hosts "$E2E_HOSTS")
[ -n "${E2E_REPORT:-}" ] && args+=(--report "$E2E_REPORT")
[ "${E2E_ALLOW:-0}" = 1 ] && args+=(--allow-load-save)
[ "${E2E_ENGRAM_OFF_PATH:-0}" = 1 ] && args+=(--engram-off-path)
[ "${E2E_KNOWN_FAILURES:-0}" = 1 ] &&
  args+=(--known-failures "$here/scripts/e2e/known-failures.txt")

# Only loopback exists inside: the hosts, the engram servers and the mock all talk over it.
# shellcheck disable=SC2016
PYTHONPATH="$here/scripts" unshare -n bash -c 'ip link set lo up && exec "$@"' e2e \
  "$py" -m e2e.run "${args[@]}"
status=$?
[ -z "${E2E_WORK:-}" ] && echo "(the scratch dir is removed; set E2E_WORK=<dir> to keep it)"
echo "host e2e: $(($(date +%s) - start))s in all"
exit $status
