"""How a pack extraction reads and checks its fields: a labelled field's text is read for its kind only,
and the output schema is checked on every extraction — jsonschema-rs says whether it holds, jsonschema
words what is wrong. The two must agree on every output, or a field would pass or fail depending on
which one looked."""

from __future__ import annotations

from typing import Any

import jsonschema
import jsonschema_rs
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lastline.rules import RuleEngine, find_entities, load_pack
from lastline.rules.extract import extract_fields
from lastline.rules.normalizers import NormalizeError, normalize
from lastline.rules.packs import parse_pack_yaml

DECLARED = """
name: invoice_codes
rules:
  - id: code
    patterns: ['Code:\\s*(?P<value>\\S+)']
    normalizer: upper
  - id: total
    patterns: ['Total:\\s*(?P<value>[^\\n]+)']
    normalizer: money
schema:
  type: object
  properties:
    code: {anyOf: [{type: string, pattern: '^INV-[0-9]{4}$'}, {type: 'null'}]}
    total: {anyOf: [{type: object, required: [amount, currency],
                     properties: {currency: {enum: [USD, EUR]}}}, {type: 'null'}]}
  required: [code, total]
"""


def test_an_output_breaking_a_declared_schema_is_invalid_and_worded_by_field() -> None:
    pack = load_pack(parse_pack_yaml(DECLARED))
    good = extract_fields(pack, "Code: inv-2024\nTotal: USD 12.50")
    assert good.valid and good.errors == []
    bad = extract_fields(pack, "Code: x-1\nTotal: 12.50 GBP")
    assert bad.valid is False
    assert "schema: code: 'X-1' is not valid under any of the given schemas" in bad.errors, bad.errors
    assert any(e.startswith("schema: total: ") for e in bad.errors), bad.errors


JSON = st.recursive(st.none() | st.booleans() | st.integers(-5, 5) | st.floats(allow_nan=False, width=32)
                    | st.sampled_from(["", "USD", "INV-2024", "INV-12", "2024-06-15", "5"]),
                    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(
                        st.sampled_from(["amount", "currency", "code", "x"]), inner, max_size=3),
                    max_leaves=8)
FIELDS = ["party_a", "party_b", "contract_no", "effective_date", "amount", "penalty_rate", "payment_terms", "term",
          "code", "total"]


def _schemas() -> list[dict[str, Any]]:
    return [RuleEngine().pack("contract_en").schema, load_pack(parse_pack_yaml(DECLARED)).schema]


SCHEMAS = _schemas()


@given(st.dictionaries(st.sampled_from(FIELDS), JSON, max_size=10), st.sampled_from(range(len(SCHEMAS))))
@settings(max_examples=300, deadline=None)
def test_both_validators_agree_on_every_output(values: dict[str, Any], which: int) -> None:
    schema = SCHEMAS[which]
    assert jsonschema_rs.Draft202012Validator(schema).is_valid(values) == \
        jsonschema.Draft202012Validator(schema).is_valid(values)


def test_a_labelled_field_reads_its_kind_without_rivals_of_other_kinds() -> None:
    """A money rule's text is read for money only: a date reading of the same span does not take it,
    while find_entities, which does not know the kind, prefers the longer date."""
    text = "USD 5 May 2024"
    assert [e.type for e in find_entities(text, lang="en")] == ["date"]
    assert normalize("money", text, None, "en") == {"amount": "5", "currency": "USD"}
    assert normalize("date", text, None, "en") == "2024-05-05"


def test_a_number_field_still_reads_dates_as_rivals() -> None:
    """A year inside a date is no count: the number normalizer keeps the date grammars as rivals."""
    with pytest.raises(NormalizeError):
        normalize("number", "2024年6月15日", None, "zh")
