"""The hand-written contract snippets (tests/data/contracts/{zh,en}.yaml): every expected field, per case."""

from __future__ import annotations

import pytest
from contract_cases import field_errors, load_cases

from lastline.rules import RuleEngine

CASES = load_cases()


@pytest.fixture(scope="module")
def engine() -> RuleEngine:
    return RuleEngine()


def test_the_set_has_at_least_thirty_cases_in_both_languages() -> None:
    assert len(CASES) >= 30
    assert {c["lang"] for c in CASES} == {"zh", "en"}


@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_contract_fields_match_the_hand_written_answers(engine: RuleEngine, case: dict) -> None:
    assert field_errors(engine, case) == []
