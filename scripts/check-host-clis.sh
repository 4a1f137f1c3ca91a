#!/usr/bin/env bash
# Check that the hosts' own CLIs accept what `engram link` writes (not part of the test run).
#
# Installs @anthropic-ai/claude-code, @openai/codex and @google/gemini-cli from npm into a temp
# dir, then on a temp HOME:
#   claude  `engram link --global claude --no-hooks` prints `claude mcp add --scope user …`;
#           we run it and `claude mcp list` must show engram Connected (a real engram-mcp
#           handshake); then `engram link claude` (project .mcp.json + hooks) must give a
#           second Connected engram once the project server is approved;
#   codex   a config.toml with user tables and comments gets the managed block and
#           `codex mcp list` lists engram (and the file still parses with tomllib);
#   gemini  `gemini mcp list` lists engram from ~/.gemini/settings.json.
# Offline once the npm packages are installed. Environment:
#   HOST_CLI_DIR  reuse an existing npm prefix holding the three packages (skip the install)
#   ENGRAM_SRC    the `src` dir whose engram / engram-mcp to run (default: this checkout)
#   ENGRAM_MCP_SRC  a different `src` dir for engram-mcp only (e.g. a branch's export)
#   PYTHON        interpreter with Engram's dependencies (default: .venv/bin/python, python3)
set -uo pipefail

here="$(cd "$(dirname "$0")/.." && pwd)"
src="${ENGRAM_SRC:-$here/src}"
mcp_src="${ENGRAM_MCP_SRC:-$src}"
py="${PYTHON:-}"
if [ -z "$py" ]; then
  if [ -x "$here/.venv/bin/python" ]; then py="$here/.venv/bin/python"; else py="$(command -v python3)"; fi
fi
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

clis="${HOST_CLI_DIR:-$work/npm}"
if [ -z "${HOST_CLI_DIR:-}" ]; then
  mkdir -p "$clis"
  echo "installing host CLIs into $clis (npm)…"
  (cd "$clis" && npm init -y >/dev/null &&
    npm install --no-audit --no-fund --loglevel=error \
      @anthropic-ai/claude-code @openai/codex @google/gemini-cli >/dev/null) || {
    echo "FAIL npm install"; exit 1; }
fi

bin="$work/bin"
mkdir -p "$bin"
cat >"$bin/engram" <<EOF
#!/bin/sh
PYTHONPATH="$src" exec "$py" -m engram "\$@"
EOF
cat >"$bin/engram-mcp" <<EOF
#!/bin/sh
PYTHONPATH="$mcp_src" exec "$py" -m engram.mcp "\$@"
EOF
chmod +x "$bin/engram" "$bin/engram-mcp"

export HOME="$work/home" ENGRAM_CONFIG_DIR="$work/home/.engram" ENGRAM_NO_AUTO_UPGRADE=1
export PATH="$bin:$clis/node_modules/.bin:/usr/local/bin:/usr/bin:/bin"
export DISABLE_AUTOUPDATER=1 CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 NO_BROWSER=1
mkdir -p "$HOME" "$work/project"
cd "$work/project" || exit 1
git init -q .
status=0
pass() { echo "PASS $1"; }
fail() { echo "FAIL $1"; status=1; }

echo "versions: $(claude --version 2>/dev/null) | $(codex --version 2>/dev/null) | gemini $(gemini --version 2>/dev/null)"

# --- Claude Code: user scope through the printed command --------------------------------------
if PYTHONPATH="$mcp_src" "$py" -c "import engram.mcp.main" 2>/dev/null; then
  add="$(engram link --global claude --no-hooks | sed -n 's/^note: register the server for your user with: //p')"
  echo "claude: $add"
  if [ -n "$add" ] && eval "$add" >/dev/null 2>&1; then
    out="$(timeout 120 claude mcp list 2>&1)"
    echo "$out" | sed 's/^/  claude> /'
    if echo "$out" | grep "^engram" | grep -q "Connected"; then
      pass "claude mcp list shows engram Connected"
    else
      fail "claude mcp list does not show engram Connected"
    fi
  else
    fail "claude mcp add (printed by engram link --global claude)"
  fi
  # Project scope: .mcp.json plus hooks in .claude/settings.local.json. Claude asks before it
  # starts a project server; approve it in that settings file, as the approval prompt would.
  engram link claude >/dev/null || fail "engram link claude"
  "$py" - <<'PY'
import json
p = ".claude/settings.local.json"
d = json.load(open(p))
d["enabledMcpjsonServers"] = ["engram"]
json.dump(d, open(p, "w"), indent=2)
PY
  out="$(timeout 120 claude mcp list 2>&1)"
  echo "$out" | grep "^engram" | sed 's/^/  claude> /'
  # The project entry shadows the user one; it has no --always-load (hooks are installed).
  if echo "$out" | grep "^engram" | grep "Connected" | grep -vq -- "--always-load"; then
    pass "claude mcp list shows the project .mcp.json engram Connected (no --always-load)"
  else
    fail "claude mcp list: project .mcp.json engram not Connected"
  fi
else
  echo "SKIP claude: this checkout has no engram.mcp server module yet"
fi

# --- Codex: managed block inside a config.toml with user tables and comments -----------------
mkdir -p "$HOME/.codex"
cat >"$HOME/.codex/config.toml" <<'EOF'
# my Codex settings
model = "gpt-5-codex"
approval_policy = "on-request"  # ask first

[mcp_servers.docs]
command = "docs-server"  # local docs
args = ["--port", "0"]

[profiles.fast]
model = "gpt-5-mini"
EOF
engram link --global codex >/dev/null || fail "engram link --global codex"
if "$py" -c "import tomllib,sys; d=tomllib.load(open(sys.argv[1],'rb')); \
assert d['mcp_servers']['engram']['tools']['engram_commit']['approval_mode']=='prompt'; \
assert d['mcp_servers']['docs']['command']=='docs-server'" "$HOME/.codex/config.toml"; then
  pass "codex config.toml parses with tomllib and keeps the user's tables"
else
  fail "codex config.toml after link"
fi
out="$(timeout 120 codex mcp list 2>&1)"
echo "$out" | grep -v "^WARNING: proceeding" | sed 's/^/  codex> /'
if echo "$out" | grep -qE "^engram[[:space:]]" && echo "$out" | grep -qE "^docs[[:space:]]"; then
  pass "codex mcp list lists engram (and the user's docs server)"
else
  fail "codex mcp list does not list engram"
fi

# --- Gemini CLI: mcpServers.engram in ~/.gemini/settings.json --------------------------------
engram link --global gemini >/dev/null || fail "engram link --global gemini"
# Gemini suppresses servers in untrusted folders; trust the temp project like a user would.
printf '{"%s": "TRUST_FOLDER"}\n' "$work/project" >"$HOME/.gemini/trustedFolders.json"
out="$(timeout 120 gemini mcp list 2>&1)"
echo "$out" | sed 's/^/  gemini> /'
if echo "$out" | grep -q "engram"; then
  pass "gemini mcp list lists engram"
  echo "$out" | grep "engram" | grep -q " - Connected" && echo "     (gemini reports it Connected)"
else
  fail "gemini mcp list does not list engram"
fi

exit $status
