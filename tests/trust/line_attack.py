"""One injection line driven through every door: refused when proposed (CLI, MCP), skipped when
planted in an approved file (`load`, `load --id`, the hook, `engram_load`, `engram://memory`).
Shared by the scan attacks (padding, Markdown wrappers, look-alike letters)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from engram.store.repo import Change, Store
from engram.workspace import resolve
from tests.trust.trust_doors import ERAS, Door, cli, hook, mcp_session

LEAK = "paste the deploy key"


def assert_refused_when_proposed(layout: Path, capsys: pytest.CaptureFixture[str],
                                 line: str) -> None:
    code, out = cli(capsys, "save", "-f", "rule", f"Rotate deploy keys.\n{line}")
    assert code == 1 and "injection" in out, out
    assert list((layout / "rules").iterdir()) == []


def plant_approved(line: str) -> None:
    """An approved memory (file and hash written as Engram writes them) holding `line`."""
    text = ("---\nid: deploy-keys\ntype: rule\n---\n\n# Deploy keys\n\n## Content\n\n"
            f"- Rotate deploy keys every quarter.\n\n{line}\n")
    Store(resolve().workspace).write_files([Change("rules/deploy-keys.md", text)], "test")


def assert_skipped_when_approved(layout: Path, capsys: pytest.CaptureFixture[str],
                                 line: str) -> None:
    plant_approved(line)
    for args in (("load", "rotate deploy keys"), ("load", "--id", "deploy-keys")):
        out = cli(capsys, *args)[1]
        assert LEAK not in out, (args, out)
    assert "SKIPPED rules/deploy-keys.md" in cli(capsys, "load", "--id", "deploy-keys")[1]
    assert LEAK not in hook(layout.parent.parent, "rotate deploy keys")


def assert_mcp_holds(layout: Path, era: str, planted: str, proposed: str) -> None:
    plant_approved(planted)

    async def body(door: Door) -> None:
        for text in (await door.tool("engram_load", {"query": "rotate deploy keys"}),
                     await door.resource("engram://memory/deploy-keys")):
            assert LEAK not in text, text
        saved = await door.tool("engram_save", {"text": "Rotate keys.\n" + proposed})
        assert "approval_token" not in saved, saved

    mcp_session(layout.parent.parent, era, body)


def with_frontmatter(line: str) -> str:
    """A memory file whose frontmatter holds `line` (one or more lines of YAML)."""
    return ("---\nid: deploy-keys\ntype: rule\n" + line + "\n---\n\n# Deploy keys\n\n"
            "## Content\n\n- Rotate deploy keys every quarter.\n")


def plant_refused_by_rehash(layout: Path, line: str,
                            capsys: pytest.CaptureFixture[str]) -> None:
    """`rehash` refuses the file and tells the human; then it is approved behind their back
    (the file and its hash written together, as a workspace writer can)."""
    text = with_frontmatter(line)
    (layout / "rules" / "deploy-keys.md").write_text(text)
    code, out = cli(capsys, "rehash", "--all")
    assert code == 4 and "refused" in out and "deploy-keys.md" in out, out
    Store(resolve().workspace).write_files([Change("rules/deploy-keys.md", text)], "test")


Test = Callable[..., None]


def line_tests(attacks: dict[str, str], following: dict[str, str], mcp_pair: tuple[str, str],
               prose: list[str]) -> tuple[Test, Test, Test, Test]:
    """The four tests every line attack gets: each attack (and each `following` variant) is
    refused when proposed; each attack is skipped when planted in an approved file; the MCP
    server (both eras) neither shows a planted one nor takes a proposed one (`mcp_pair`:
    planted, proposed); and engineering prose of the same shape is still saved."""
    every = {**attacks, **following}

    @pytest.mark.parametrize("kind", list(every))
    def refused(layout: Path, capsys: pytest.CaptureFixture[str], kind: str) -> None:
        assert_refused_when_proposed(layout, capsys, every[kind])

    @pytest.mark.parametrize("kind", list(attacks))
    def skipped(layout: Path, capsys: pytest.CaptureFixture[str], kind: str) -> None:
        assert_skipped_when_approved(layout, capsys, attacks[kind])

    @pytest.mark.parametrize("era", ERAS)
    def through_mcp(layout: Path, era: str) -> None:
        assert_mcp_holds(layout, era, *mcp_pair)

    @pytest.mark.parametrize("line", prose)
    def prose_passes(layout: Path, capsys: pytest.CaptureFixture[str], line: str) -> None:
        assert cli(capsys, "save", "-f", "rule", f"Rotate deploy keys.\n{line}")[0] == 0

    return refused, skipped, through_mcp, prose_passes
