"""English numbers, amounts and rates by construction: one test per kind of expression, on sentences
written for these tests (not taken from the evaluation specs), and properties over generated values."""

from __future__ import annotations

from decimal import Decimal

import pytest
from hypothesis import assume, given, settings
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
    ("she ate 1/4 of the cake", "1/4", "0.25"),                                 # a bare digit fraction
    ("about 3/8 of the fleet", "3/8", "0.375"),
    ("the ratio is 1,3 now", "1,3", "1.3"),                                     # a decimal comma, one decimal
    ("the shift lasts point seven five of a day", "point seven five", "0.75"),  # decimals read digit by digit
    ("sales of one point two million units", "one point two million", "1200000"),  # a worded decimal and a scale
    ("three point five billion people", "three point five billion", "3500000000"),
    ("we used 1 and 1/2 cups of flour", "1 and 1/2", "1.5"),                   # a whole and a digit fraction
    ("the rate fell minus 1/2 a point", "minus 1/2", "-0.5"),                   # a sign word before a fraction
    ("we sold 3/4 of a million copies", "3/4 of a million", "750000"),         # a digit fraction of a scale
    ("add 1⁄2 cup of milk", "1⁄2", "0.5"),                                      # the fraction slash
    ("a grant of 1,00,000 for the school", "1,00,000", "100000"),              # lakhs grouped as India writes them
    ("reserves of 12,34,56,789.50 in all", "12,34,56,789.50", "123456789.5"),
    ("the town has five lakh people", "five lakh", "500000"),                  # India's scales in words
    ("a budget of one crore twenty lakh", "one crore twenty lakh", "12000000"),  # a crore and the lakhs after it
    ("they hired a lakh of workers", "a lakh", "100000"),
    ("about two and a half lakh voters", "two and a half lakh", "250000"),
    ("we shipped 3 millions units", "3 millions", "3000000"),                  # a plural scale after digits
    ("the firm has 2 thousands staff", "2 thousands", "2000"),
    ("revenue of 5MM last quarter", "5MM", "5000000"),                         # finance's million
    ("order 3 doz roses", "3 doz", "36"),                                      # dozens abbreviated
    ("order 4 dz tulips", "4 dz", "48"),
    ("we baked 12 dozens", "12 dozens", "144"),
    ("one millionth of a metre", "one millionth", "0.000001"),                 # one and a scale's ordinal
    ("one thousandth of the dose", "one thousandth", "0.001"),
    ("one over three is the ratio", "one over three", "0.333333333333333"),   # over, with a verb after it
    ("ten point twenty five", "ten point twenty five", "10.25"),              # point and a worded pair of digits
    ("1 1/2 million fans", "1 1/2 million", "1500000"),                        # a mixed fraction of a scale
    ("5 1/2 dozen eggs", "5 1/2 dozen", "66"),
    ("3/4 million tickets", "3/4 million", "750000"),
    ("- 5 is the answer", "- 5", "-5"),                                        # a spaced minus opening a line
    ("x = - 12.5 here", "- 12.5", "-12.5"),                                    # … or after an equals sign
    ("one hundred seventy and one fourth", "one hundred seventy and one fourth", "170.25"),  # a whole and one part
    ("thirteen twenty-firsts of the vote", "thirteen twenty-firsts", "0.619047619047619"),  # a plural "firsts"
])
def test_english_number_constructions(text: str, span: str, value: str) -> None:
    assert _one(text, "number") == (span, value)


def test_a_spaced_minus_between_numbers_is_no_sign() -> None:
    """``3 - 5`` is a difference or a range: the minus is a sign only where nothing before could make it a dash."""
    assert [e.value for e in find_entities("pages 3 - 5", lang="en") if e.type == "number"] == ["3", "5"]


def test_an_amount_spread_over_years_is_no_fraction() -> None:
    assert [(e.type, e.text) for e in find_entities("pay 500 over 3 years", lang="en")] == \
        [("number", "500"), ("duration", "3 years")]


def test_a_second_is_no_half() -> None:
    """``a second`` is a moment or the next one, never 1/2 (``a third`` is a fraction)."""
    assert [(e.text, e.value) for e in find_entities("a hundredth of a second", lang="en") if e.type == "number"] \
        == [("a hundredth", "0.01")]


@pytest.mark.parametrize(("text", "span", "numerator", "denominator"), [
    ("she got four hundred twenty thirds of it", "four hundred twenty thirds", 400, 23),  # tens word + ordinal
    ("a share of six hundred ninety sevenths", "six hundred ninety sevenths", 600, 97),
    ("three hundred one thousand eighths in all", "three hundred one thousand eighths", 300, 1008),  # 1008th
    ("four hundred twenty-three thirds", "four hundred twenty-three thirds", 423, 3),  # hyphened: one numerator
    ("forty sixths of the pot", "forty sixths", 40, 6),  # nothing left to be a numerator
])
def test_a_tens_word_or_one_thousand_before_a_unit_ordinal_is_part_of_the_denominator(
        text: str, span: str, numerator: int, denominator: int) -> None:
    found, value = _one(text, "number")
    assert found == span
    assert abs(Decimal(str(value)) - Decimal(numerator) / Decimal(denominator)) < Decimal("1e-12")


def test_a_g_after_digits_is_no_scale() -> None:
    """``4G`` is a network generation far more often than four billion, and ``10g`` is grams."""
    assert _one("is 4G faster here", "number") == ("4", "4")
    assert _one("add 10g of sugar", "number") == ("10", "10")


def test_a_lower_case_mm_is_millimetres() -> None:
    assert [(e.text, e.value) for e in find_entities("a 5mm screw", lang="en") if e.type == "number"] == [("5", "5")]


def test_one_hundred_fifth_stays_an_ordinal() -> None:
    """Only ``one`` before a scale's ordinal makes a fraction of it: ``one hundred fifth`` is the 105th."""
    assert not [e for e in find_entities("the one hundred fifth day", lang="en") if e.type == "number"]


def test_a_mixed_fraction_of_an_hour_is_one_duration() -> None:
    assert [(e.type, e.text, e.value) for e in find_entities("it took 1 1/2 hours", lang="en")] == \
        [("duration", "1 1/2 hours", "PT1.5H")]


@given(st.lists(st.integers(min_value=0, max_value=99), min_size=1, max_size=4), st.integers(1, 99),
       st.integers(0, 999))
@settings(max_examples=150, deadline=None)
def test_indian_grouping_reads_the_digits_it_groups(pairs: list[int], head: int, tail: int) -> None:
    grouped = ",".join([str(head), *(f"{p:02d}" for p in pairs), f"{tail:03d}"])
    span, value = _one(f"a total of {grouped} units", "number")
    assert (span, value) == (grouped, str(int(grouped.replace(",", ""))))


def test_a_slash_date_stays_a_date() -> None:
    """A bare fraction is only proposed: where a date grammar reads the same span, the date wins."""
    assert [(e.type, e.text) for e in find_entities("we met on 1/4 at the office", lang="en")
            if e.type in ("date", "number")] == [("date", "1/4")]


def test_a_month_and_its_year_is_no_fraction() -> None:
    assert not [e for e in find_entities("the 3/2024 invoice", lang="en") if e.type == "number" and "/" in e.text]


def test_a_decimal_comma_list_stays_apart() -> None:
    assert [e.value for e in find_entities("rows 1,3,5 only", lang="en") if e.type == "number"] == ["1", "3", "5"]


def test_a_comma_between_chinese_items_is_no_decimal() -> None:
    assert [e.value for e in find_entities("见第1,3条", lang="zh") if e.type == "number"] == ["1", "3"]


@given(st.integers(min_value=2, max_value=999).flatmap(lambda den: st.tuples(st.integers(1, den - 1), st.just(den))))
@settings(max_examples=150, deadline=None)
def test_a_bare_proper_digit_fraction_is_its_quotient(fraction: tuple[int, int]) -> None:
    num, den = fraction
    text = f"about {num}/{den} of the stock"
    found = [(e.type, e.text, e.value) for e in find_entities(text, lang="en") if e.text == f"{num}/{den}"]
    assert len(found) == 1, found
    type_, _, value = found[0]
    # a slash a date grammar reads (3/12) stays a date; every other is the fraction
    quotient = Decimal(num) / Decimal(den)
    assert type_ == "date" or (type_ == "number" and abs(Decimal(str(value)) - quotient) < Decimal("1e-12"))


@given(st.integers(min_value=1, max_value=9), st.lists(st.integers(min_value=0, max_value=9), min_size=1, max_size=4))
@settings(max_examples=150, deadline=None)
def test_worded_decimals_read_digit_by_digit(whole: int, digits: list[int]) -> None:
    names = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine"]
    phrase = f"{names[whole]} point {' '.join(names[d] for d in digits)}"
    span, value = _one(f"it measured {phrase} metres", "number")
    assert (span, Decimal(str(value))) == (phrase, Decimal(f"{whole}.{''.join(map(str, digits))}"))


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
    ("a room at 2 500 ₽", "2 500 ₽", "2500", "RUB"),                               # thousands spaced out
    ("he won a million dollars", "a million dollars", "1000000", "USD"),
    ("the villa sold for 2.500.000 EUR", "2.500.000 EUR", "2500000", "EUR"),
    ("it costs a dollar", "a dollar", "1", "USD"),                                  # the article is the count
    ("a pint for 4 quid", "4 quid", "4", "GBP"),                                    # slang names
    ("send 0.5 BTC today", "0.5 BTC", "0.5", "BTC"),                                # a crypto code
    ("a deal of $1.2bn", "$1.2bn", "1200000000", "USD"),
    ("a fee of USD 30", "USD 30", "30", "USD"),
    ("it was 30 bucks", "30 bucks", "30", "USD"),
    ("he paid 20 Jamaican dollars", "20 Jamaican dollars", "20", "JMD"),             # a unit with its country
    ("a fine of 10 Kuwaiti dinars", "10 Kuwaiti dinars", "10", "KWD"),
    ("rent of 2,000 Chilean pesos", "2,000 Chilean pesos", "2000", "CLP"),
    ("it cost 100 American dollars", "100 American dollars", "100", "USD"),
    ("a gift of 50 South Korean won", "50 South Korean won", "50", "KRW"),
    ("a tip of 5 kuai", "5 kuai", "5", "CNY"),
    ("the bill came to 5 pounds 50 pence", "5 pounds 50 pence", "5.5", "GBP"),      # a major and a minor unit
    ("the bill came to five pounds fifty pence", "five pounds fifty pence", "5.5", "GBP"),
    ("the fare is twenty rubles fifty kopecks", "twenty rubles fifty kopecks", "20.5", "RUB"),
    ("a meal at 100 pesos and 50 centavos", "100 pesos and 50 centavos", "100.5", "MXN"),
    ("it came to 100 dollars and fifty cents", "100 dollars and fifty cents", "100.5", "USD"),
    ("a fine of 10 Kuwaiti dinars 500 fils", "10 Kuwaiti dinars 500 fils", "10.5", "KWD"),  # fils are thousandths
    ("a sweet for £1 20p", "£1 20p", "1.2", "GBP"),
    ("a stamp for 50 kopecks", "50 kopecks", "0.5", "RUB"),                         # a minor unit alone
    ("a fee of fifty kopecks", "fifty kopecks", "0.5", "RUB"),
    ("a tip of 300 satoshis", "300 satoshis", "0.000003", "BTC"),
    ("a coin of 10 euro cents", "10 euro cents", "0.1", "EUR"),
    ("a bag for 50p", "50p", "50", "GBX"),                                          # pence joined to their p
    ("gum for $.50 each", "$.50", "0.5", "USD"),                                    # a symbol and a bare decimal
    ("a box for 2000 ¥ there", "2000 ¥", "2000", "JPY"),                           # ¥ after the amount
    ("it costs € 3,50.", "€ 3,50", "3.5", "EUR"),                                   # a decimal comma ending a sentence
    ("a salary of ₹2,00,000", "₹2,00,000", "200000", "INR"),                        # Indian grouping
    ("a deal worth $5MM", "$5MM", "5000000", "USD"),                                # finance's million
    ("an outlay of 3 millions dollars", "3 millions dollars", "3000000", "USD"),    # a plural scale
])
def test_english_money_constructions(text: str, span: str, amount: str, currency: str) -> None:
    assert _money(text) == (span, amount, currency)


def test_minor_units_of_another_currency_stay_apart() -> None:
    """Pence follow pounds, not dollars: ``5 dollars 50 pence`` is two amounts."""
    assert [(e.text, e.value) for e in find_entities("5 dollars 50 pence", lang="en") if e.type == "money"] == \
        [("5 dollars", {"amount": "5", "currency": "USD"}), ("50 pence", {"amount": "50", "currency": "GBX"})]


def test_more_minor_units_than_make_a_major_one_stay_apart() -> None:
    assert [e.text for e in find_entities("5 pounds 120 pence", lang="en") if e.type == "money"] == \
        ["5 pounds", "120 pence"]


def test_a_video_resolution_is_no_pence() -> None:
    assert not [e for e in find_entities("a 1080p screen", lang="en") if e.type == "money"]


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
    ("a fee of 1/2% a month", "1/2%", "0.5"),                              # a digit fraction before the unit
    ("rates of 3/4 percent", "3/4 percent", "0.75"),
    ("inflation of 1,5% a year", "1,5%", "1.5"),                           # a decimal comma before the unit
    ("up 5 Per Cent on the year", "5 Per Cent", "5"),                      # the unit in any case
    ("a rise of five percent", "five percent", "5"),
    ("a rise of 5 per cent", "5 per cent", "5"),
])
def test_english_percent_constructions(text: str, span: str, value: str) -> None:
    assert _one(text, "percent") == (span, value)


def test_a_set_of_pieces_is_no_percent() -> None:
    assert not [e for e in find_entities("a 10 pc set of knives", lang="en") if e.type == "percent"]


def test_percent_of_a_number_named_after_it_is_still_that_rate() -> None:
    assert _one("a fee of percent of 15", "percent") == ("percent of 15", "15")


def test_half_a_dollar_and_a_dollar_store_are_not_one_dollar() -> None:
    for text in ("a dollar store opened", "half a dollar each"):
        assert not [e for e in find_entities(text, lang="en") if e.type == "money" and e.value["amount"] == "1"], text


def test_pieces_in_upper_case_are_no_percent() -> None:
    """``PC`` stays case-sensitive (a personal computer); only the spelled-out units take any case."""
    assert not [e for e in find_entities("we bought 5 PC for the lab", lang="en") if e.type == "percent"]


@pytest.mark.parametrize(("text", "span", "value"), [
    # "and" before a decimal place is the decimal point, as decimals are read aloud
    ("the gauge read two hundred and fifty-four hundredths", "two hundred and fifty-four hundredths", "200.54"),
    ("one thousand and five tenths", "one thousand and five tenths", "1000.5"),
    ("it was twenty and three quarters", "twenty and three quarters", "20.75"),
    # a fraction after "and" is a part of the scale before it, or of the scale that follows it
    ("revenue of five billion and three quarters", "five billion and three quarters", "5750000000"),
    ("one billion and three quarters million", "one billion and three quarters million", "1000750000"),
    ("one billion and a half million", "one billion and a half million", "1000500000"),
    ("a town of 3 million and a half", "3 million and a half", "3500000"),
    # digits counting a scale word and what follows it
    ("3 hundred and one guests", "3 hundred and one", "301"),
    ("and then 3 hundred and 21 more", "3 hundred and 21", "321"),
    # India's compound scale, the trillionths text2num does not read, thousands spaced out
    ("a budget of three lakh crore", "three lakh crore", "3000000000000"),
    ("an error of a trillionth", "a trillionth", "0.000000000001"),
    ("a hundred thousand trillionths", "a hundred thousand trillionths", "0.0000001"),
    ("a crowd of 40 000 fans", "40 000", "40000"),
    ("a crowd of 40\u202f000 fans", "40\u202f000", "40000"),
    ("a crowd of 25\u00a0000 in all", "25\u00a0000", "25000"),
])
def test_english_number_constructions_of_the_eighth_round(text: str, span: str, value: str) -> None:
    assert _one(text, "number") == (span, value)


@pytest.mark.parametrize(("text", "spans"), [
    ("rooms 101 102 and 103", ["101", "102", "103"]),     # three-digit groups are a list, not thousands
    ("423 0000", ["423", "0000"]),                       # a space alone does not join a local number
    ("five billion and three", ["five billion and three"]),
])
def test_what_stays_apart(text: str, spans: list[str]) -> None:
    assert [e.text for e in find_entities(text, lang="en") if e.type == "number"] == spans


def _space_grouped(n: int, space: str) -> str:
    """``n`` with its thousands separated by ``space``, written without the code under test."""
    digits = str(n)
    head = len(digits) % 3 or 3
    return space.join([digits[:head], *(digits[i:i + 3] for i in range(head, len(digits), 3))])


@given(st.integers(min_value=1000, max_value=99_999_999), st.sampled_from([" ", "\u00a0", "\u202f", "\u2009"]))
@settings(max_examples=200, deadline=None)
def test_thousands_spaced_out_are_read_whole(n: int, space: str) -> None:
    """A first group of one or two digits: the whole run is one entity (a phone may take a long one), and
    as a number its value is ``n``."""
    text = _space_grouped(n, space)
    assume(len(text.split(space)[0]) <= 2)  # "101 102" is a list: covered by test_what_stays_apart
    found = [(e.type, e.text, e.value) for e in find_entities(f"a total of {text} units", lang="en")
             if e.type in ("number", "phone")]
    assert len(found) == 1 and found[0][1] == text, (text, found)
    if found[0][0] == "number":
        assert found[0][2] == str(n)


@given(st.integers(min_value=0, max_value=999_999), st.integers(min_value=1, max_value=99))
@settings(max_examples=200, deadline=None)
def test_and_before_hundredths_is_the_decimal_point(whole: int, hundredths: int) -> None:
    text = f"{words(whole)} and {words(hundredths)} hundredths"
    assert _one(f"it read {text} today", "number") == (text, str(Decimal(whole) + Decimal(hundredths) / 100)
                                                      .rstrip("0").rstrip("."))


# -- a lone "one" -----------------------------------------------------------------------------
@pytest.mark.parametrize("text", [
    "let's try one last time", "one of the best films", "at least one reviewer", "I have one sister",
    "more than one woman", "that is one reason", "I have one, a flute", "only one religion",
])
def test_a_lone_one_that_counts_is_the_number_one(text: str) -> None:
    assert _one(text, "number") == ("one", "1")


@pytest.mark.parametrize("text", [
    "that one is really good", "which one is better", "no one knows", "the only one left", "a new one",
    "one should never lie", "how can one learn physics", "how does one apply", "they help one another",
    "one's own home",
])
def test_a_lone_one_that_stands_for_a_noun_is_no_number(text: str) -> None:
    assert [e.text for e in find_entities(text, lang="en") if e.type == "number"] == []


_DETERMINER_WORDS = ["the", "this", "that", "which", "each", "every", "any", "no", "my", "their", "whose"]


@given(st.sampled_from(_DETERMINER_WORDS), st.sampled_from(["", "only ", "same ", "other "]),
       st.from_regex(r"[a-z]{2,9}", fullmatch=True))
def test_one_after_a_determiner_is_never_a_number(determiner: str, adjective: str, word: str) -> None:
    assume(word != "one" and (not adjective or determiner not in ("that", "no")))
    text = f"{determiner} {adjective}one {word}"
    assert all(e.text != "one" for e in find_entities(text, lang="en"))
