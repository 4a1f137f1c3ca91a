"""An agent shows the human one proposal and commits another (the chat flow, no dialog).

The human gate of the token flow is the host's prompt to allow `engram_commit`, which shows the
call's arguments. A bare random token told the human nothing: an agent could propose A, show it,
propose B meanwhile and commit B's token under the prompt the human allowed for A. Every token
now starts with three words naming its proposal (proposals/codewords.py), which the proposal's
own text (what the host shows as the tool result) names, so the prompt's token can be compared
with what was shown. Driven through the real server with the official SDK client.
"""

from __future__ import annotations

import sys
from pathlib import Path

import anyio
from mcp import Client
from mcp.client.stdio import StdioServerParameters

from engram.cli.main import main as cli
from engram.proposals.codewords import WORDS, code_of
from tests.mcp_server.mcp_harness import FAKE_SERVER, checked_call, server_env


def _run(project: Path, body: object) -> None:
    async def main() -> None:
        params = StdioServerParameters(
            command=sys.executable, env=server_env(), cwd=str(project),
            args=[str(FAKE_SERVER), "--real-core", "--workspace", str(project),
                  "--no-elicitation"])
        async with Client(params, mode="legacy") as client:
            await body(client)  # type: ignore[operator]

    anyio.run(main)


def test_each_proposal_names_its_token_with_words_the_commit_prompt_shows(
        project: Path) -> None:
    assert cli(["init"]) == 0
    seen: dict[str, str] = {}

    async def body(client: Client) -> None:
        for text in ("Never force-push to main.", "Always tag releases from main."):
            got = await checked_call(client, "engram_save", {"text": text, "type": "rule"})
            token = got.structured_content["data"]["approval_token"]
            words = code_of(token)
            assert words is not None, token
            assert all(w in WORDS for w in words.split("-"))
            # Both forms a host may forward to the model name the words, spaced for reading.
            shown = words.replace("-", " ")
            assert f"this proposal's words, {shown}" in got.structured_content["text"]
            assert f"this proposal's words, {shown}" in got.content[0].text  # type: ignore[union-attr]
            seen[text] = token
        first, second = seen.values()
        assert code_of(first) != code_of(second) or first != second
        done = await checked_call(client, "engram_commit",
                                  {"approval_token": first, "approve": "all"})
        assert done.is_error is False

    _run(project, body)


def test_the_words_are_part_of_the_token_and_checked_with_it(project: Path) -> None:
    """Words swapped onto another token's randomness are not a token."""
    assert cli(["init"]) == 0

    async def body(client: Client) -> None:
        got = await checked_call(client, "engram_save",
                                 {"text": "Never force-push to main.", "type": "rule"})
        token = got.structured_content["data"]["approval_token"]
        words = code_of(token)
        assert words is not None
        other = next(w for w in WORDS if w not in words.split("-"))
        forged = "-".join([other, *token.split("-")[1:]])
        refused = await client.call_tool("engram_commit",
                                         {"approval_token": forged, "approve": "all"})
        assert refused.is_error is True
        assert "unknown approval token" in refused.content[0].text  # type: ignore[union-attr]

    _run(project, body)


def test_every_byte_names_one_distinct_plain_word() -> None:
    assert len(WORDS) == 256 and len(set(WORDS)) == 256
    assert all(w.isascii() and w.isalpha() and w.islower() for w in WORDS)


def test_an_agent_cannot_grind_proposals_until_the_words_match(project: Path) -> None:
    """The attacker's next try against the words: mint proposal after proposal until one's
    words match those of the proposal the human read (a first word matches in about 256 tries,
    all three in about 16 million). Proposals are capped per 30-minute window, so a grind stops
    long before it can match and says why."""
    from engram.proposals.approvals import MINT_LIMIT

    assert cli(["init"]) == 0
    firsts: set[str] = set()

    async def body(client: Client) -> None:
        for i in range(MINT_LIMIT):
            got = await checked_call(client, "engram_save",
                                     {"text": f"Fact number {i} about the build.",
                                      "type": "knowledge"})
            words = code_of(got.structured_content["data"]["approval_token"])
            assert words is not None
            firsts.add(words.split("-")[0])
        refused = await client.call_tool("engram_save", {"text": "One more fact about it.",
                                                         "type": "knowledge"})
        assert refused.is_error is True
        text = refused.content[0].text  # type: ignore[union-attr]
        assert "proposals" in text and "fix:" in text, text

    _run(project, body)
    assert len(firsts) > 1  # the words vary (64 draws from 256 words are never all one)
