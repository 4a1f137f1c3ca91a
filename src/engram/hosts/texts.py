"""The words Engram puts into hosts: the instruction block and Claude's `/engram` command.

One bootstrap text serves every host, because several hosts share a file (`AGENTS.md` for Codex
and OpenCode, `GEMINI.md` for Gemini and Antigravity) and must agree on its block. It is data
here so the link engine stays free of prose.
"""

from __future__ import annotations

from engram.hosts.blocks import MD

BOOTSTRAP = f"""{MD.start}
## Project memory (Engram)

This project keeps reviewed, durable memory for coding agents in `.agents/.engram/`.

- Before you start a task, call `engram_load` with a one-line description of the task
  (CLI: `engram load "<task>"`) and follow the rules it returns.
- When you learn something worth keeping (a rule, a procedure, a decision), propose it with
  `engram_save` (several at once: `engram_save_session`) and show the human the exact numbered
  candidates it returns.
- Never call `engram_commit` before the human has approved those exact candidates, and never
  add it to an allow-list or auto-approve it.
- Only when the human explicitly asks for `/engram save-session --force` (or `/engram ss -f`),
  use the CLI write path: `engram save-session --force`; `ss -f last 50 sessions` means
  `engram save-session --query-level 50 --force`. Hosts without a shell commit through
  `engram_commit`.
{MD.end}
"""

CURSOR_HEADER = "---\ndescription: Engram project memory\nalwaysApply: true\n---\n\n"
WINDSURF_HEADER = "---\ntrigger: always_on\n---\n\n"

COMMAND_HEADER = (
    "---\n"
    "description: Engram project memory - load, save, save-session (ss), status, verify\n"
    'argument-hint: "load <task> | save <text> | ss [-f] [last N sessions] | status | verify"\n'
    "---\n\n"
)

COMMAND = f"""{MD.start}
Run the Engram request `$ARGUMENTS` by mapping it to exactly one call below.

| request | call |
| --- | --- |
| (empty), `help` | show this table |
| `load <task>` | tool `engram_load` with `query: "<task>"` (CLI `engram load "<task>"`) |
| `load --id a,b` | tool `engram_load` with `id: "a,b"` |
| `route <task>` | tool `engram_route` with `task: "<task>"` |
| `search <words>` | tool `engram_search` with `query: "<words>"` |
| `save <text>` | tool `engram_save` with `text: "<text>"`, then show the candidates |
| `save-session`, `ss` | review this session, then tool `engram_save_session` with the candidates |
| `ss last N sessions` | as `ss`, with `query_level: N` |
| `save-session --force`, `ss -f` | shell `engram save-session --force`, candidates on stdin |
| `ss -f last N sessions` | shell `engram save-session --query-level N --force` (e.g. N = 50) |
| `note <text>` | tool `engram_note` with `text: "<text>"` |
| `status` | tool `engram_status` |
| `verify` | tool `engram_verify` |
| `doctor` | shell `engram doctor` |

Rules:
- `--force` / `-f` means the human already approved the exact candidates in this chat: use the
  shell command, which writes ready candidates and defers the rest. Without it, only propose.
- Never call `engram_commit` until the human has approved the exact numbered candidates.
- Candidates use the pipe form, one per line:
  `TYPE: rule | TEXT: Always run tests before release. | CONTEXT: why`.
- `last N sessions` only bounds how many recent chats you review; never invent history.
{MD.end}
"""
