"""English numbers, amounts and rates by construction: one test per kind of expression, on sentences
written for these tests (not taken from the evaluation specs), and properties over generated values."""

from __future__ import annotations

from decimal import Decimal

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_rules_normalizer_properties import words

from lastline.rules import find_entities


def _one(text: str, type_: str) -> tuple[str, object]:
    found = [(e.text, e.value) for e in find_entities(text, lang="en") if e.type == type_]
    assert len(found) == 1, (text, found)
    return found[0]


def _money(text: str) -> tuple[str, str, str]:
    span, value = _one(text, "money")
    assert isinstance(value, dict)
    return span, value["amount"], value["currency"]


# -- numbers ---------------------------------------------------------------------------------
@pytest.mark.parametrize(("text", "span", "value"), [
    ("the needle moved point five of a degree", "point five", "0.5"),           # a decimal with no whole part
    ("we ordered half a dozen bagels", "half a dozen", "6"),                    # half of a dozen
    ("they baked a dozen and a half loaves", "a dozen and a half", "18"),       # a fraction of the scale before it
    ("the fund raised two million and a half", "two million and a half", "2500000"),
    ("she sold one and a half million copies", "one and a half million", "1500000"),  # a scale after the fraction
    ("about three and a half thousand fans came", "three and a half thousand", "3500"),
    ("the reading was negative 7.25 at noon", "negative 7.25", "-7.25"),        # a sign word before digits
    ("the lake froze at minus 12", "minus 12", "-12"),
    ("the city spent a million on roads", "a million", "1000000"),              # an article is the count
    ("a trillion stars", "a trillion", "1000000000000"),
    ("a thousand and one nights", "a thousand and one", "1001"),
    ("he ate a fifth of the pie", "a fifth", "0.2"),                            # a fraction by article
    ("seventy - three hundred fifths of it", "seventy - three hundred fifths", "1460"),  # ordinal took its numerator
    ("only .75 million remain", ".75 million", "750000"),                       # a bare decimal before a scale
    ("the index moved -3/8 today", "-3/8", "-0.375"),                           # a signed fraction is no date
    ("the account shows minus 2,500", "minus 2,500", "-2500"),                  # a sign word before grouped digits
    ("they lost a quarter of a million", "a quarter of a million", "250000"),   # a fraction of a scale
    ("we sold half of a dozen", "half of a dozen", "6"),
    ("a population of 1.234.567", "1.234.567", "1234567"),                      # thousands grouped by dots
])
def test_english_number_constructions(text: str, span: str, value: str) -> None:
    assert _one(text, "number") == (span, value)


def test_a_difference_keeps_its_minuend_and_subtrahend_apart() -> None:
    """``10 minus 3`` is two numbers, not ten and negative three."""
    assert [e.value for e in find_entities("10 minus 3 is seven", lang="en") if e.type == "number"] == \
        ["10", "3", "7"]


def test_a_point_after_a_number_is_still_its_decimal() -> None:
    assert _one("it weighs six point two five kilos", "number") == ("six point two five", "6.25")


@given(st.integers(min_value=1, max_value=999), st.sampled_from(["thousand", "million", "billion"]))
@settings(max_examples=150, deadline=None)
def test_a_count_and_a_half_of_a_scale_is_one_and_a_half_of_it(n: int, scale: str) -> None:
    unit = {"thousand": 10**3, "million": 10**6, "billion": 10**9}[scale]
    text = f"{words(n) if n > 1 else 'one'} and a half {scale}"
    span, value = _one(text, "number")
    assert (span, Decimal(str(value))) == (text, (Decimal(n) + Decimal("0.5")) * unit)


@given(st.integers(min_value=2, max_value=10**9 - 1))
@settings(max_examples=150, deadline=None)
def test_minus_before_any_worded_or_digit_integer_negates_it(n: int) -> None:
    for body in (words(n), str(n)):
        text = f"the balance is minus {body}"
        span, value = _one(text, "number")
        assert (span, value) == (f"minus {body}", str(-n))


# -- money -----------------------------------------------------------------------------------
@pytest.mark.parametrize(("text", "span", "amount", "currency"), [
    ("lunch was ten bucks", "ten bucks", "10", "USD"),                              # any currency word after words
    ("a fee of fifty swiss francs", "fifty swiss francs", "50", "CHF"),
    ("the stamp costs twenty pence", "twenty pence", "20", "GBX"),
    ("a tip of twenty-five cents", "twenty-five cents", "0.25", "USD"),             # cents alone: hundredths
    ("gum for 99 cents", "99 cents", "0.99", "USD"),
    ("coffee for 80¢", "80¢", "0.8", "USD"),
    ("shipping was AU$ 45", "AU$ 45", "45", "AUD"),                                 # more dollar prefixes
    ("rent of R$ 1,800", "R$ 1,800", "1800", "BRL"),
    ("the airline paid hk $ 300 million", "hk $ 300 million", "300000000", "HKD"),  # newswire lower case
    ("a charge of eur 1,250", "eur 1,250", "1250", "EUR"),
    ("the shares rose to $ 4 1/4", "$ 4 1/4", "4.25", "USD"),                       # share-price fraction
    ("a bottle costs € 4,99 here", "€ 4,99", "4.99", "EUR"),                        # decimal comma
    ("the car costs 12.499,90 EUR", "12.499,90 EUR", "12499.9", "EUR"),
    ("a 2 trillion dollar economy", "2 trillion dollar", "2000000000000", "USD"),
    ("debt of $1.8 trillion", "$1.8 trillion", "1800000000000", "USD"),
    ("a $4.5B deal", "$4.5B", "4500000000", "USD"),
    ("the visa costs 3,000 rubles", "3,000 rubles", "3000", "RUB"),                 # a unit without its country
    ("dinner was ฿ 450", "฿ 450", "450", "THB"),                                    # more symbols
    ("a room at 2 500 ₽", "500 ₽", "500", "RUB"),
    ("he won a million dollars", "a million dollars", "1000000", "USD"),
    ("the villa sold for 2.500.000 EUR", "2.500.000 EUR", "2500000", "EUR"),
])
def test_english_money_constructions(text: str, span: str, amount: str, currency: str) -> None:
    assert _money(text) == (span, amount, currency)


def test_one_dot_group_stays_a_decimal() -> None:
    assert _one("the ratio is 1.234 today", "number") == ("1.234", "1.234")


def test_a_thousands_comma_is_not_a_decimal_comma() -> None:
    assert _money("a bill of $20,300 arrived") == ("$20,300", "20300", "USD")


def test_a_decimal_comma_is_read_only_beside_a_currency() -> None:
    assert [(e.type, e.value) for e in find_entities("pages 3,50 and 7", lang="en")
            if e.type in ("number", "money")] == [("number", "3"), ("number", "50"), ("number", "7")]


def test_won_the_verb_is_no_currency() -> None:
    assert not [e for e in find_entities("they won 5 games", lang="en") if e.type == "money"]


@given(st.integers(min_value=0, max_value=10**9), st.integers(min_value=0, max_value=99))
@settings(max_examples=200, deadline=None)
def test_decimal_comma_amounts_round_trip(whole: int, cents: int) -> None:
    grouped = f"{whole:,}".replace(",", ".")
    text = f"pay € {grouped},{cents:02d} today"
    expected = Decimal(whole) + Decimal(cents) / 100
    span, amount, currency = _money(text)
    assert (span, Decimal(amount), currency) == (f"€ {grouped},{cents:02d}", expected, "EUR")


@given(st.integers(min_value=1, max_value=999))
@settings(max_examples=100, deadline=None)
def test_worded_cents_are_hundredths_of_a_dollar(n: int) -> None:
    text = f"it was {words(n) if n > 1 else 'one'} cents"
    span, amount, currency = _money(text)
    assert (span, Decimal(amount), currency) == (text[7:], Decimal(n) / 100, "USD")


# -- percent ---------------------------------------------------------------------------------
@pytest.mark.parametrize(("text", "span", "value"), [
    ("rates rose one percent", "one percent", "1"),                       # a lone one before percent
    ("fees fell half a percent", "half a percent", "0.5"),
    ("a cut of three quarters of a percent", "three quarters of a percent", "0.75"),
    ("spreads widened 40bp", "40bp", "0.4"),                               # basis point, singular abbreviation
    ("shares fell 7pc on Monday", "7pc", "7"),                             # British per cent abbreviation
    ("a 12 per-cent stake", "12 per-cent", "12"),
    ("growth of 3 p.c. a year", "3 p.c.", "3"),
    ("prices rose 2 percent of 2023 levels", "2 percent", "2"),            # a rate before "percent of"
    ("the loan is minus 2 percent", "minus 2 percent", "-2"),
    ("turnout rose 4 per cents", "4 per cents", "4"),                      # the plural as some write it
])
def test_english_percent_constructions(text: str, span: str, value: str) -> None:
    assert _one(text, "percent") == (span, value)


def test_a_set_of_pieces_is_no_percent() -> None:
    assert not [e for e in find_entities("a 10 pc set of knives", lang="en") if e.type == "percent"]


def test_percent_of_a_number_named_after_it_is_still_that_rate() -> None:
    assert _one("a fee of percent of 15", "percent") == ("percent of 15", "15")
