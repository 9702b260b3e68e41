"""Properties of the normalizers added for the constructions: never raise, and values round-trip.

Each recognizer is called directly (``find_entities`` would log and skip a failing one, which
would hide the failure).
"""

from __future__ import annotations

from datetime import date, datetime
from decimal import Decimal

from hypothesis import given, settings
from hypothesis import strategies as st

from lastline.rules._date_types import add_months, leap_year_from
from lastline.rules._types import format_decimal
from lastline.rules.dates import find_dates
from lastline.rules.dates_en import find_en
from lastline.rules.dates_holidays import find_holidays
from lastline.rules.dates_zh import ERAS, find_zh
from lastline.rules.dates_zh_periods import find_periods
from lastline.rules.money import CURRENCY_NAMES, find_money, find_word_money
from lastline.rules.numbers import find_number_forms
from lastline.rules.numbers_en import find_word_numbers
from lastline.rules.percent import find_word_percent

_ONES = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve",
         "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen"]
_TENS = ["", "", "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"]


def words(n: int) -> str:
    """English words for 0 ≤ n < 10**12, written independently of the code under test."""
    if n < 20:
        return _ONES[n]
    if n < 100:
        return _TENS[n // 10] + ("-" + _ONES[n % 10] if n % 10 else "")
    if n < 1000:
        return _ONES[n // 100] + " hundred" + (" and " + words(n % 100) if n % 100 else "")
    for scale, name in ((10**9, "billion"), (10**6, "million"), (1000, "thousand")):
        if n >= scale:
            rest = n % scale
            return words(n // scale) + " " + name + ((" " if rest >= 100 else " and ") + words(rest) if rest else "")
    raise AssertionError(n)


WORDY = st.lists(st.sampled_from([*_ONES, *_TENS[2:], "hundred", "thousand", "million", "and", "a", "half",
                                          "quarter", "thirds", "over", "out", "of", "point", "minus", "dozen", "-",
                                          " ", "dollars", "cents", "percent", "yen", "5", "1.5", "k", "M"]),
                 max_size=30).map(" ".join)
REF = datetime(2024, 6, 12, 10, 0)


@given(st.integers(min_value=2, max_value=10**12 - 1))
@settings(max_examples=300, deadline=None)
def test_english_number_words_round_trip(n: int) -> None:
    text = words(n)
    assert [(w.start, w.end, w.value) for w in find_word_numbers(text)] == [(0, len(text), Decimal(n))]


@given(st.integers(min_value=2, max_value=999), st.integers(min_value=1, max_value=99))
@settings(max_examples=200, deadline=None)
def test_english_money_in_words_round_trips(dollars: int, cents: int) -> None:
    text = f"{words(dollars)} dollars and {words(cents)} cents"
    [entity] = list(find_word_money(text, text))
    assert entity.value == {"amount": str(Decimal(dollars) + Decimal(cents) / 100).rstrip("0").rstrip("."),
                            "currency": "USD"}


@given(WORDY)
@settings(max_examples=300, deadline=None)
def test_word_recognizers_never_raise_and_spans_are_inside(text: str) -> None:
    for w in find_word_numbers(text):
        assert 0 <= w.start < w.end <= len(text)
    for e in [*find_word_money(text, text), *find_word_percent(text, text)]:
        assert text[e.start:e.end] == e.text


@given(st.integers(min_value=0, max_value=999), st.integers(min_value=1, max_value=999),
       st.integers(min_value=1, max_value=999))
@settings(max_examples=200, deadline=None)
def test_mixed_digit_fractions_round_trip(whole: int, num: int, den: int) -> None:
    text = f"{whole} {num}/{den}"
    [entity] = list(find_number_forms(text, text))
    assert abs(Decimal(entity.value) - (whole + Decimal(num) / den)) < Decimal("1e-20")


@given(st.decimals(min_value=-99, max_value=99, places=1, allow_nan=False), st.integers(min_value=-6, max_value=6))
@settings(max_examples=200, deadline=None)
def test_powers_match_decimal_arithmetic(base: Decimal, exp: int) -> None:
    if base == 0 and exp <= 0:
        return  # undefined: no number is read
    text = f"{base:f}^{exp:+d}"
    [entity] = list(find_number_forms(text, text))
    want = (abs(base) ** exp) * (-1 if base < 0 else 1)
    assert abs(Decimal(entity.value) - want) <= abs(want) * Decimal("1e-12") + Decimal("1e-14")


@given(st.sampled_from(sorted(ERAS)), st.integers(min_value=1, max_value=30), st.integers(min_value=1, max_value=12))
@settings(max_examples=200, deadline=None)
def test_era_years_round_trip(era: str, nth: int, month: int) -> None:
    text = f"{era}{nth}年{month}月"
    hits = [(h.start, h.end, h.value) for h in find_zh(text, REF) if h.type == "date"]
    assert hits == [(0, len(text), f"{ERAS[era] + nth - 1:04d}-{month:02d}")]


@given(st.integers(min_value=1900, max_value=2100))
@settings(max_examples=100, deadline=None)
def test_holidays_fall_in_their_year_on_their_weekday(year: int) -> None:
    for name, weekday in (("感恩节", 3), ("母亲节", 6), ("thanksgiving", 3), ("easter", 6), ("labor day", 0)):
        text = f"{year}年{name}" if not name.isascii() else f"{name} {year}"
        [hit] = list(find_holidays(text, REF))
        day = datetime.fromisoformat(hit.value).date()
        assert day.year == year and day.weekday() == weekday


@given(st.text(alphabet="0123456789一二三四五六七八九十两年月日号季度第周末近上下从到世纪代晚农历元旦节每星期 -/^",
               max_size=40))
@settings(max_examples=400, deadline=None)
def test_date_grammars_never_raise_on_date_soup(text: str) -> None:
    for hit in [*find_zh(text, REF), *find_periods(text, REF), *find_holidays(text, REF), *find_en(text, REF),
                *find_number_forms(text, text)]:
        assert 0 <= hit.start <= hit.end <= len(text)


@given(st.dates(), st.integers(min_value=-600, max_value=600))
def test_add_months_lands_in_the_right_month_and_never_past_its_end(d: datetime, months: int) -> None:
    try:
        moved = add_months(d, months)
    except (ValueError, OverflowError):
        return  # out of the calendar's range
    assert (moved.year * 12 + moved.month) - (d.year * 12 + d.month) == months
    assert moved.day <= d.day


@given(st.integers(min_value=1, max_value=9990))
def test_leap_year_from_is_the_first_year_with_a_february_29th(year: int) -> None:
    leap = leap_year_from(year)
    assert date(leap, 2, 29)  # raises if there is none
    for earlier in range(year, leap):
        try:
            date(earlier, 2, 29)
        except ValueError:
            continue
        raise AssertionError(f"{earlier} has a February 29th")


_REF = datetime(2024, 6, 12, 10, 0)


@given(st.integers(min_value=1, max_value=12), st.integers(min_value=0, max_value=59), st.sampled_from(["am", "pm"]),
       st.sampled_from([":", "."]), st.sampled_from(["", " "]))
@settings(max_examples=200, deadline=None)
def test_english_clock_times_round_trip(hour: int, minute: int, ap: str, sep: str, space: str) -> None:
    h24 = hour % 12 + (12 if ap == "pm" else 0)
    hits = [h for h in find_en(f"see you {hour}{sep}{minute:02d}{space}{ap} then", _REF) if h.type == "time"]
    assert [h.value for h in hits] == [f"{h24:02d}:{minute:02d}:00"]


@given(st.integers(min_value=1, max_value=11), st.integers(min_value=1, max_value=11))
@settings(max_examples=150, deadline=None)
def test_english_pm_time_ranges_read_the_start_in_the_same_half_of_the_day(a: int, b: int) -> None:
    hits = [h for h in find_en(f"free from {a} to {b}pm", _REF) if h.type == "timerange"]
    start = a + 12 if a <= b else a  # 9 to 4pm starts in the morning
    assert [h.value for h in hits] == [f"{start:02d}:00:00/{b + 12:02d}:00:00"]


@given(st.integers(min_value=2, max_value=999), st.sampled_from(["day", "week", "month", "year", "hour", "minute"]))
@settings(max_examples=150, deadline=None)
def test_english_amounts_of_time_in_words_or_digits_are_durations(n: int, unit: str) -> None:
    code = {"day": "P{}D", "week": "P{}W", "month": "P{}M", "year": "P{}Y", "hour": "PT{}H", "minute": "PT{}M"}[unit]
    for written in (str(n), words(n)):
        text = f"it took {written} {unit}s"
        hits = [h for h in find_dates(text, text, _REF) if h.type == "duration"]
        if written == str(n) or n in (2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 15, 20, 30, 40, 50, 60, 90):
            assert [h.value for h in hits] == [code.format(n)]


@given(st.text(alphabet="0123456789 apmtoandfrombetweenmorningnightq:.-/h", max_size=60))
@settings(max_examples=300, deadline=None)
def test_english_time_grammars_never_raise_and_spans_are_inside(text: str) -> None:
    for h in find_en(text, _REF):
        assert 0 <= h.start < h.end <= len(text)


# -- English parts of a month and weekdays counted in a month ----------------------------------------
_EN_MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
              "November", "December"]
_EN_WEEKDAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]
_NTH = ["first", "second", "third", "fourth"]


@given(st.integers(min_value=1, max_value=12), st.integers(min_value=1990, max_value=2060),
       st.sampled_from(["early", "mid", "late", "the beginning of", "the end of", "the middle of"]))
def test_a_part_of_a_month_lies_inside_that_month(month: int, year: int, mod: str) -> None:
    text = f"{mod} {_EN_MONTHS[month - 1]} {year}"
    (entity,) = [e for e in find_dates(f"due {text}.", f"due {text}.", datetime(2024, 6, 12)) if e.type == "daterange"]
    start, end = (date.fromisoformat(v) for v in entity.value.split("/"))
    first = date(year, month, 1)
    following = date(year + month // 12, month % 12 + 1, 1)
    assert entity.text == text and first <= start < end <= following
    assert (start == first) == (mod in ("early", "the beginning of"))
    assert (end == following) == (mod in ("late", "the end of"))


@given(st.integers(min_value=1, max_value=12), st.integers(min_value=1990, max_value=2060),
       st.sampled_from(range(7)), st.sampled_from(range(4)))
def test_the_nth_weekday_of_a_month_is_that_weekday_in_its_nth_week(month: int, year: int, weekday: int,
                                                                    n: int) -> None:
    text = f"the {_NTH[n]} {_EN_WEEKDAYS[weekday]} of {_EN_MONTHS[month - 1]} {year}"
    (entity,) = [e for e in find_dates(f"on {text}.", f"on {text}.", datetime(2024, 6, 12)) if e.type == "date"]
    day = date.fromisoformat(entity.value)
    assert entity.text == text and day.weekday() == weekday and (day.year, day.month) == (year, month)
    assert 7 * n < day.day <= 7 * (n + 1)


@given(st.decimals(min_value=0, max_value=10**7, places=2, allow_nan=False, allow_infinity=False),
       st.sampled_from(sorted(CURRENCY_NAMES)), st.booleans(), st.booleans())
def test_an_amount_with_an_iso_code_or_its_name_reads_back(amount: Decimal, code: str, code_first: bool,
                                                            name: bool) -> None:
    unit = CURRENCY_NAMES[code].title() if name else code
    text = f"{unit} {amount:,}" if code_first and not name else f"{amount:,} {unit}"
    (entity,) = [e for e in find_money(f"pay {text} today", f"pay {text} today", False)]
    assert entity.text == text and entity.value == {"amount": format_decimal(amount), "currency": code}
