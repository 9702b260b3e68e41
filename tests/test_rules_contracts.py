"""The hand-written contract snippets (tests/data/contracts/{zh,en}.yaml): every expected field, per case."""

from __future__ import annotations

from pathlib import Path

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


# -- parties: "between A and B" also joins times, dates and counts ------------------------------
def test_times_between_which_work_happens_are_no_parties(engine: RuleEngine) -> None:
    """The 2 KB contract names its parties with addresses and reversed roles ("Customer" first); its
    maintenance window "between 2am and 4am" was read as the parties."""
    text = (Path(__file__).parent / "data" / "contracts" / "throughput_en.txt").read_text(encoding="utf-8")
    fields = engine.extract(text, pack="contract_en").fields
    assert (fields["party_a"], fields["party_b"]) == ("Harbor Analytics Inc.", "Northwind Logistics Ltd.")


@pytest.mark.parametrize("window", ["between 2am and 4am", "between 9:30 and 11:00", "between June 1 and June 30",
                                    "between 10 and 20 units", "between 4 pm and 6 pm"])
def test_a_window_before_the_parties_does_not_take_their_place(engine: RuleEngine, window: str) -> None:
    text = (f"SUPPLY AGREEMENT\nDeliveries are made {window} on working days.\n"
            "This agreement is made between Acme Widgets Ltd. and Beta Stores LLC. Total price: USD 5,000.")
    fields = engine.extract(text, pack="contract_en").fields
    assert (fields["party_a"], fields["party_b"]) == ("Acme Widgets Ltd.", "Beta Stores LLC")


def test_only_a_time_window_leaves_the_parties_missing(engine: RuleEngine) -> None:
    result = engine.extract("SERVICE AGREEMENT. Support is staffed between 2am and 4am. Total price: USD 900.",
                            pack="contract_en")
    assert (result.fields["party_a"], result.fields["party_b"]) == (None, None)
    assert not result.valid and "party_a" in result.missing


@pytest.mark.parametrize("name", ["3M Company", "7-Eleven, Inc.", "21st Century Insurance Co."])
def test_a_party_whose_name_starts_with_a_count_keeps_it(engine: RuleEngine, name: str) -> None:
    text = f"SUPPLY AGREEMENT between {name} (\"Seller\") and Beta Stores LLC (\"Buyer\"). Total price: USD 5,000."
    assert engine.extract(text, pack="contract_en").fields["party_a"] == name.split(",")[0]
