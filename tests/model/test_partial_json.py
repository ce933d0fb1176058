"""Reading a tool call's JSON arguments while they stream (``stream_tool_parsing``)."""

from __future__ import annotations

import json

import pytest

from nb_hitl.model._partial_json import parse_partial_object


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("", {}),
        ("{", {}),
        ('{"ci', {}),  # a key still arriving
        ('{"city"', {}),
        ('{"city":', {}),  # a key without its value yet
        ('{"city": "Par', {"city": "Par"}),  # an open string is closed
        ('{"city": "Paris", "da', {"city": "Paris"}),
        ('{"city": "Paris", "days": 1', {"city": "Paris", "days": 1}),
        ('{"a": 1, "b": tr', {"a": 1}),  # a half-written literal is left out
        ('{"a": [1, 2,', {"a": [1, 2]}),
        ('{"a": {"b": [1, {"c": "x', {"a": {"b": [1, {"c": "x"}]}}),
        ('{"a": "say \\"hi', {"a": 'say "hi'}),  # escaped quotes stay inside the string
        ('{"a": "x\\', {"a": "x"}),  # a cut escape is left out
        ('{"a": 1}', {"a": 1}),
        ("[1, 2", {}),  # tool arguments are an object
        ('{"a": 1}}', {}),  # unbalanced: nothing is made up
    ],
)
def test_partial_objects(text: str, expected: dict[str, object]) -> None:
    assert parse_partial_object(text) == expected


def test_every_prefix_of_real_arguments_reads_as_a_prefix_of_the_result() -> None:
    full = {"path": "notes/a b.txt", "lines": [1, 2, 30], "opts": {"force": True, "mode": "w"}}
    text = json.dumps(full)
    seen_keys: list[str] = []
    for end in range(len(text) + 1):
        partial = parse_partial_object(text[:end])
        assert set(partial) <= set(full)
        keys = list(partial)
        assert keys[: len(seen_keys)] == seen_keys[: len(keys)]  # keys never go away
        seen_keys = max(seen_keys, keys, key=len)
    assert parse_partial_object(text) == full
