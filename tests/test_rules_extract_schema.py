"""A pack's output schema is checked on every extraction: jsonschema-rs says whether it holds,
jsonschema words what is wrong. The two must agree on every output, or a field would pass or fail
depending on which one looked."""

from __future__ import annotations

from typing import Any

import jsonschema
import jsonschema_rs
from hypothesis import given, settings
from hypothesis import strategies as st

from lastline.rules import RuleEngine, load_pack
from lastline.rules.extract import extract_fields
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
