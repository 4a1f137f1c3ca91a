"""How each real host is pointed at the mock model and started headless, offline.

A host gets a throwaway HOME, an explicit environment (nothing inherited), dummy keys and the
mock's loopback URL; `link` is what `engram link` must be run with for that host.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from .wire import API_BY_NAME, Api


@dataclass(frozen=True)
class Ctx:
    """Where one host run happens."""

    hosts_bin: Path  # node_modules/.bin holding claude, codex, gemini, opencode
    engram_bin: Path  # the engram install under test
    home: Path
    project: Path
    port: int
    engram_on_path: bool = True
    # Diagnostic variant: the user allowed engram_load and engram_save for this run (the host's
    # own per-run switch; never engram_commit), to tell "denied" apart from "text dropped".
    allow: bool = False

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"


def base_env(ctx: Ctx) -> dict[str, str]:
    """The whole environment of a host process (as `env -i` would leave it, plus these)."""
    path = [str(ctx.hosts_bin), "/usr/local/bin", "/usr/bin", "/bin"]
    if ctx.engram_on_path:
        path.insert(0, str(ctx.engram_bin))
    return {"HOME": str(ctx.home), "PATH": ":".join(path), "LANG": "C.UTF-8", "TERM": "dumb",
            "USER": "e2e", "TMPDIR": str(ctx.home / "tmp"), "ENGRAM_NO_AUTO_UPGRADE": "1",
            "NO_COLOR": "1", "CI": "1"}


@dataclass(frozen=True)
class Host:
    name: str
    binary: str
    api: Api
    link: tuple[tuple[str, ...], ...]  # `engram` argument lists, run in the project
    setup: Callable[[Ctx], None]
    env: Callable[[Ctx], dict[str, str]]
    # (ctx, prompts, resume session) -> argv; several prompts go to stdin (stream_input)
    argv: Callable[[Ctx, list[str], str | None], list[str]]
    hooks: bool = False  # has prompt hooks, several prompts per process and resume (Claude Code)


def _write_json(path: Path, data: object) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")


# --- Claude Code ------------------------------------------------------------------------------

def _claude_env(ctx: Ctx) -> dict[str, str]:
    return base_env(ctx) | {
        "ANTHROPIC_BASE_URL": ctx.url, "ANTHROPIC_API_KEY": "sk-ant-e2e-dummy",
        "DISABLE_TELEMETRY": "1", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
        "DISABLE_AUTOUPDATER": "1", "DISABLE_ERROR_REPORTING": "1"}


CLAUDE_SESSION = "0e2e0e2e-0000-4000-8000-00000000e2e0"


def _claude_argv(ctx: Ctx, prompts: list[str], resume: str | None) -> list[str]:
    session = ["--resume", resume] if resume else ["--session-id", CLAUDE_SESSION]
    allow = (["--allowedTools", "mcp__engram__engram_load mcp__engram__engram_save"]
             if ctx.allow else [])
    if len(prompts) > 1:  # one process, one session, a turn per stdin line
        return ["claude", "-p", "--input-format", "stream-json", "--output-format",
                "stream-json", "--verbose", *session, *allow]
    return ["claude", "-p", prompts[0], "--output-format", "json", *session, *allow]


def stream_input(prompts: list[str]) -> str:
    """Claude's stream-json stdin: one user message per turn."""
    return "".join(json.dumps({"type": "user", "message": {"role": "user", "content": p}}) + "\n"
                   for p in prompts)


# --- Codex ------------------------------------------------------------------------------------

def _codex_env(ctx: Ctx) -> dict[str, str]:
    return base_env(ctx) | {"MOCK_API_KEY": "e2e-dummy", "CODEX_HOME": str(ctx.home / ".codex")}


def _codex_argv(ctx: Ctx, prompts: list[str], resume: str | None) -> list[str]:
    prompt = prompts[0]
    provider = (f'model_providers.mock={{name="Mock", base_url="{ctx.url}/v1", '
                'wire_api="responses", env_key="MOCK_API_KEY"}')
    allow = (["-c", 'mcp_servers.engram.tools.engram_save.approval_mode="approve"']
             if ctx.allow else [])
    return ["codex", "exec", "--json", "-c", "model_provider=mock", "-c", "model=mock-model",
            "-c", provider, *allow, prompt]


# --- Gemini CLI -------------------------------------------------------------------------------

def _gemini_setup(ctx: Ctx) -> None:
    _write_json(ctx.home / ".gemini" / "settings.json",
                {"security": {"auth": {"selectedType": "gemini-api-key"}}})
    _write_json(ctx.home / ".gemini" / "trustedFolders.json", {str(ctx.project): "TRUST_FOLDER"})
    rules = "".join(f'[[rule]]\nmcpName = "engram"\ntoolName = "{tool}"\ndecision = "allow"\n'
                    "priority = 200\n\n" for tool in ("engram_load", "engram_save"))
    (ctx.home / "e2e-allow.toml").write_text(rules, encoding="utf-8")


def _gemini_env(ctx: Ctx) -> dict[str, str]:
    return base_env(ctx) | {"GOOGLE_GEMINI_BASE_URL": ctx.url, "GEMINI_API_KEY": "e2e-dummy",
                            "GEMINI_CLI_NO_RELAUNCH": "1"}


def _gemini_argv(ctx: Ctx, prompts: list[str], resume: str | None) -> list[str]:
    prompt = prompts[0]
    allow = ["--policy", str(ctx.home / "e2e-allow.toml")] if ctx.allow else []
    return ["gemini", "-p", prompt, "--output-format", "json", *allow]


# --- OpenCode ---------------------------------------------------------------------------------

def _opencode_env(ctx: Ctx) -> dict[str, str]:
    config = {"$schema": "https://opencode.ai/config.json", "model": "mock/mock-model",
              "provider": {"mock": {"npm": "@ai-sdk/openai-compatible", "name": "Mock",
                                    "options": {"baseURL": f"{ctx.url}/v1",
                                                "apiKey": "e2e-dummy"},
                                    "models": {"mock-model": {"name": "Mock model"}}}}}
    return base_env(ctx) | {
        "OPENCODE_CONFIG_CONTENT": json.dumps(config), "OPENCODE_DISABLE_MODELS_FETCH": "1",
        "OPENCODE_DISABLE_AUTOUPDATE": "1", "OPENCODE_DISABLE_LSP_DOWNLOAD": "1",
        "OPENCODE_DISABLE_SHARE": "1", "OPENCODE_DISABLE_DEFAULT_PLUGINS": "1"}


def _opencode_argv(ctx: Ctx, prompts: list[str], resume: str | None) -> list[str]:
    prompt = prompts[0]
    return ["opencode", "run", "--format", "json", prompt]


def _nothing(ctx: Ctx) -> None:
    return None


HOSTS: dict[str, Host] = {h.name: h for h in (
    Host("claude", "claude", API_BY_NAME["anthropic"], (("link", "claude"),), _nothing,
         _claude_env, _claude_argv, hooks=True),
    Host("codex", "codex", API_BY_NAME["responses"],
         (("link", "codex"), ("link", "--global", "codex")), _nothing, _codex_env, _codex_argv),
    # `link gemini` says a headless Gemini needs the user-level policy of `link --global`.
    Host("gemini", "gemini", API_BY_NAME["gemini"],
         (("link", "gemini"), ("link", "--global", "gemini")), _gemini_setup,
         _gemini_env, _gemini_argv),
    Host("opencode", "opencode", API_BY_NAME["chat"], (("link", "opencode"),), _nothing,
         _opencode_env, _opencode_argv),
)}
