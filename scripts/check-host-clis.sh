#!/usr/bin/env bash
# Check that the hosts' own CLIs accept what `engram link` writes, start it, and forget it
# after `engram unlink` (not part of the test run).
#
# Installs @anthropic-ai/claude-code, @openai/codex and @google/gemini-cli from npm into a temp
# dir, at the versions scripts/check-hosts-e2e.sh pins. Engram runs as installed: `$ENGRAM_BIN/engram` by absolute path, and neither it nor any
# wrapper is on PATH (PATH is the hosts' bin dir plus /usr/local/bin:/usr/bin:/bin), so the
# launch commands `link` writes must start the install on their own, as they do for a user who
# runs a venv's engram without activating it. Every command runs under `env -i` on a temp HOME
# and, as root, in a network namespace with only loopback (nothing leaves the machine).
#   claude  user content first (a user server `docs`, a project .mcp.json server `lint`);
#           `engram link --global claude --no-hooks` prints `claude mcp add --scope user …`:
#           we run it and `claude mcp list` must show engram Connected (a real handshake);
#           `engram link claude` (project .mcp.json + hooks) writes the bare engram-mcp (the file
#           is shared): not Connected while engram-mcp is off PATH, Connected once approved
#           with it on PATH (a teammate's pipx install), and with `--launcher path` (personal)
#           Connected off PATH; the hook command written into settings starts and answers;
#   codex   a config.toml with user tables and comments gets the managed block and
#           `codex mcp list` lists engram (and the file still parses with tomllib);
#   gemini  `gemini mcp list` shows engram Connected from ~/.gemini/settings.json;
#   unlink  after `engram unlink` (and the printed `claude mcp remove`), `claude mcp list`,
#           `codex mcp list` and `gemini mcp list` no longer show engram; the user's servers,
#           tables, comments and keys are still there.
# Offline once the npm packages are installed. Environment:
#   HOST_CLI_DIR  reuse an existing npm prefix holding the three packages (skip the install)
#   ENGRAM_BIN    bin dir of the engram install under test (default: this checkout's .venv/bin)
set -uo pipefail

here="$(cd "$(dirname "$0")/.." && pwd)"
engram_bin="${ENGRAM_BIN:-$here/.venv/bin}"
engram_exe="$engram_bin/engram"
[ -x "$engram_exe" ] || { echo "FAIL no engram in $engram_bin (set ENGRAM_BIN)"; exit 1; }
py="$(command -v python3)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

clis="${HOST_CLI_DIR:-$work/npm}"
if [ -z "${HOST_CLI_DIR:-}" ]; then
  mkdir -p "$clis"
  echo "installing host CLIs into $clis (npm)…"
  (cd "$clis" && npm init -y >/dev/null &&
    npm install --no-audit --no-fund --loglevel=error \
      @anthropic-ai/claude-code@2.1.332 @openai/codex@0.171.0 @google/gemini-cli@0.61.0 \
      >/dev/null) || {
    echo "FAIL npm install"; exit 1; }
fi

home="$work/home"
project="$work/project"
mkdir -p "$home" "$project"
clean_path="$clis/node_modules/.bin:/usr/local/bin:/usr/bin:/bin"
offline=()
if [ "$(id -u)" = 0 ] && unshare -n true 2>/dev/null; then
  offline=(unshare -n bash -c 'ip link set lo up 2>/dev/null; exec "$@"' offline)
else
  echo "note: not root; the hosts run with the machine's network"
fi
# run CMD…: in the project, clean environment, no network.
run() {
  (cd "$project" && "${offline[@]}" env -i HOME="$home" PATH="$clean_path" LANG=C.UTF-8 \
    ENGRAM_NO_AUTO_UPGRADE=1 DISABLE_AUTOUPDATER=1 CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 \
    DISABLE_TELEMETRY=1 NO_BROWSER=1 "$@")
}
engram() { run "$engram_exe" "$@"; }
# on_path CMD…: as `run`, with this engram's bin dir on PATH (a teammate who installed it).
on_path() {
  (cd "$project" && "${offline[@]}" env -i HOME="$home" PATH="$engram_bin:$clean_path" \
    LANG=C.UTF-8 ENGRAM_NO_AUTO_UPGRADE=1 DISABLE_AUTOUPDATER=1 \
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 DISABLE_TELEMETRY=1 NO_BROWSER=1 "$@")
}
cd "$project" || exit 1
git init -q .
status=0
pass() { echo "PASS $1"; }
fail() { echo "FAIL $1"; status=1; }
show() { sed "s/^/  $1> /"; }
# expect_connected HOST NOTE: `HOST mcp list` shows an engram line that says Connected.
expect_connected() {
  local out
  out="$(run timeout 120 "$1" mcp list 2>&1)"
  echo "$out" | show "$1"
  if echo "$out" | grep "engram" | grep -q "Connected"; then
    pass "$1 mcp list shows engram Connected $2"
  else
    fail "$1 mcp list does not show engram Connected $2"
  fi
}

echo "versions: $(run claude --version 2>/dev/null) | $(run codex --version 2>/dev/null) |" \
  "gemini $(run gemini --version 2>/dev/null) | $(engram --version) ($engram_bin, not on PATH)"
if run sh -c 'command -v engram-mcp || command -v engram' >/dev/null; then
  fail "an engram is on the hosts' PATH; the check would not test the written launcher"
fi

# --- Claude Code: user scope through the printed command --------------------------------------
run claude mcp add --scope user docs -- docs-server --port 0 >/dev/null 2>&1 ||
  fail "claude mcp add (user's own docs server)"
printf '{\n  "mcpServers": {\n    "lint": {"command": "lint-server", "args": []}\n  }\n}\n' \
  >"$project/.mcp.json"
add="$(engram link --global claude --no-hooks |
  sed -n 's/^note: register the server for your user with: //p')"
echo "claude: $add"
if [ -n "$add" ] && run sh -c "$add" >/dev/null 2>&1; then
  expect_connected claude "(user scope)"
else
  fail "claude mcp add (printed by engram link --global claude)"
fi
# Project scope: .mcp.json plus hooks in .claude/settings.local.json. Claude asks before it
# starts a project server; approve it in that settings file, as the approval prompt would, and
# (2.1.332) trust the folder in ~/.claude.json, as its trust dialog would.
# Claude 2.1.332 lists one `engram` when both scopes have it, the user's: take that one out
# while the project entry is checked, then put it back for the unlink check.
run claude mcp remove --scope user engram >/dev/null 2>&1 || fail "claude mcp remove (user)"
engram link claude >/dev/null || fail "engram link claude"
HOME_DIR="$home" "$py" - <<'PY'
import json
p = ".claude/settings.local.json"
d = json.load(open(p))
d["enabledMcpjsonServers"] = ["engram"]
json.dump(d, open(p, "w"), indent=2)
import os
u = os.path.join(os.environ["HOME_DIR"], ".claude.json")
c = json.load(open(u)) if os.path.exists(u) else {}
c.setdefault("projects", {}).setdefault(os.getcwd(), {})["hasTrustDialogAccepted"] = True
json.dump(c, open(u, "w"), indent=2)
PY
if "$py" -c "import json; d=json.load(open('.mcp.json'))['mcpServers']['engram']; \
assert d['command']=='engram-mcp', d"; then
  pass "the project .mcp.json (shared) runs the bare engram-mcp"
else
  fail "the project .mcp.json does not run the bare engram-mcp"
fi
out="$(run timeout 120 claude mcp list 2>&1)"
echo "$out" | grep "^engram" | show claude
if echo "$out" | grep "^engram" | grep -q "Connected"; then
  fail "claude mcp list: the bare engram-mcp Connected with no engram-mcp on PATH?"
else
  pass "claude mcp list: the bare engram-mcp does not connect while it is off PATH"
fi
out="$(on_path timeout 120 claude mcp list 2>&1)"
echo "$out" | grep "^engram" | show claude
# The project entry shadows the user one; it has no --always-load (hooks are installed).
if echo "$out" | grep "^engram" | grep "Connected" | grep -vq -- "--always-load"; then
  pass "claude mcp list shows the project .mcp.json engram Connected with it on PATH"
else
  fail "claude mcp list: project .mcp.json engram not Connected with engram-mcp on PATH"
fi
engram link claude --launcher path >/dev/null || fail "engram link claude --launcher path"
out="$(run timeout 120 claude mcp list 2>&1)"
echo "$out" | grep "^engram" | show claude
if echo "$out" | grep "^engram" | grep "Connected" | grep -vq -- "--always-load"; then
  pass "claude mcp list shows the --launcher path engram Connected off PATH"
else
  fail "claude mcp list: the --launcher path engram not Connected"
fi
run sh -c "$add" >/dev/null 2>&1 || fail "claude mcp add (user scope, again)"
hook="$("$py" -c 'import json; d=json.load(open(".claude/settings.local.json"));
print(d["hooks"]["SessionStart"][0]["hooks"][0]["command"])' 2>/dev/null)"
echo "claude hook: $hook"
hook_out="$(echo '{"hook_event_name":"SessionStart","session_id":"check","source":"startup"}' |
  run sh -c "$hook" 2>&1)"
if echo "$hook_out" | "$py" -c 'import json,sys; json.load(sys.stdin)' 2>/dev/null; then
  pass "the SessionStart hook command starts without engram on PATH and answers JSON"
else
  fail "the SessionStart hook command did not answer: $(echo "$hook_out" | head -3)"
fi

# --- Codex: managed block inside a config.toml with user tables and comments -----------------
mkdir -p "$home/.codex"
cat >"$home/.codex/config.toml" <<'EOF'
# my Codex settings
model = "gpt-5-codex"
approval_policy = "on-request"  # ask first

[mcp_servers.docs]
command = "docs-server"  # local docs
args = ["--port", "0"]

[profiles.fast]
model = "gpt-5-mini"
EOF
cp "$home/.codex/config.toml" "$work/codex-before.toml"
engram link --global codex >/dev/null || fail "engram link --global codex"
if "$py" -c "import tomllib,sys; d=tomllib.load(open(sys.argv[1],'rb')); \
assert d['mcp_servers']['engram']['tools']['engram_commit']['approval_mode']=='prompt'; \
assert d['mcp_servers']['docs']['command']=='docs-server'" "$home/.codex/config.toml"; then
  pass "codex config.toml parses with tomllib and keeps the user's tables"
else
  fail "codex config.toml after link"
fi
out="$(run timeout 120 codex mcp list 2>&1)"
echo "$out" | grep -v "^WARNING: proceeding" | show codex
if echo "$out" | grep -qE "^engram[[:space:]]" && echo "$out" | grep -qE "^docs[[:space:]]"; then
  pass "codex mcp list lists engram (and the user's docs server)"
else
  fail "codex mcp list does not list engram"
fi

# --- Gemini CLI: mcpServers.engram in ~/.gemini/settings.json --------------------------------
mkdir -p "$home/.gemini"
cat >"$home/.gemini/settings.json" <<'EOF'
{
  "ui": {"theme": "GitHub"},
  "mcpServers": {"docs": {"command": "docs-server"}}
}
EOF
engram link --global gemini >/dev/null || fail "engram link --global gemini"
# Gemini suppresses servers in untrusted folders; trust the temp project like a user would.
printf '{"%s": "TRUST_FOLDER"}\n' "$project" >"$home/.gemini/trustedFolders.json"
expect_connected gemini ""

# --- Unlink: every host forgets engram and keeps the user's content --------------------------
rm_cmd="$(engram unlink --global claude |
  sed -n 's/^note: remove the user-scope server with: //p')"
echo "claude: $rm_cmd"
[ -n "$rm_cmd" ] && run sh -c "$rm_cmd" >/dev/null 2>&1 ||
  fail "claude mcp remove (printed by unlink)"
engram unlink claude >/dev/null || fail "engram unlink claude"
out="$(run timeout 120 claude mcp list 2>&1)"
echo "$out" | show claude
if echo "$out" | grep -q "^engram"; then
  fail "claude mcp list still shows engram after unlink"
elif echo "$out" | grep -q "^docs:" &&
  "$py" -c "import json; d=json.load(open('.mcp.json')); assert list(d['mcpServers'])==['lint']"
then
  pass "after unlink claude mcp list has no engram; the user's docs and the project's lint stay"
else
  fail "claude after unlink: the user's docs server or the project's .mcp.json lint is gone"
fi
settings=".claude/settings.local.json"
if [ ! -f "$settings" ] || ! grep -qE "agent-hook|mcp__engram" "$settings"; then
  pass "after unlink $settings holds no Engram hook or permission rule"
else
  fail "after unlink $settings still holds Engram entries:" \
    "$(grep -E "agent-hook|mcp__engram" "$settings")"
fi
engram unlink --global codex >/dev/null || fail "engram unlink --global codex"
out="$(run timeout 120 codex mcp list 2>&1)"
echo "$out" | grep -v "^WARNING: proceeding" | show codex
if echo "$out" | grep -qE "^engram[[:space:]]"; then
  fail "codex mcp list still lists engram after unlink"
elif cmp -s "$work/codex-before.toml" "$home/.codex/config.toml"; then
  pass "after unlink codex mcp list has no engram; config.toml is byte-identical to the user's"
elif echo "$out" | grep -qE "^docs[[:space:]]" &&
  grep -q "^# my Codex settings" "$home/.codex/config.toml" &&
  grep -q "^\[profiles.fast\]" "$home/.codex/config.toml"; then
  pass "after unlink codex mcp list has no engram; the user's tables and comments stay"
else
  fail "codex after unlink: the user's config.toml content changed"
fi
engram unlink --global gemini >/dev/null || fail "engram unlink --global gemini"
out="$(run timeout 120 gemini mcp list 2>&1)"
echo "$out" | show gemini
if echo "$out" | grep -q "engram"; then
  fail "gemini mcp list still shows engram after unlink"
elif "$py" -c "import json,sys; d=json.load(open(sys.argv[1])); \
assert d['ui']=={'theme':'GitHub'} and list(d['mcpServers'])==['docs']" \
  "$home/.gemini/settings.json"; then
  pass "after unlink gemini mcp list has no engram; the user's keys and docs server stay"
  if ls "$home/.gemini/policies/"*engram* >/dev/null 2>&1; then
    fail "after unlink an Engram policy is left in ~/.gemini/policies"
  fi
else
  fail "gemini after unlink: the user's settings.json content changed"
fi

exit $status
