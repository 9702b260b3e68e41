"""docs/rules.md: the public names are pinned and the documented examples give the documented results."""

from __future__ import annotations

from datetime import datetime

import pytest

import lastline.rules
from lastline.errors import InvalidInput
from lastline.rules import find_entities, repair_json


def test_rules_public_names() -> None:
    assert sorted(lastline.rules.__all__) == sorted([
        "BUILTIN_DIR", "ENTITY_TYPES", "Entity", "ExtractResult", "Pack", "PackError", "PatternTimeout", "Rule",
        "RuleEngine", "UserPattern", "compile_pattern", "find_entities", "load_pack", "load_pack_file",
        "parse_number", "render_template", "repair_json",
    ])


def test_entities_example_from_the_docs() -> None:
    found = find_entities("下周三下午3点付人民币伍拾万元整", reference_time=datetime(2024, 6, 12, 10))
    assert [e.to_dict() for e in found] == [
        {"type": "datetime", "text": "下周三下午3点", "start": 0, "end": 7, "value": "2024-06-19T15:00:00"},
        {"type": "money", "text": "人民币伍拾万元整", "start": 8, "end": 16,
         "value": {"amount": "500000", "currency": "CNY"}},
    ]


def test_documented_equal_amounts() -> None:
    values = {str(find_entities(t)[0].value) for t in ("五千元", "5000元", "5,000元", "伍仟元")}
    assert values == {str({"amount": "5000", "currency": "CNY"})}


def test_repair_example_from_the_docs() -> None:
    text = 'Sure! ```json\n{"amount": 5, "items": [1, 2,],\n```'
    assert repair_json(text, schema={"type": "object"}) == {"amount": 5, "items": [1, 2]}
    with pytest.raises(InvalidInput, match="refusing to guess"):
        repair_json('{"amount": }')


@pytest.mark.parametrize(("text", "reference", "expected"), [
    ("later this week", datetime(2024, 6, 10, 10), [("daterange", "later this week", "2024-06-13/2024-06-17")]),
    ("later this week", datetime(2024, 6, 14, 10), [("daterange", "later this week", "2024-06-14/2024-06-17")]),
    ("labor day weekend", datetime(2024, 6, 10, 10),
     [("daterange", "labor day weekend", "2024-08-31/2024-09-03")]),
    ("40 000", None, [("number", "40 000", "40000")]),
    ("rooms 101 102", None, [("number", "101", "101"), ("number", "102", "102")]),
    ("one of the best", None, [("number", "one", "1")]),
    ("which one", None, []),
    ("how can one apply", None, []),
    ("Tel: 555 0188", None, [("phone", "555 0188", "5550188")]),
    ("500 1000 notes", None, [("number", "500", "500"), ("number", "1000", "1000")]),
    ("0049 171 1234567", None, [("phone", "0049 171 1234567", "+491711234567")]),
    ("two hundred and fifty-four hundredths", None,
     [("number", "two hundred and fifty-four hundredths", "200.54")]),
    ("1/2-3/4", None, [("number", "1/2", "0.5"), ("number", "3/4", "0.75")]),
    ("two nights", None, [("duration", "two nights", "P2D")]),
    ("a night out", None, []),
    ("christmas eve at 6 p.m.", datetime(2024, 6, 10, 10),
     [("date", "christmas eve", "2024-12-24"), ("time", "6 p.m.", "18:00:00")]),
    ("closed for the day", datetime(2024, 6, 10, 10), [("date", "the day", "2024-06-10")]),
    ("meal of the day", datetime(2024, 6, 10, 10), []),
    ("one hundred thirty fifths", None, [("number", "one hundred thirty fifths", "2.857142857142857")]),
    ("> 2019", None, [("daterange", "> 2019", "2020/..")]),
    ("price > 1500", None, [("number", "1500", "1500")]),
])
def test_documented_conventions(text: str, reference: datetime | None, expected: list[tuple[str, str, object]]) -> None:
    assert [(e.type, e.text, e.value) for e in find_entities(text, reference_time=reference)] == expected
