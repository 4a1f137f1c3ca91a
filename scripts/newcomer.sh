#!/usr/bin/env bash
# A newcomer's first hour, scripted (issue 19): fresh clone → the README's install-as-a-tool
# command into a temp location → in a new shell with only that tool's bin on PATH (plus
# /usr/bin:/bin): `engram init`, `engram save` answered `y` on a pseudo-terminal (re-asked, then
# saved), the input issue 28 found (type word after the text, a misspelled type, piped text, a
# prose password, `engram help`), `engram link claude` and `engram link gemini` in a scratch git repository holding a
# user's own `.mcp.json` (and `engram link --global gemini`), then each launch command those
# links wrote must complete an MCP `initialize`: the shared project files' bare engram-mcp with
# the tool's bin on PATH, the user file's absolute path with PATH stripped to /usr/bin:/bin;
# `git add .` then stages no path of this machine (issue 28); after `engram unlink`,
# `git status` must show no backup files. Everything happens under one temp dir (HOME too).
#
# Installer: `uv` or `pipx` when on PATH, else `uv` installed from PyPI into a temp venv.
# ENGRAM_NEWCOMER_INSTALLER=pipx|uv picks one. The launch and backup checks need the launch
# command work of `engram link --launcher`; on a tree without it they are reported as skipped
# (not failed), and strict from then on. ENGRAM_NEWCOMER_KNOWN_GAPS=launch,backups reports
# those checks' failures as `gap` without failing the run (.ci/run says which gaps are open).
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
python="$(command -v "${PYTHON:-python3}")"
tmp="$(mktemp -d "${TMPDIR:-/tmp}/engram-newcomer.XXXXXX")"
trap 'rm -rf "$tmp"' EXIT
failures=0
pass() { printf 'ok    %s\n' "$1"; }
fail() { printf 'FAIL  %s\n' "$1"; failures=$((failures + 1)); }
skip() { printf 'skip  %s\n' "$1"; }
# A strict check's failure: `gap` (reported, not failed) when its group is a known open gap.
miss() { case ",${ENGRAM_NEWCOMER_KNOWN_GAPS:-}," in
           *",$1,"*) printf 'gap   %s\n' "$2" ;;
           *) fail "$2" ;;
         esac; }

# 1. A fresh clone of the committed tree (what a newcomer gets).
git clone --quiet --no-hardlinks "$repo" "$tmp/clone"
pass "fresh clone ($(git -C "$tmp/clone" rev-parse --short HEAD))"

# 2. The installer, then the README's install-as-a-tool command into a temp location.
installer="${ENGRAM_NEWCOMER_INSTALLER:-}"
if [ -z "$installer" ]; then
  if command -v uv >/dev/null; then installer=uv; elif command -v pipx >/dev/null; then
    installer=pipx; else installer=uv; fi
fi
if ! command -v "$installer" >/dev/null; then
  "$python" -m venv "$tmp/installer"
  PIP_DISABLE_PIP_VERSION_CHECK=1 "$tmp/installer/bin/python" -m pip install --quiet "$installer"
  export PATH="$tmp/installer/bin:$PATH"
fi
bin="$tmp/tool-bin"
case "$installer" in
  uv) UV_TOOL_DIR="$tmp/tools" UV_TOOL_BIN_DIR="$bin" UV_CACHE_DIR="$tmp/uv-cache" \
        uv tool install --quiet "$tmp/clone" ;;
  pipx) PIPX_HOME="$tmp/pipx" PIPX_BIN_DIR="$bin" PIPX_MAN_DIR="$tmp/man" \
          pipx install --quiet "$tmp/clone" >/dev/null ;;
  *) echo "unknown installer $installer" >&2; exit 2 ;;
esac
[ -x "$bin/engram" ] && [ -x "$bin/engram-mcp" ] && pass "$installer tool install → $bin" \
  || fail "$installer tool install did not put engram and engram-mcp in $bin"

# 3. A new shell: HOME and PATH of its own, nothing from this one.
mkdir -p "$tmp/home" "$tmp/repo"
fresh() { env -i HOME="$tmp/home" PATH="$bin:/usr/bin:/bin" LANG=C.UTF-8 \
            GIT_AUTHOR_NAME=New GIT_AUTHOR_EMAIL=new@example.org \
            GIT_COMMITTER_NAME=New GIT_COMMITTER_EMAIL=new@example.org "$@"; }
cd "$tmp/repo"
fresh git init --quiet .
printf '{\n  "mcpServers": {\n    "docs": {"command": "docs-server"}\n  }\n}\n' > .mcp.json
fresh git add .mcp.json && fresh git commit --quiet -m "the user's own MCP server"

fresh bash -c 'engram --version' >/dev/null && pass "engram runs from a new shell" \
  || fail "engram is not found in a new shell"
fresh bash -c 'engram init' >/dev/null && [ -d .agents/.engram/rules ] \
  && pass "engram init" || fail "engram init"

# 4. `engram save`, answered `y` at a terminal: re-asked with the legend, Enter saves.
if fresh "$python" - "$bin/engram" <<'EOF'
import os, pty, select, sys, time
pid, fd = pty.fork()
if pid == 0:
    os.execv(sys.argv[1], [sys.argv[1], "save", "rule", "Run the smoke suite before tagging."])
out = b""
def until(token: bytes, timeout: float = 60.0) -> None:
    global out
    end = time.monotonic() + timeout
    while token not in out and time.monotonic() < end:
        if select.select([fd], [], [], 0.2)[0]:
            try:
                chunk = os.read(fd, 4096)
            except OSError:
                return
            if not chunk:
                return
            out += chunk
until(b"Save?"); os.write(fd, b"y\r")
until(b"Press Enter"); os.write(fd, b"\r")
until(b"\0")
code = os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])
text = out.decode(errors="replace")
ok = code == 0 and "`y` means A" in text and "written" in text
sys.stdout.write("" if ok else text + f"\n(exit {code})\n")
sys.exit(0 if ok else 1)
EOF
then
  [ -f .agents/.engram/rules/run-smoke-suite-before-tagging.md ] \
    && pass "save answered y on a terminal: re-asked, then saved" \
    || fail "save answered y: no memory file written"
else
  fail "save answered y on a terminal"
fi

# 4b. Input that used to make wrong memories quietly (issue #28): the type word after the
#     text, piped text, a password written in prose, and `engram help`.
fresh bash -c 'engram save "Always squash merge PRs." rule --answer A' >/dev/null 2>&1 \
  && grep -q '^- Always squash merge PRs\.$' .agents/.engram/rules/always-squash-merge-prs.md \
  && pass "save \"text\" rule: the type word after the text is understood, not saved as text" \
  || fail "save \"text\" rule did not save the rule always-squash-merge-prs"
rc=0; out="$(fresh bash -c 'engram save "Prefer small PRs." rules --answer A' 2>&1)" || rc=$?
[ "$rc" -eq 2 ] && printf '%s' "$out" | grep -q 'did you mean rule' \
  && pass "save \"text\" rules: refused with 'did you mean rule'" \
  || fail "save \"text\" rules: $out"
fresh bash -c 'echo "Never commit directly to main." | engram save rule --answer A' >/dev/null \
  && [ -f .agents/.engram/rules/never-commit-directly-main.md ] \
  && pass "echo text | engram save rule --answer A: the piped text is the memory" \
  || fail "piped text was not saved as rules/never-commit-directly-main.md"
rc=0; out="$(fresh bash -c 'echo "Keep the changelog short." | engram save rule' 2>&1)" || rc=$?
[ "$rc" -eq 3 ] && printf '%s' "$out" | grep -q -- '--answer A' \
  && pass "piped text without --answer: nothing saved, says to pass --answer" \
  || fail "piped text without --answer: $out"
out="$(fresh bash -c 'engram save knowledge "The staging database password is hunter2-Blue-Sky" \
  --answer A' 2>&1)" || true
if printf '%s' "$out" | grep -q 'safety.prose_secret' \
   && ! ls .agents/.engram/knowledge | grep -qi hunter2; then
  pass "a prose password: warned (safety.prose_secret), not in the file name"
else
  fail "a prose password: $(ls .agents/.engram/knowledge) $out"
fi
fresh bash -c 'engram help' | grep -q 'save-session' && fresh bash -c 'engram help save' \
  | grep -q -- '--answer' && pass "engram help, engram help save" || fail "engram help"

# 5. Link two hosts; start what they were told to start. A project file is shared (issue #28):
#    the bare engram-mcp, started with a teammate's PATH (the tool's bin and /usr/bin:/bin).
#    The user-scope file is personal: its launch command starts with a host's bare PATH.
fresh bash -c 'engram link claude && engram link gemini && engram link --global gemini' \
  >/dev/null && pass "engram link claude, engram link gemini, engram link --global gemini" \
  || fail "engram link claude/gemini"
if fresh bash -c 'engram link --help' | grep -q -- '--launcher'; then strict=1; else strict=0; fi
for conf in .mcp.json .gemini/settings.json "$tmp/home/.gemini/settings.json"; do
  case "$conf" in /*) want=path; run_path="/usr/bin:/bin" ;;
                  *) want=engram-mcp; run_path="$bin:/usr/bin:/bin" ;; esac
  if "$python" - "$conf" "$tmp/home" "$want" "$run_path" <<'EOF'
import json, os, subprocess, sys
entry = json.load(open(sys.argv[1], encoding="utf-8"))["mcpServers"]["engram"]
argv = [entry["command"], *entry.get("args", [])]
if sys.argv[3] == "engram-mcp" and argv[0] != "engram-mcp":
    print(f"a shared project file runs {argv[0]!r}, not the bare engram-mcp")
    sys.exit(1)
if sys.argv[3] == "path" and not os.path.isabs(argv[0]):
    print(f"the user's own file runs {argv[0]!r}, not an absolute path")
    sys.exit(1)
hello = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
    "protocolVersion": "2025-06-18", "capabilities": {},
    "clientInfo": {"name": "newcomer", "version": "1"}}}
try:
    proc = subprocess.run(argv, input=json.dumps(hello) + "\n", capture_output=True, text=True,
                          timeout=60, env={"PATH": sys.argv[4], "HOME": sys.argv[2]})
except OSError as exc:
    print(f"{argv[0]!r} does not start with PATH={sys.argv[4]}: {exc}")
    sys.exit(1)
reply = json.loads(proc.stdout.splitlines()[0]) if proc.stdout.strip() else {}
if "serverInfo" not in reply.get("result", {}):
    print(f"{argv} answered {proc.stdout[:200]!r} {proc.stderr[-300:]!r}")
    sys.exit(1)
EOF
  then pass "${conf#"$tmp/home/"} launch command ($want) starts with PATH=$run_path and answers"
  elif [ "$strict" = 1 ]; then miss launch "$conf launch command (see above)"
  else skip "$conf launch command (needs \`engram link --launcher\`, not in this tree)"
  fi
done

# 5b. `git add .` after link commits nothing machine-specific (issue #28): the staged diff
#     names no temp dir, HOME or tool install, and link said in one line what to commit.
commit_line="$(fresh bash -c 'engram link claude' | grep '^note: for git: commit' || true)"
[ -n "$commit_line" ] && pass "link says what to commit: ${commit_line#note: }" \
  || fail "engram link claude printed no 'for git: commit …' line"
fresh git add . && staged="$(fresh git diff --cached)"
leaks="$(printf '%s\n' "$staged" | grep -nF -e "$tmp" -e "$bin" -e "$repo" || true)"
if [ -n "$staged" ] && [ -z "$leaks" ]; then
  pass "git add . after init + link stages no path of this machine"
else
  fail "git add . after link stages machine paths: $(printf '%s' "$leaks" | head -5)"
fi
fresh git reset --quiet

# 6. Unlink; no backup files may show up in the working tree.
fresh bash -c 'engram unlink claude && engram unlink gemini && engram unlink --global gemini' \
  >/dev/null && pass "engram unlink claude, engram unlink gemini (both scopes)" \
  || fail "engram unlink"
backups="$(fresh git status --porcelain --untracked-files=all | grep -E '\.(engram\.)?bak$' || true)"
if [ -z "$backups" ]; then pass "git status shows no backup files"
elif [ "$strict" = 1 ]; then miss backups "git status shows backup files: $backups"
else skip "backup files in the working tree ($backups; needs the hosts work)"
fi

if [ "$failures" -gt 0 ]; then echo "newcomer: $failures check(s) failed"; exit 1; fi
echo "newcomer: all checks passed"
