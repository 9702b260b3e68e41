"""repair_json: structural fixes only; gaps are refused, never filled."""

from __future__ import annotations

import contextlib
import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lastline.errors import InvalidInput
from lastline.rules import repair_json


@pytest.mark.parametrize(("text", "expected"), [
    ('```json\n{"a": 1, "b": [1,2,],}\n```', {"a": 1, "b": [1, 2]}),
    ("{'a': 'x', 'b': True, 'c': None}", {"a": "x", "b": True, "c": None}),
    ('{"a": {"b": [1, 2', {"a": {"b": [1, 2]}}),
    ('Here you go: {"a": 1} hope it helps', {"a": 1}),
    ("{a: 1, b: 'two'}", {"a": 1, "b": "two"}),
    ('[1, 2, 3', [1, 2, 3]),
    ('{"a": 1 "b": 2}', {"a": 1, "b": 2}),
    ('结果如下：\n```\n{"甲方": "A公司", "金额": 500000,}\n```', {"甲方": "A公司", "金额": 500000}),
])
def test_structural_damage_is_repaired(text: str, expected: object) -> None:
    assert repair_json(text) == expected


@pytest.mark.parametrize("text", [
    '{"a": }', '{"a": 1, "b"}', '{"a": "unterminated', '{"a":', "not json at all", "", '{"a": NaN}',
    '{"a" 1}',
])
def test_gaps_are_refused_not_guessed(text: str) -> None:
    with pytest.raises(InvalidInput):
        repair_json(text)


@pytest.mark.parametrize("text", ["[" * 100_000, "[1," * 50_000, '{"a":' * 30_000])
def test_deep_nesting_is_refused_not_a_recursion_error(text: str) -> None:
    with pytest.raises(InvalidInput, match="nested deeper"):
        repair_json(text)


def test_schema_is_enforced_with_a_clear_error() -> None:
    schema = {"type": "object", "properties": {"amount": {"type": "number"}}, "required": ["amount"]}
    assert repair_json('{"amount": 5,}', schema) == {"amount": 5}
    with pytest.raises(InvalidInput, match="amount"):
        repair_json('{"amount": "five"}', schema)
    with pytest.raises(InvalidInput, match="required"):
        repair_json("{}", schema)


_json = st.recursive(
    st.none() | st.booleans() | st.integers(-10**6, 10**6) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=5), inner, max_size=4),
    max_leaves=12,
)


@given(_json)
@settings(max_examples=200, deadline=None)
def test_valid_json_round_trips_unchanged(value: object) -> None:
    assert repair_json(json.dumps(value, ensure_ascii=False)) == value


@given(st.dictionaries(st.text(alphabet="abcxyz", min_size=1, max_size=5), st.integers(0, 99), min_size=1, max_size=5))
@settings(max_examples=200, deadline=None)
def test_truncated_closing_brackets_and_trailing_commas_round_trip(value: dict[str, int]) -> None:
    text = json.dumps(value)
    assert repair_json(text[:-1]) == value
    assert repair_json(text[:-1] + ",}") == value
    assert repair_json(f"```json\n{text}\n```") == value


@given(st.text(max_size=80))
@settings(max_examples=300, deadline=None)
def test_any_text_repairs_or_raises_invalid_input(text: str) -> None:
    with contextlib.suppress(InvalidInput):
        repair_json(text)
