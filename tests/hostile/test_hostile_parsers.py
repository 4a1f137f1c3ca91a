"""Hostile input to the candidate parser and the JSON-RPC line reader: property tests.

Whatever arrives, the candidate parser returns candidates or raises a coded EngramError, and the
line reader turns every line into a message, a blank, or a JSON-RPC error reply (-32700/-32600/
-32602) that encodes to exactly one line.
"""

from __future__ import annotations

import io
import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from engram.errors import EngramError
from engram.mcp import framing
from engram.mcp.protocol import INVALID_PARAMS, INVALID_REQUEST, PARSE_ERROR
from engram.proposals.candidates import MAX_CANDIDATES, Candidate, parse_candidates

FIELD = st.sampled_from(["TYPE", "TEXT", "CONTEXT", "DEPENDS_ON", "LEVEL", "UPDATE",
                         "SUPERSEDES", "ROLE", "TRIGGERS", "TAGS", "CONFIDENCE", "LIGHT",
                         "BALANCED", "STRICT", "BOGUS", "type", "Text"])
VALUE = st.text(alphabet=st.characters(blacklist_categories=["Cs"]), max_size=30) | st.sampled_from(
    ["rule", "skill", "knowledge", "advanced", "high", "../etc", "a,b", "аlways", "", " | ",
     "x" * 4001, "\x00", "\u2028", "TEXT: again"])
PIPE_LINE = st.lists(st.tuples(FIELD, VALUE), max_size=6).map(
    lambda pairs: " | ".join(f"{k}: {v}" for k, v in pairs))
JSONISH = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda c: st.lists(c, max_size=3) | st.dictionaries(st.text(max_size=10), c, max_size=3),
    max_leaves=10)


def _coded(exc: EngramError) -> None:
    assert exc.code and "." in exc.code and exc.hint


@given(st.lists(PIPE_LINE | st.text(max_size=60), max_size=10).map("\n".join),
       st.booleans())
@settings(max_examples=250, deadline=None)
def test_candidate_text_parses_or_raises_a_coded_error(text: str, single: bool) -> None:
    try:
        got = parse_candidates(text, single=single)
    except EngramError as exc:
        _coded(exc)
    else:
        assert 1 <= len(got) <= MAX_CANDIDATES
        assert all(isinstance(c, Candidate) and c.text for c in got)


@given(st.lists(st.dictionaries(FIELD.map(str.lower), VALUE | JSONISH, max_size=6) | JSONISH,
                max_size=10))
@settings(max_examples=250, deadline=None)
def test_candidate_objects_from_mcp_parse_or_raise_a_coded_error(items: list[Any]) -> None:
    try:
        got = parse_candidates(items)
    except EngramError as exc:
        _coded(exc)
    else:
        assert 1 <= len(got) <= MAX_CANDIDATES


def _assert_message(message: Any) -> None:
    if isinstance(message, framing.Fault):
        error = message.reply["error"]
        assert error["code"] in {PARSE_ERROR, INVALID_REQUEST, INVALID_PARAMS}
        line = framing.encode(message.reply)
        assert line.count(b"\n") == 1 and line.endswith(b"\n")
    else:
        assert message is None or isinstance(
            message, framing.Request | framing.Notification | framing.Response)


@given(st.binary(max_size=300))
@settings(max_examples=300, deadline=None)
def test_any_bytes_become_a_message_or_a_protocol_error(line: bytes) -> None:
    _assert_message(framing.classify(line))


@given(st.dictionaries(st.sampled_from(["jsonrpc", "id", "method", "params", "result", "error",
                                        "x"]), JSONISH, max_size=5),
       st.booleans())
@settings(max_examples=300, deadline=None)
def test_any_json_object_becomes_a_message_or_a_protocol_error(obj: dict[str, Any],
                                                               versioned: bool) -> None:
    if versioned:
        obj["jsonrpc"] = "2.0"
    _assert_message(framing.classify(json.dumps(obj).encode()))


@given(st.lists(st.binary(max_size=40), max_size=8), st.integers(min_value=1, max_value=32))
@settings(max_examples=300, deadline=None)
def test_line_reader_yields_each_line_or_none_for_an_oversized_one(chunks: list[bytes],
                                                                   cap: int) -> None:
    data = b"\n".join(chunks)
    lines = list(framing.read_lines(io.BytesIO(data), cap=cap))
    for line in lines:
        assert line is None or (len(line) <= cap + 1 and b"\n" not in line)
    assert len(lines) <= data.count(b"\n") + 1


def test_deep_nesting_and_huge_numbers_are_parse_errors_not_crashes() -> None:
    for raw in (b"[" * 100_000, b'{"a":' * 50_000, b"1" * 5000, b"\x00" * 1000):
        message = framing.classify(raw)
        assert isinstance(message, framing.Fault), raw[:10]
        assert message.reply["error"]["code"] in {PARSE_ERROR, INVALID_REQUEST}
