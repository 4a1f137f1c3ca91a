"""An argument that matches neither form of an `anyOf` says every form it may take.

`engram_commit {approve: "1,3"}` (a model's usual slip) said only "must be one of 'all'", so the
model learnt nothing about the numbers form the tool description promises."""

from __future__ import annotations

import pytest

from tests.mcp_server.mcp_harness import InProcessServer


@pytest.mark.parametrize("approve", ["1,3", "none", 0, {"a": 1}])
def test_commit_approve_names_both_forms(raw_server: InProcessServer, approve: object) -> None:
    reply = raw_server.call("tools/call", {"name": "engram_commit", "arguments": {
        "approval_token": "t" * 20, "approve": approve}})
    text = reply["result"]["content"][0]["text"]
    assert reply["result"]["isError"] is True
    assert "'all'" in text and "array of integers" in text, text
