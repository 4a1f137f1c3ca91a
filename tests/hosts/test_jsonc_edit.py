"""The JSONC span editor: comments and trailing commas accepted, insert/remove are inverses."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engram.errors import HostConfigError
from engram.hosts import jsonc

ENTRY = {"command": "engram-mcp", "args": []}
SHAPES = [
    '{}', '{ }', '{\n}\n', '{"a": 1}', '{\n  "a": 1\n}\n', '{\n\t"a": [1, 2],\n}\n',
    '{ // top\n  "a": 1, // c\n  /* b */ "b": {"x": null}\n}\n',
    '{\n  // only a comment\n}\n',
    '{\n    "mcpServers": {\n        "x": {"command": "y"}\n    }\n}\n',
    '{\n  "mcpServers": {},\n  "z": "\\"q\\" // not a comment"\n}',
]


@pytest.mark.parametrize("text", SHAPES)
def test_set_then_delete_gives_the_text_back(text: str) -> None:
    new, created = jsonc.set_path(text, ["mcpServers", "engram"], ENTRY)
    assert jsonc.loads(new)["mcpServers"]["engram"] == ENTRY
    back = jsonc.delete_path(new, ["mcpServers", "engram"])
    for keys in reversed(created):
        back = jsonc.delete_path(back, keys)
    if text.strip() in ("{ }", "{\n}"):
        assert back.strip() == "{}"  # documented: whitespace inside an emptied object collapses
    else:
        assert back == text


def test_comments_and_trailing_commas_parse() -> None:
    data = jsonc.loads('{\n  // c\n  "a": [1, 2,],\n  /* d */ "b": "//x",\n}')
    assert data == {"a": [1, 2], "b": "//x"}


@pytest.mark.parametrize("bad", ['{"a": }', '{"a" 1}', "{", '{"a": 1} x', "[1 2]", '{"a": tru}',
                                 "/* open", '{"a": "x\n"}'])
def test_unparseable_text_raises_with_line_and_code(bad: str) -> None:
    with pytest.raises(HostConfigError) as err:
        jsonc.parse(bad, "f.json")
    assert err.value.code == "host.unparseable" and "line" in err.value.message


def test_replace_value_keeps_neighbours_bytes() -> None:
    text = '{\n  "a": {"command": "old"}, // keep\n  "b": 2\n}'
    node = jsonc.find(jsonc.parse(text), ["a"])
    assert node is not None
    new = jsonc.replace_value(text, node, {"command": "new"})
    assert new.endswith(', // keep\n  "b": 2\n}') and jsonc.loads(new)["a"]["command"] == "new"


def test_array_first_insert_and_remove_round_trip() -> None:
    text = '{"hooks": [\n    {"x": 1}\n]}'
    arr = jsonc.find(jsonc.parse(text), ["hooks"])
    assert arr is not None
    new = jsonc.insert_first(text, arr, None, {"y": 2})
    assert jsonc.loads(new)["hooks"] == [{"y": 2}, {"x": 1}]
    arr2 = jsonc.find(jsonc.parse(new), ["hooks"])
    assert arr2 is not None
    assert jsonc.remove_item(new, arr2, 0) == text


keys = st.text(alphabet="abcxyz_", min_size=1, max_size=4)
values = st.recursive(st.none() | st.booleans() | st.integers() | st.text(max_size=5),
                      lambda c: st.lists(c, max_size=3) | st.dictionaries(keys, c, max_size=3),
                      max_leaves=6)


@settings(max_examples=60, deadline=None)
@given(st.dictionaries(keys, values, max_size=4), st.sampled_from([None, 2, 4, "\t"]))
def test_any_json_object_round_trips_through_link_and_unlink(
    obj: dict[str, Any], indent: int | str | None
) -> None:
    obj.pop("mcpServers", None)
    text = json.dumps(obj, indent=indent)
    new, created = jsonc.set_path(text, ["mcpServers", "engram"], ENTRY)
    assert jsonc.loads(new) == {**obj, "mcpServers": {"engram": ENTRY}}
    back = jsonc.delete_path(new, ["mcpServers", "engram"])
    for k in reversed(created):
        back = jsonc.delete_path(back, k)
    assert jsonc.loads(back) == obj
