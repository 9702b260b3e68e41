"""English date constructions, one test each: periods cut at today, ranges whose ends are periods,
open ranges of periods, fortnights and working weeks.

The texts are written for the construction (not copied from the benchmark specs), so a grammar that
learned one spec string instead of the kind of expression fails here.
"""

from __future__ import annotations

from datetime import date, datetime, timedelta

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from lastline.rules import find_entities

REF = datetime(2024, 6, 12, 10, 0)  # a Wednesday


def dates(text: str, ref: datetime = REF) -> list[tuple[str, str, object]]:
    kinds = ("date", "datetime", "time", "daterange", "timerange", "duration", "set")
    return [(e.type, e.text, e.value) for e in find_entities(text, reference_time=ref) if e.type in kinds]


# -- parts of the current period, cut at today ------------------------------------------------------
@pytest.mark.parametrize(("text", "span", "value"), [
    ("the courier comes later today", "later today", "2024-06-12T12:00:00/2024-06-13T00:00:00"),
    ("she rang earlier today", "earlier today", "2024-06-12T00:00:00/2024-06-12T12:00:00"),
    ("we expect it later in the week", "later in the week", "2024-06-13/2024-06-17"),   # its second half
    ("the quote was sent earlier this month", "earlier this month", "2024-06-01/2024-06-12"),
])
def test_later_and_earlier_in_a_period_are_its_halves_cut_at_today(text: str, span: str, value: str) -> None:
    assert dates(text) == [("daterange", span, value)]


def test_earlier_this_month_late_in_the_month_is_its_first_half() -> None:
    assert dates("I asked earlier this month", datetime(2024, 6, 27)) == [
        ("daterange", "earlier this month", "2024-06-01/2024-06-16")]


@pytest.mark.parametrize(("text", "span", "value"), [
    ("please rest for the remainder of the week", "the remainder of the week", "2024-06-12/2024-06-16"),
    ("rates are fixed for the rest of the month", "the rest of the month", "2024-06-12/2024-06-30"),
    ("closed for the balance of this year", "the balance of this year", "2024-06-12/2024-12-31"),
])
def test_the_rest_of_a_period_runs_from_today_to_its_last_day(text: str, span: str, value: str) -> None:
    assert dates(text) == [("daterange", span, value)]


@pytest.mark.parametrize(("text", "span", "value"), [
    ("returns year-to-date are flat", "year-to-date", "2024-01-01/2024-06-12"),
    ("the QTD numbers", "QTD", "2024-04-01/2024-06-12"),
    ("spend month to date", "month to date", "2024-06-01/2024-06-12"),
])
def test_a_period_to_date_runs_from_its_start_to_today(text: str, span: str, value: str) -> None:
    assert dates(text) == [("daterange", span, value)]


# -- fortnights and working weeks -----------------------------------------------------------------
@pytest.mark.parametrize(("text", "span", "value"), [
    ("the delivery is planned for next fortnight", "next fortnight", "2024-06-24/2024-07-08"),
    ("it was busy this fortnight", "this fortnight", "2024-06-10/2024-06-24"),
    ("book it for the next work week", "next work week", "2024-06-17/2024-06-22"),
    ("during this business week", "this business week", "2024-06-10/2024-06-15"),
])
def test_fortnights_and_working_weeks(text: str, span: str, value: str) -> None:
    assert dates(text) == [("daterange", span, value)]


# -- ranges whose ends are periods --------------------------------------------------------------------
@pytest.mark.parametrize(("text", "span", "value"), [
    ("revenue from Q2 2021 to Q4 2021", "from Q2 2021 to Q4 2021", "2021-04-01/2021-10-01"),
    ("we lived there from 2011 to the end of 2013", "from 2011 to the end of 2013", "2011-01-01/2014-01-01"),
    ("between the start of 2019 and mid-2020", "between the start of 2019 and mid-2020",
     "2019-01-01/2020-05-01"),
    ("from early March to late April", "from early March to late April", "2024-03-01/2024-04-16"),
])
def test_a_range_between_two_periods_runs_from_point_to_point(text: str, span: str, value: str) -> None:
    assert dates(text) == [("daterange", span, value)]


def test_two_periods_listed_with_and_stay_two() -> None:
    assert [t for _, t, _ in dates("compare Q1 2020 and Q1 2021")] == ["Q1 2020", "Q1 2021"]


# -- open ranges whose point is a period ------------------------------------------------------------
@pytest.mark.parametrize(("text", "span", "value"), [
    ("sales have grown since early May", "since early May", "2024-05-01/.."),
    ("finish before the end of next month", "before the end of next month", "../2024-08-01"),
    ("nothing is due until the end of the year", "until the end of the year", "../2025-01-01"),
    ("prices rise after the end of 2025", "after the end of 2025", "2026-01-01/.."),
    ("it broke more than 3 days ago", "more than 3 days ago", "../2024-06-09"),
])
def test_an_open_range_from_or_to_a_period(text: str, span: str, value: str) -> None:
    assert dates(text) == [("daterange", span, value)]


# -- properties -------------------------------------------------------------------------------------
_days = st.dates(min_value=date(1990, 1, 1), max_value=date(2060, 12, 31))


@given(_days)
def test_the_rest_of_the_week_ends_on_the_sunday_of_that_week(today: date) -> None:
    ref = datetime(today.year, today.month, today.day, 9)
    [(_, _, value)] = dates("for the rest of the week", ref)
    start, end = (date.fromisoformat(x) for x in str(value).split("/"))
    assert start == today and end.weekday() == 6 and timedelta(0) <= end - start < timedelta(days=7)


@given(_days)
def test_earlier_this_month_never_passes_today_or_the_16th(today: date) -> None:
    ref = datetime(today.year, today.month, today.day, 9)
    [(_, _, value)] = dates("earlier this month", ref)
    start, end = (date.fromisoformat(x) for x in str(value).split("/"))
    assert start == today.replace(day=1) and end == min(today, today.replace(day=16))


# -- years in words -------------------------------------------------------------------------------
@pytest.mark.parametrize(("text", "span", "value"), [
    ("she was born on 4 July nineteen eighty-one", "4 July nineteen eighty-one", "1981-07-04"),
    ("the mill closed in March eighteen oh five", "March eighteen oh five", "1805-03"),
    ("it opened in two thousand and nine", "two thousand and nine", "2009"),
    ("due August 3, twenty twenty-six", "August 3, twenty twenty-six", "2026-08-03"),
    ("we met in December two thousand", "December two thousand", "2000-12"),
])
def test_a_year_in_words_after_a_month_or_a_preposition(text: str, span: str, value: str) -> None:
    assert dates(text) == [("date", span, value)]


def test_two_thousand_of_something_is_no_year() -> None:
    assert dates("in two thousand boxes") == []


_ONES = ["", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine"]
_TEENS = ["ten", "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen",
          "nineteen"]
_TENS = ["", "", "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"]


def _say_year(year: int) -> str:
    """How a year is read aloud (written here independently of the grammar)."""
    century, rest = divmod(year, 100)
    if century == 20 and rest < 10:
        return "two thousand" + (f" and {_ONES[rest]}" if rest else "")
    if rest == 0:
        tail = "hundred"
    elif rest < 10:
        tail = f"oh {_ONES[rest]}"
    elif rest < 20:
        tail = _TEENS[rest - 10]
    else:
        tail = _TENS[rest // 10] + (f"-{_ONES[rest % 10]}" if rest % 10 else "")
    return f"{_TEENS[century - 10]} {tail}" if century < 20 else f"twenty {tail}"


@given(st.dates(min_value=date(1600, 1, 1), max_value=date(2099, 12, 31)))
def test_any_date_with_its_year_in_words_reads_back(day: date) -> None:
    text = f"{day.strftime('%B')} {day.day}, {_say_year(day.year)}"
    assert [v for _, _, v in dates(f"signed on {text}")] == [day.isoformat()]


# -- parts of the day, decades, now ---------------------------------------------------------------
@pytest.mark.parametrize(("text", "span", "value"), [
    ("it rained last Tuesday morning", "last Tuesday morning", "2024-06-11T08:00:00/2024-06-11T12:00:00"),
    ("on the evening of June 20", "the evening of June 20", "2024-06-20T16:00:00/2024-06-20T20:00:00"),
    ("June 20 in the afternoon", "June 20 in the afternoon", "2024-06-20T12:00:00/2024-06-20T16:00:00"),
])
def test_a_day_with_its_part_of_the_day_is_that_window(text: str, span: str, value: str) -> None:
    assert dates(text) == [("daterange", span, value)]


@pytest.mark.parametrize(("text", "span", "value"), [
    ("music of the seventies", "the seventies", "1970/1980"),
    ("in the nineteen-twenties", "the nineteen-twenties", "1920/1930"),
])
def test_decades_in_words(text: str, span: str, value: str) -> None:
    assert dates(text) == [("daterange", span, value)]


def test_an_age_in_the_nineties_is_not_a_decade() -> None:
    assert dates("she is in her nineties") == []


def test_daytime_and_at_present() -> None:
    assert dates("deliveries only during the daytime") == [("timerange", "during the daytime",
                                                            "08:00:00/18:00:00")]
    assert dates("at present the office is shut") == [("datetime", "at present", "2024-06-12T10:00:00")]


# -- a month of a relative year, weekdays after next, a day number before its times ----------------
@pytest.mark.parametrize(("text", "span", "value"), [
    ("the audit was in April last year", "April last year", "2023-04"),
    ("renewal is due October of next year", "October of next year", "2025-10"),
    ("this year in September", "this year in September", "2024-09"),
])
def test_a_month_of_a_relative_year(text: str, span: str, value: str) -> None:
    assert dates(text) == [("date", span, value)]


def test_may_the_verb_before_a_relative_year_is_no_month() -> None:
    assert ("date", "may next year", "2025-05") not in dates("prices may next year rise")


@pytest.mark.parametrize(("text", "span", "value"), [
    ("see you Thursday after next", "Thursday after next", "2024-06-20"),
    ("the Wednesday after next", "the Wednesday after next", "2024-06-26"),
])
def test_a_weekday_after_next_is_the_one_after_the_coming_one(text: str, span: str, value: str) -> None:
    assert dates(text) == [("date", span, value)]


def test_a_day_number_on_its_own_before_clock_times() -> None:
    assert dates("the hall is booked on the 19 from 1pm to 3pm") == [
        ("daterange", "the 19 from 1pm to 3pm", "2024-06-19T13:00:00/2024-06-19T15:00:00")]


def test_a_time_range_ending_earlier_on_the_clock_starts_before_noon() -> None:
    assert dates("closed from 9:45 to 9:30 pm") == [("timerange", "from 9:45 to 9:30 pm", "09:45:00/21:30:00")]


# -- ranges that share a year, weekday ends, compound offsets -----------------------------------------
@pytest.mark.parametrize(("text", "span", "value"), [
    ("open from March 2 to March 9, 2027", "from March 2 to March 9, 2027", "2027-03-02/2027-03-09"),
    ("from November 28 to January 4, 2026", "from November 28 to January 4, 2026", "2025-11-28/2026-01-04"),
    ("the season runs April through June 2025", "April through June 2025", "2025-04/2025-06"),
])
def test_a_start_without_a_year_takes_the_year_of_the_end(text: str, span: str, value: str) -> None:
    assert dates(text) == [("daterange", span, value)]


def test_a_relative_start_keeps_its_own_year() -> None:
    assert dates("from tomorrow to May 2, 2030") == [
        ("daterange", "from tomorrow to May 2, 2030", "2024-06-13/2030-05-02")]


def test_a_weekday_end_comes_after_the_start() -> None:
    assert dates("on call from Tuesday 8pm to Monday 6am") == [
        ("daterange", "from Tuesday 8pm to Monday 6am", "2024-06-18T20:00:00/2024-06-24T06:00:00")]


@pytest.mark.parametrize(("text", "type_", "value"), [
    ("it shipped 1 month 3 days ago", "date", "2024-05-09"),
    ("due 1 year 2 months later", "date", "2025-08-12"),
    ("called 2 hours 15 minutes ago", "datetime", "2024-06-12T07:45:00"),
])
def test_an_offset_written_in_parts_moves_by_all_of_them(text: str, type_: str, value: str) -> None:
    [(t, _, v)] = dates(text)
    assert (t, v) == (type_, value)


@pytest.mark.parametrize(("text", "span", "value"), [
    ("leave from the 3rd to the 7th of next month", "from the 3rd to the 7th of next month",
     "2024-07-03/2024-07-07"),
    ("the 20th-24th of this month", "the 20th-24th of this month", "2024-06-20/2024-06-24"),
])
def test_a_range_of_day_numbers_of_a_relative_month(text: str, span: str, value: str) -> None:
    assert dates(text) == [("daterange", span, value)]


@pytest.mark.parametrize(("text", "span", "value"), [
    ("the last week of the month", "the last week of the month", "2024-06-24/2024-07-01"),
    ("the second week of next month", "the second week of next month", "2024-07-08/2024-07-15"),
])
def test_a_counted_week_of_a_relative_month(text: str, span: str, value: str) -> None:
    assert dates(text) == [("daterange", span, value)]


@pytest.mark.parametrize(("text", "type_", "span", "value"), [
    ("deliveries arrive late afternoon", "timerange", "late afternoon", "14:00:00/16:00:00"),
    ("back 9 tonight", "datetime", "9 tonight", "2024-06-12T21:00:00"),
    ("lunch at mid-day", "time", "mid-day", "12:00:00"),
    ("send it by the end of today", "datetime", "the end of today", "2024-06-12T23:59:59"),
    ("the office is shut Jan-2", "date", "Jan-2", "2024-01-02"),
    ("results for 3rd quarter 2023", "daterange", "3rd quarter 2023", "2023-07-01/2023-10-01"),
    ("free between 1-3pm", "timerange", "between 1-3pm", "13:00:00/15:00:00"),
    ("open no earlier than 8am", "timerange", "no earlier than 8am", "08:00:00/.."),
    ("not before June 20", "daterange", "not before June 20", "2024-06-20/.."),
])
def test_more_english_time_constructions(text: str, type_: str, span: str, value: str) -> None:
    assert dates(text) == [(type_, span, value)]


# -- holidays counted from another, more fixed holidays, sets -------------------------------------------
@pytest.mark.parametrize(("text", "span", "value"), [
    ("the sale ends on Black Friday", "Black Friday", "2024-11-29"),
    ("closed on Good Friday 2026", "Good Friday 2026", "2026-04-03"),
    ("parade on St. Patrick's Day", "St. Patrick's Day", "2025-03-17"),
    ("a holiday on Boxing Day", "Boxing Day", "2024-12-26"),
    ("off for Presidents' Day", "Presidents' Day", "2025-02-17"),
    ("rallies on International Workers' Day", "International Workers' Day", "2025-05-01"),
])
def test_more_english_holidays(text: str, span: str, value: str) -> None:
    assert dates(text) == [("date", span, value)]


@given(st.integers(min_value=1900, max_value=2100))
def test_black_friday_is_the_friday_after_thanksgiving(year: int) -> None:
    [(_, _, thanksgiving)] = dates(f"Thanksgiving {year}")
    [(_, _, black_friday)] = dates(f"Black Friday {year}")
    day = date.fromisoformat(str(black_friday))
    assert day.weekday() == 4 and day - date.fromisoformat(str(thanksgiving)) == timedelta(days=1)


@pytest.mark.parametrize(("text", "span", "value"), [
    ("invoices go out quarterly", "quarterly", "R/P3M"),
    ("a fortnightly newsletter", "fortnightly", "R/P2W"),
    ("reviewed every quarter", "every quarter", "R/P3M"),
    ("polls every half hour", "every half hour", "R/PT30M"),
    ("lunch together any weekend", "any weekend", "R/P1WE"),
    ("the bus leaves every morning at 6", "every morning at 6", "R/T06"),
    ("a walk every evening at 8.", "every evening at 8", "R/T20"),
])
def test_more_english_sets(text: str, span: str, value: str) -> None:
    assert dates(text) == [("set", span, value)]


# -- counted parts of a period, a time and how long, now to a bare hour ----------------------------------
@pytest.mark.parametrize(("text", "span", "value"), [
    ("a discount for the first 10 days of July", "the first 10 days of July", "2024-07-01/2024-07-11"),
    ("the final two months of 2026", "the final two months of 2026", "2026-11-01/2027-01-01"),
    ("the last 2 weeks of next year", "the last 2 weeks of next year", "2025-12-15/2025-12-29"),
    ("in the last three days of the month", "the last three days of the month", "2024-06-28/2024-07-01"),
])
def test_the_first_or_last_few_units_of_a_period(text: str, span: str, value: str) -> None:
    assert dates(text) == [("daterange", span, value)]


def test_a_day_at_a_time_for_a_while_is_that_range() -> None:
    assert dates("reserve the hall on 5th July from 2pm for 3 hours") == [
        ("daterange", "5th July from 2pm for 3 hours", "2024-07-05T14:00:00/2024-07-05T17:00:00")]


def test_from_now_to_a_bare_hour_earlier_on_the_clock_is_that_evening() -> None:
    assert dates("free between now and seven o'clock") == [
        ("daterange", "between now and seven o'clock", "2024-06-12T10:00:00/2024-06-12T19:00:00")]


def test_a_weekday_before_a_count_of_weeks_takes_no_day_number() -> None:
    assert ("date", "Sunday 2", "2024-06-02") not in dates("Sunday 2 weeks after May 3rd")


def test_a_range_of_marked_hours_before_its_day() -> None:
    assert dates("the clinic is open 9am-1pm Saturday") == [
        ("daterange", "9am-1pm Saturday", "2024-06-15T09:00:00/2024-06-15T13:00:00")]


def test_bare_hours_after_a_part_of_the_day_fall_in_it() -> None:
    assert dates("this evening from 6 to 8") == [
        ("daterange", "this evening from 6 to 8", "2024-06-12T18:00:00/2024-06-12T20:00:00")]
    assert dates("from 2 to 4 people came") == []


@pytest.mark.parametrize(("text", "span", "value"), [
    ("send it EOD Friday", "EOD Friday", "2024-06-14T23:59:59"),
    ("by end of day tomorrow", "end of day tomorrow", "2024-06-13T23:59:59"),
])
def test_the_end_of_a_named_day_is_its_last_second(text: str, span: str, value: str) -> None:
    assert dates(text) == [("datetime", span, value)]


# -- halves and quarters named against a month or a relative year ---------------------------------------
@pytest.mark.parametrize(("text", "span", "value"), [
    ("the first half of March", "the first half of March", "2024-03-01/2024-03-16"),
    ("the latter half of next month", "the latter half of next month", "2024-07-16/2024-08-01"),
    ("the last quarter of 2022", "the last quarter of 2022", "2022-10-01/2023-01-01"),
    ("numbers for Q2 of last year", "Q2 of last year", "2023-04-01/2023-07-01"),
])
def test_halves_and_quarters_of_a_named_or_relative_period(text: str, span: str, value: str) -> None:
    assert dates(text) == [("daterange", span, value)]


def test_the_last_quarter_alone_is_the_previous_one() -> None:
    assert dates("in the last quarter") == [("daterange", "last quarter", "2024-01-01/2024-04-01")]


@pytest.mark.parametrize(("text", "span", "value"), [
    ("records prior to 2019", "prior to 2019", "../2019"), ("starting 2026", "starting 2026", "2026/.."),
])
def test_a_year_after_prior_to_or_starting(text: str, span: str, value: str) -> None:
    assert dates(text) == [("daterange", span, value)]


@pytest.mark.parametrize(("text", "span", "value"), [
    ("free between July 8th and 12th", "between July 8th and 12th", "2024-07-08/2024-07-12"),
    ("away July 8th to the 12th", "July 8th to the 12th", "2024-07-08/2024-07-12"),
])
def test_a_range_of_days_after_their_month(text: str, span: str, value: str) -> None:
    assert dates(text) == [("daterange", span, value)]


def test_two_days_of_a_month_joined_by_and_stay_a_list() -> None:
    assert ("daterange", "July 8 and 9", "2024-07-08/2024-07-09") not in dates("on July 8 and 9")


def test_the_day_before_or_after_a_named_day() -> None:
    assert dates("the day before Christmas") == [("date", "the day before Christmas", "2024-12-24")]
    assert dates("the day after July 4") == [("date", "the day after July 4", "2024-07-05")]


def test_the_part_of_the_day_of_a_day_number() -> None:
    assert dates("on the evening of the 20th") == [
        ("daterange", "the evening of the 20th", "2024-06-20T16:00:00/2024-06-20T20:00:00")]
    assert dates("one of the 5th graders") == []


# -- weeks and weekends counted in a period --------------------------------------------------------
@pytest.mark.parametrize(("text", "span", "value"), [
    ("closed the last weekend of March", "the last weekend of March", "2024-03-30/2024-04-01"),
    ("the first weekend of May 2025 is booked", "the first weekend of May 2025", "2025-05-03/2025-05-05"),
    ("visit on the second weekend of next month", "the second weekend of next month", "2024-07-13/2024-07-15"),
])
def test_the_nth_weekend_of_a_month_runs_saturday_to_monday(text: str, span: str, value: str) -> None:
    assert dates(text) == [("daterange", span, value)]


def test_a_fifth_weekend_a_month_does_not_have_is_none() -> None:
    assert not any(e[1].startswith("the fifth") for e in dates("the fifth weekend of June"))


@pytest.mark.parametrize(("text", "span", "value"), [
    ("audit in the last week of the year", "the last week of the year", "2024-12-23/2024-12-30"),
    ("kick-off the first week of next year", "the first week of next year", "2024-12-30/2025-01-06"),
])
def test_the_nth_week_of_a_relative_year_is_its_iso_week(text: str, span: str, value: str) -> None:
    assert dates(text) == [("daterange", span, value)]


# -- ISO week dates ----------------------------------------------------------------------------------
@given(st.dates(min_value=date(1900, 1, 1), max_value=date(2099, 12, 31)), st.booleans())
def test_an_iso_week_date_reads_back_as_its_day_or_week(day: date, with_weekday: bool) -> None:
    year, week, weekday = day.isocalendar()
    if with_weekday:
        assert dates(f"delivery {year}-W{week:02d}-{weekday}") == [
            ("date", f"{year}-W{week:02d}-{weekday}", day.isoformat())]
    else:
        monday = day - timedelta(days=weekday - 1)
        assert dates(f"sprint {year}-W{week:02d} ends") == [
            ("daterange", f"{year}-W{week:02d}", f"{monday.isoformat()}/{(monday + timedelta(days=7)).isoformat()}")]


def test_an_iso_week_past_the_years_last_is_none() -> None:
    assert dates("in 2021-W53") == []  # 2021 has 52 ISO weeks


# -- quarters and decades ----------------------------------------------------------------------------
def test_a_quarter_of_a_year_after_of() -> None:
    assert dates("revenue in Q1 of 2023") == [("daterange", "Q1 of 2023", "2023-01-01/2023-04-01")]


@pytest.mark.parametrize(("text", "span", "value"), [
    ("popular in the early 1990s", "the early 1990s", "1990/1994"),
    ("built in the mid-2010s", "the mid-2010s", "2013/2017"),
    ("a late 80s film", "late 80s", "1986/1990"),
    ("music of the mid-nineties", "the mid-nineties", "1993/1997"),
    ("music of the nineties", "the nineties", "1990/2000"),
])
def test_early_mid_and_late_parts_of_a_decade(text: str, span: str, value: str) -> None:
    assert dates(text) == [("daterange", span, value)]


# -- four-digit clock times, business days -----------------------------------------------------------
@pytest.mark.parametrize(("text", "span", "value"), [
    ("report at 0800", "at 0800", "08:00:00"), ("muster at 1530 hrs", "at 1530 hrs", "15:30:00"),
])
def test_a_four_digit_clock_time_after_at(text: str, span: str, value: str) -> None:
    assert dates(text) == [("time", span, value)]


def test_four_digits_after_at_are_no_time_without_a_leading_zero_or_hours() -> None:
    assert dates("sold at 1530 each") == []
    assert dates("the engine ran 1530 hours") == [("duration", "1530 hours", "PT1530H")]


@pytest.mark.parametrize(("text", "span", "value"), [
    ("sales of the previous 4 business days", "the previous 4 business days", "2024-06-06/2024-06-12"),
    ("ships in the next 3 working days", "the next 3 working days", "2024-06-13/2024-06-18"),
])
def test_a_counted_run_of_business_days_skips_the_weekend(text: str, span: str, value: str) -> None:
    assert dates(text) == [("daterange", span, value)]


# -- ranges of months ----------------------------------------------------------------------------------
@pytest.mark.parametrize(("text", "span", "value"), [
    ("out from August to October", "from August to October", "2024-08/2024-10"),
    ("sales Jan-Mar 2024", "Jan-Mar 2024", "2024-01/2024-03"),
    ("open between Sep and Nov", "between Sep and Nov", "2024-09/2024-11"),
    ("the season Nov-Feb 5th, 2017", "Nov-Feb 5th, 2017", "2016-11/2017-02-05"),
    ("billed Dec 2023 - Feb 2024", "Dec 2023 - Feb 2024", "2023-12/2024-02"),
])
def test_a_range_of_months_runs_from_its_first_month_to_its_last(text: str, span: str, value: str) -> None:
    assert dates(text) == [("daterange", span, value)]


def test_two_months_joined_by_and_without_between_stay_a_list() -> None:
    assert dates("in May and June") == [("date", "May", "2024-05"), ("date", "June", "2024-06")]


@given(st.integers(1, 12), st.integers(1, 12), st.integers(1990, 2060))
def test_a_month_range_before_its_year_wraps_into_the_year_before(m1: int, m2: int, year: int) -> None:
    assume(m1 != m2)
    names = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
    start = f"{year - 1 if m1 > m2 else year:04d}-{m1:02d}"
    assert dates(f"booked from {names[m1 - 1]} to {names[m2 - 1]} {year}") == [
        ("daterange", f"from {names[m1 - 1]} to {names[m2 - 1]} {year}", f"{start}/{year:04d}-{m2:02d}")]


# -- clock times in words with their half of the day, short weekday names ------------------------------
@pytest.mark.parametrize(("text", "span", "value"), [
    ("call me at nine am", "nine am", "09:00:00"), ("lights out at eleven p.m.", "eleven p.m.", "23:00:00"),
    ("doors at half past 3 pm", "half past 3 pm", "15:30:00"),
    ("a quarter to eight pm", "a quarter to eight pm", "19:45:00"),
])
def test_an_hour_in_words_takes_am_or_pm(text: str, span: str, value: str) -> None:
    assert dates(text) == [("time", span, value)]


@pytest.mark.parametrize(("text", "span", "value"), [
    ("standup Tue 3pm", "Tue 3pm", ("datetime", "2024-06-18T15:00:00")),
    ("open Mon 9am-5pm", "Mon 9am-5pm", ("daterange", "2024-06-17T09:00:00/2024-06-17T17:00:00")),
    ("see you on Thu", "Thu", ("date", "2024-06-13")),
])
def test_a_short_weekday_name_before_a_time_or_after_on(text: str, span: str, value: tuple[str, str]) -> None:
    assert dates(text) == [(value[0], span, value[1])]


def test_short_weekday_names_that_are_words_need_a_capital_or_a_time() -> None:
    assert dates("the sun was out, we sat in the shade") == []
    assert dates("lying on sun loungers") == []
    assert dates("we wed on Sat") == [("date", "Sat", "2024-06-15")]


@pytest.mark.parametrize(("text", "span", "value"), [
    ("targets for next year's first quarter", "next year's first quarter", "2025-01-01/2025-04-01"),
    ("as in last year's Q3", "last year's Q3", "2023-07-01/2023-10-01"),
    ("this year's second half", "this year's second half", "2024-07-01/2025-01-01"),
])
def test_a_quarter_or_half_of_a_relative_years_possessive(text: str, span: str, value: str) -> None:
    assert dates(text) == [("daterange", span, value)]


# -- the weekend of a day --------------------------------------------------------------------------------
@pytest.mark.parametrize(("text", "span", "value"), [
    ("a flight for halloween weekend 2021", "halloween weekend 2021", "2021-10-30/2021-11-01"),
    ("closed July 4th weekend", "July 4th weekend", "2024-07-06/2024-07-08"),
    ("free the weekend of June 15", "the weekend of June 15", "2024-06-15/2024-06-17"),
    ("busy memorial day weekend", "memorial day weekend", "2025-05-24/2025-05-27"),   # the Monday is in it
    ("thanksgiving weekend 2023", "thanksgiving weekend 2023", "2023-11-25/2023-11-27"),
])
def test_the_weekend_of_a_day_is_the_saturday_to_monday_of_its_week(text: str, span: str, value: str) -> None:
    assert dates(text) == [("daterange", span, value)]


# -- counts in words, parts of an hour -------------------------------------------------------------------
_COUNT_TENS = ["twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"]
_COUNT_UNITS = ["one", "two", "three", "four", "five", "six", "seven", "eight", "nine"]


@given(st.integers(2, 9), st.integers(1, 9), st.sampled_from(["-", " "]))
def test_a_count_of_tens_and_units_in_words_is_read_whole(tens: int, unit: int, sep: str) -> None:
    words = f"{_COUNT_TENS[tens - 2]}{sep}{_COUNT_UNITS[unit - 1]}"
    assert dates(f"it took {words} hours") == [("duration", f"{words} hours", f"PT{10 * tens + unit}H")]


@pytest.mark.parametrize(("text", "span", "value"), [
    ("it took a quarter of an hour", "a quarter of an hour", "PT0.25H"),
    ("a half hour", "a half hour", "PT0.5H"),
    ("three quarters of an hour", "three quarters of an hour", "PT0.75H"),
    ("seventeen minutes", "seventeen minutes", "PT17M"),
])
def test_parts_of_an_hour_and_teens_in_words(text: str, span: str, value: str) -> None:
    assert dates(text) == [("duration", span, value)]


# -- day ranges before "in" their month, a weekday before last ---------------------------------------
@pytest.mark.parametrize(("text", "span", "value"), [
    ("I'll be out from 4-23 in April", "from 4-23 in April", "2024-04-04/2024-04-23"),
    ("away between 4 and 22 in Jan, 2016", "between 4 and 22 in Jan, 2016", "2016-01-04/2016-01-22"),
])
def test_a_range_of_days_in_their_month(text: str, span: str, value: str) -> None:
    assert dates(text) == [("daterange", span, value)]


@pytest.mark.parametrize(("text", "value"), [
    ("the Friday before last", "2024-05-31"), ("the Wednesday before last", "2024-05-29"),
    ("the Monday after next", "2024-06-24"),
])
def test_a_weekday_before_last_or_after_next(text: str, value: str) -> None:
    assert dates(text) == [("date", text, value)]


# -- lunch, years past 2099 ------------------------------------------------------------------------------
@pytest.mark.parametrize(("text", "span", "value"), [
    ("let's meet before lunch", "before lunch", "../11:00:00"), ("call after lunch", "after lunch", "13:00:00/.."),
    ("free at lunchtime", "lunchtime", "11:00:00/13:00:00"),
])
def test_lunch_after_a_preposition_is_the_lunch_hours(text: str, span: str, value: str) -> None:
    assert dates(text) == [("timerange", span, value)]


def test_lunch_as_a_meal_is_no_time() -> None:
    assert dates("book this lunch in my calendar") == []


def test_a_year_past_2099_after_in_only_where_the_clause_ends() -> None:
    assert dates("the lease ends in 2150, right?") == [("date", "2150", "2150")]
    assert dates("seen in 2150 cases") == []


# -- a part of the day around a named day, the weekend after next, close of business -------------------
@pytest.mark.parametrize(("text", "span", "value"), [
    ("the night before Christmas", "the night before Christmas", "2024-12-24T20:00:00/2024-12-24T23:59:59"),
    ("the evening after June 3", "the evening after June 3", "2024-06-04T16:00:00/2024-06-04T20:00:00"),
])
def test_a_part_of_the_day_before_or_after_a_named_day(text: str, span: str, value: str) -> None:
    assert dates(text) == [("daterange", span, value)]


def test_the_weekend_after_next_and_the_prior_week() -> None:
    assert dates("the weekend after next") == [("daterange", "the weekend after next", "2024-06-29/2024-07-01")]
    assert dates("sales the prior week") == [("date", "prior week", "2024-W23")]


@pytest.mark.parametrize(("text", "span", "value"), [
    ("send it by COB Friday", "COB Friday", "2024-06-14T23:59:59"),
    ("close of business tomorrow", "close of business tomorrow", "2024-06-13T23:59:59"),
])
def test_close_of_business_is_the_end_of_the_day(text: str, span: str, value: str) -> None:
    assert dates(text) == [("datetime", span, value)]


@pytest.mark.parametrize(("text", "span", "value"), [
    ("a meeting for 30 minutes after 3pm", "30 minutes after 3pm", "15:30:00"),
    ("2 hours before noon", "2 hours before noon", "10:00:00"),
])
def test_an_amount_of_time_after_or_before_a_clock_time_is_that_time(text: str, span: str, value: str) -> None:
    assert dates(text) == [("time", span, value)]


def test_an_amount_of_time_from_a_clock_time_stays_a_range() -> None:
    assert dates("booked for 2 hours from 2pm") == [("timerange", "2 hours from 2pm", "14:00:00/16:00:00")]


@pytest.mark.parametrize(("text", "span", "value"), [
    ("tomorrow at 7 in the evening", "tomorrow at 7 in the evening", "2024-06-13T19:00:00"),
    ("next Tuesday at 10 in the morning", "next Tuesday at 10 in the morning", "2024-06-18T10:00:00"),
    ("on June 5 at 8 in the evening", "June 5 at 8 in the evening", "2024-06-05T20:00:00"),
    ("tomorrow at 2 in the night", "tomorrow at 2 in the night", "2024-06-13T02:00:00"),
])
def test_a_day_at_an_hour_in_a_part_of_the_day(text: str, span: str, value: str) -> None:
    assert dates(text) == [("datetime", span, value)]


@pytest.mark.parametrize(("text", "value"), [
    ("every Monday morning", "R/XXXX-WXX-1TMO"), ("every Friday evening", "R/XXXX-WXX-5TEV"),
])
def test_every_weekday_in_a_part_of_the_day_is_one_set(text: str, value: str) -> None:
    assert dates(text) == [("set", text, value)]


@pytest.mark.parametrize(("text", "span", "value"), [
    ("we meet Friday the 14th.", "Friday the 14th", "2024-06-14"),        # a date closing its sentence
    ("we meet Tuesday 18th.", "Tuesday 18th", "2024-06-18"),
    ("the drill is in week 20.", "week 20", "2024-05-13/2024-05-20"),
    ("it was 27-7-3.", "27-7-3", "2027-07-03"),
])
def test_a_full_stop_after_a_date_ends_its_sentence(text: str, span: str, value: str) -> None:
    assert (span, value) in [(s, v) for _, s, v in dates(text)]


@pytest.mark.parametrize(("text", "span", "value"), [
    ("call me mid-morning", "mid-morning", "10:00:00"),                     # the middle of a part of the day
    ("call me in the midafternoon", "midafternoon", "14:00:00"),
    ("lunch at mid day", "mid day", "12:00:00"),
    ("see you at 3ish", "3ish", "03:00:00"),                                # an hour, roughly
    ("see you noonish", "noonish", "12:00:00"),
    ("see you at five-ish", "five-ish", "05:00:00"),
])
def test_mid_times_and_rough_hours(text: str, span: str, value: str) -> None:
    assert dates(text) == [("time", span, value)]


@pytest.mark.parametrize(("text", "span", "value"), [
    ("due 15-Jun-2024.", "15-Jun-2024", "2024-06-15"),                      # a month's name between hyphens
    ("due 15/Jun/2024", "15/Jun/2024", "2024-06-15"),
    ("due 15-Jun-24", "15-Jun-24", "2024-06-15"),                           # a two-digit year: 20xx below 30
    ("born 15-Jun-89", "15-Jun-89", "1989-06-15"),
])
def test_a_day_a_month_name_and_a_year_joined_by_hyphens(text: str, span: str, value: str) -> None:
    assert dates(text) == [("date", span, value)]


def test_an_english_word_ending_in_ish_is_no_time() -> None:
    assert dates("the English language, a boyish grin, the Danish team") == []


@pytest.mark.parametrize(("text", "span", "type_", "value"), [
    ("shipped Oct-07-2023 by sea", "Oct-07-2023", "date", "2023-10-07"),    # hyphens around the day, with a year
    ("the plan for Mar-2025 is out", "Mar-2025", "date", "2025-03"),       # a month's name, hyphen, year
    ("she joined in June of 98", "June of 98", "date", "1998-06"),         # a two-digit year after "of"
    ("closed in May of 04.", "May of 04", "date", "2004-05"),
    ("back on 23/05", "23/05", "date", "2024-05-23"),                        # day first, the day past 12
    ("the shop opens in the evenings", "in the evenings", "timerange", "16:00:00/20:00:00"),
    ("she swims during mornings", "during mornings", "timerange", "08:00:00/12:00:00"),
    ("a free lunchtime talk", "lunchtime", "timerange", "11:00:00/13:00:00"),
])
def test_hyphened_month_names_two_digit_years_day_first_slashes_and_parts_of_the_day(
        text: str, span: str, type_: str, value: str) -> None:
    assert dates(text) == [(type_, span, value)]


@pytest.mark.parametrize("text", [
    "the ratio was 13/5 in the ledger's notation?",   # no zero before the month: a fraction as much as a date
    "rows 12-2015 to 12-2020",                         # a number range stays numbers
    "June of 1998 cases",                              # a four-digit count after "of" is read by the other grammar
])
def test_what_the_new_forms_leave_alone(text: str) -> None:
    found = dates(text)
    assert all(not (e[1].startswith("13/") or e[1].endswith("-2015")) for e in found), found


@pytest.mark.parametrize(("text", "span", "type_", "value"), [
    ("we leave before 4.15pm", "before 4.15pm", "timerange", "../16:15:00"),       # a range open before a time
    ("send it no later than 5pm", "no later than 5pm", "timerange", "../17:00:00"),
    ("I'll call today before 3pm", "today before 3pm", "daterange", "../2024-06-12T15:00:00"),  # on that day
    ("free Thursday after 2pm", "Thursday after 2pm", "daterange", "2024-06-13T14:00:00/.."),
    ("a room for three nights", "three nights", "duration", "P3D"),                # nights count days
    ("we stayed 2 nights", "2 nights", "duration", "P2D"),
])
def test_open_ranges_of_clock_times_on_a_day_and_nights_counted(text: str, span: str, type_: str,
                                                                 value: str) -> None:
    assert dates(text) == [(type_, span, value)]


@pytest.mark.parametrize("text", ["a night out with friends", "the nights are long"])
def test_a_night_named_by_its_article_is_no_amount_of_time(text: str) -> None:
    assert dates(text) == []


def test_until_a_time_still_closes_a_range_that_opened_earlier() -> None:
    assert dates("open from 9 until 5pm") == [("timerange", "from 9 until 5pm", "09:00:00/17:00:00")]


@pytest.mark.parametrize(("text", "span", "type_", "value"), [
    # two numeric dates joined by a dash: a year at either end or after both, "from", or a day past 12
    ("off 6/3-6/9, 2025 for the move", "6/3-6/9, 2025", "daterange", "2025-06-03/2025-06-09"),
    ("audit window 11/20-1/15/2025", "11/20-1/15/2025", "daterange", "2024-11-20/2025-01-15"),
    ("leave from 7/1-7/4", "from 7/1-7/4", "daterange", "2024-07-01/2024-07-04"),
    ("trip 3-2-2025-3-9-2025 booked", "3-2-2025-3-9-2025", "daterange", "2025-03-02/2025-03-09"),
    # four-digit clock times after "between"; "between ... to" as many write it
    ("the desk is staffed between 0800-1130", "between 0800-1130", "timerange", "08:00:00/11:30:00"),
    ("call between 10 to 11:30", "between 10 to 11:30", "timerange", "10:00:00/11:30:00"),
    # until today, today by another name, a couple without its article, a fraction sign before an hour
    ("how many tickets were closed to date?", "to date", "daterange", "../2024-06-12"),
    ("rows from 2024-01-01 till current date", "from 2024-01-01 till current date", "daterange",
     "2024-01-01/2024-06-12"),
    ("a ½ hour sync", "½ hour", "duration", "PT0.5H"),
    # later in a part of the day is its second half; the last week of a month holds its last day
    ("we will talk later in the afternoon", "later in the afternoon", "timerange", "14:00:00/16:00:00"),
    ("the last week of August 2024", "the last week of August 2024", "daterange", "2024-08-26/2024-09-02"),
    ("a review w/c June 17", "w/c June 17", "daterange", "2024-06-17/2024-06-24"),
])
def test_numeric_date_ranges_clock_ranges_to_date_and_the_ends_of_periods(text: str, span: str, type_: str,
                                                                           value: str) -> None:
    assert dates(text) == [(type_, span, value)]


@pytest.mark.parametrize("text", [
    "the score was 1/2-3/4 at half time",   # fractions: no year, no "from", no day past 12
    "keep the docs up to date",             # a state, not a period
    "that price is out of date",
    "between 2 to 3 people came",            # counts, not hours
])
def test_what_the_range_forms_leave_alone(text: str) -> None:
    assert [d for d in dates(text) if d[0] in ("daterange", "timerange")] == []


def test_a_couple_without_its_article_counts_two() -> None:
    assert dates("over the next couple weeks") == [
        ("daterange", "the next couple weeks", "2024-06-13/2024-06-27")]


@pytest.mark.parametrize(("text", "span", "type_", "value"), [
    ("closed 2/29-3/2", "2/29-3/2", "daterange", "2024-02-29/2024-03-02"),        # this year's, as 2/29 alone
    ("the fair runs 4 to 7 of July: come", "4 to 7 of July", "daterange", "2024-07-04/2024-07-07"),
    ("away from august the third till the tenth", "august the third till the tenth", "daterange",
     "2024-08-03/2024-08-10"),
    ("due the 2nd month of next year", "the 2nd month of next year", "date", "2025-02"),
    ("close it by the end of the friday", "the end of the friday", "datetime", "2024-06-14T23:59:59"),
    ("a 5Y fixed rate", "5Y", "duration", "P5Y"),
    ("see you thursday the 20th around 5.", "thursday the 20th around 5", "datetime", "2024-06-20T05:00:00"),
    ("call me 4 pm or later on Friday", "4 pm or later on Friday", "daterange", "2024-06-14T16:00:00/.."),
    ("send it before 6pm tomorrow", "before 6pm tomorrow", "daterange", "../2024-06-13T18:00:00"),
    ("we'll know later this month", "later this month", "daterange", "2024-06-16/2024-07-01"),  # its second half
])
def test_day_ranges_counted_months_ends_of_days_and_open_ranges_with_their_day_after(
        text: str, span: str, type_: str, value: str) -> None:
    assert dates(text) == [(type_, span, value)]


def test_a_range_from_february_29_in_a_common_year_starts_on_the_next_leap_day() -> None:
    assert dates("closed 2/29-3/2", datetime(2025, 6, 12)) == [("daterange", "2/29-3/2", "2028-02-29/2028-03-02")]


def test_the_thirteenth_month_is_no_month() -> None:
    assert [d for d in dates("the 13th month of the year") if "month" in d[1]] == []


@pytest.mark.parametrize(("text", "span", "type_", "value"), [
    ("free tuesday afternoon next week", "tuesday afternoon next week", "daterange",
     "2024-06-18T12:00:00/2024-06-18T16:00:00"),                               # a part of the day between
    ("in the office from 9am-4 today", "from 9am-4 today", "daterange",
     "2024-06-12T09:00:00/2024-06-12T16:00:00"),                               # an unmarked end after a morning start
    ("drinks on 21st - bring a friend", "21st", "date", "2024-06-21"),        # "on" with digits, no article
])
def test_a_weekday_window_of_a_named_week_an_afternoon_end_and_on_a_bare_ordinal(
        text: str, span: str, type_: str, value: str) -> None:
    assert dates(text) == [(type_, span, value)]


@pytest.mark.parametrize("text", ["meet on 2nd floor", "on 2nd thought, no"])
def test_on_an_ordinal_before_a_noun_is_no_day(text: str) -> None:
    assert dates(text) == []


def test_a_range_from_the_evening_past_midnight_keeps_its_end() -> None:
    assert dates("open 11pm-2 on fridays")[0][2].startswith("23:00:00/02:00:00")


@pytest.mark.parametrize(("text", "span", "type_", "value"), [
    ("the call runs for 1.5 hours from 10", "1.5 hours from 10", "timerange", "10:00:00/11:30:00"),
    ("pills after dinner", "after dinner", "timerange", "20:00:00/.."),
    ("done before dinnertime", "before dinnertime", "timerange", "../18:00:00"),
    ("coffee after lunch tomorrow", "after lunch tomorrow", "daterange", "2024-06-13T13:00:00/.."),  # stays open
    ("famous birthdays otd", "otd", "date", "2024-06-12"),                                           # on this day
    ("renew it next 3/1", "next 3/1", "date", "2025-03-01"),                   # the coming one, past this year's
])
def test_amounts_from_a_bare_hour_meals_on_a_day_and_the_next_numeric_date(text: str, span: str, type_: str,
                                                                            value: str) -> None:
    assert dates(text) == [(type_, span, value)]


def test_a_short_weekday_after_another_in_a_list_is_a_day() -> None:
    assert dates("free Wednesday or Fri") == [("date", "Wednesday", "2024-06-12"), ("date", "Fri", "2024-06-14")]
    assert dates("free on Tue or Thu") == [("date", "Tue", "2024-06-18"), ("date", "Thu", "2024-06-13")]


@pytest.mark.parametrize("text", ["salt and Sun cream", "cats or Sun", "a dinner party"])
def test_a_short_weekday_name_alone_or_a_meal_as_a_noun_is_no_day(text: str) -> None:
    assert dates(text) == []


@given(st.dates(min_value=date(1990, 1, 1), max_value=date(2089, 12, 1)), st.integers(min_value=1, max_value=200),
       st.sampled_from(["from {a}-{b}, {y}", "{a}-{b}/{y}"]))
def test_two_numeric_dates_joined_by_a_dash_are_one_range(start: date, days: int, form: str) -> None:
    end = start + timedelta(days=days)
    assume(end.year == start.year or form == "{a}-{b}/{y}")
    text = form.format(a=f"{start.month}/{start.day}", b=f"{end.month}/{end.day}", y=end.year)
    assert dates(f"booked {text} for the team") == [("daterange", text, f"{start.isoformat()}/{end.isoformat()}")]


# -- holidays beside a time; periods named with nothing to say which ------------------------------------
def test_an_english_holiday_stays_a_date_beside_its_time() -> None:
    assert dates("the party is on new year's eve at 9pm") == [
        ("date", "new year's eve", "2024-12-31"), ("time", "9pm", "21:00:00")]
    assert dates("we land at 7am on thanksgiving") == [
        ("time", "7am", "07:00:00"), ("date", "thanksgiving", "2024-11-28")]
    assert dates("we land tomorrow at 7am") == [("datetime", "tomorrow at 7am", "2024-06-13T07:00:00")]


@pytest.mark.parametrize(("text", "span", "type_", "value"), [
    ("we closed the books for the month.", "the month", "date", "2024-06"),
    ("I am off for the day", "the day", "date", "2024-06-12"),
    ("sales fell in the year!", "the year", "date", "2024"),
    ("we were busy all the week, then rested", "the week", "date", "2024-W24"),
    ("I was away that weekend.", "that weekend", "daterange", "2024-06-15/2024-06-17"),
    ("the desk is booked the fortnight", "the fortnight", "daterange", "2024-06-10/2024-06-24"),
])
def test_a_period_named_at_the_end_of_a_clause_is_the_current_one(text: str, span: str, type_: str,
                                                                   value: str) -> None:
    assert dates(text) == [(type_, span, value)]


@pytest.mark.parametrize("text", ["the day of signing", "the month in which it falls", "a weekend in Rome",
                                  "the most important meal of the day.", "what is the best day of the week?",
                                  "I think of it throughout the day"])
def test_a_period_that_the_clause_goes_on_to_name_is_not_the_current_one(text: str) -> None:
    assert not [d for d in dates(text) if d[0] in ("date", "daterange")]


def test_a_part_of_the_day_named_alone_is_its_hours_and_a_greeting_is_none() -> None:
    assert dates("we met one evening") == [("timerange", "evening", "16:00:00/20:00:00")]
    assert dates("two afternoon classes") == [("timerange", "afternoon", "12:00:00/16:00:00")]
    assert dates("Good morning, team") == []


@pytest.mark.parametrize(("text", "span", "value"), [
    ("the card expires 09/2027", "09/2027", "2027-09"),
    ("see the report for 2023-11.", "2023-11", "2023-11"),
    ("valid through 3-2026", "3-2026", "2026-03"),
])
def test_a_month_and_year_in_digits_is_that_month(text: str, span: str, value: str) -> None:
    assert dates(text) == [("date", span, value)]


@pytest.mark.parametrize("text", ["code 2023-13 failed", "pages 7-2150", "v2.10-2015"])
def test_digits_that_make_no_month_and_year_are_no_date(text: str) -> None:
    assert dates(text) == []


@pytest.mark.parametrize(("text", "span", "value"), [
    ("papers with year >= 2019", ">= 2019", "2019/.."),
    ("papers with year > = 2019", "> = 2019", "2019/.."),
    ("records > 2019 only", "> 2019", "2020/.."),
    ("records <= 2019 only", "<= 2019", "../2020"),
    ("records < 2000 only", "< 2000", "../2000"),
])
def test_a_compared_year_is_an_open_range(text: str, span: str, value: str) -> None:
    assert dates(text) == [("daterange", span, value)]


def test_a_year_set_equal_is_that_year() -> None:
    assert dates("rows where year = 2021") == [("date", "= 2021", "2021")]
    assert dates("年份 = 2021 的记录") == [("date", "= 2021", "2021")]
    assert dates("if x == 2021") == []


def test_a_compared_amount_outside_the_years_is_no_date() -> None:
    assert dates("orders with price > 1500") == []


def test_a_day_in_cardinal_words_before_a_month_and_its_year_is_that_day() -> None:
    assert dates("born on twelve March nineteen ninety") == [
        ("date", "twelve March nineteen ninety", "1990-03-12")]
    assert not [d for d in dates("five January invoices") if d[2] == "2024-01-05"]


def test_a_counted_range_goes_on_by_the_finer_durations_after_it() -> None:
    assert dates("over the past 2 years and 6 months") == [
        ("daterange", "the past 2 years and 6 months", "2021-12-12/2024-06-12")]
    assert dates("for the last 3 months and 2 weeks and 2 days ago it broke")[0] == (
        "daterange", "the last 3 months", "2024-03-12/2024-06-12")


def test_weekends_count_two_days_each_and_repeat_by_their_count() -> None:
    assert dates("the course runs four weekends") == [("duration", "four weekends", "P8D")]
    assert dates("we hike every three weekends") == [("set", "every three weekends", "R/P3WE")]
    assert not [d for d in dates("In two weekends we move") if d[0] == "duration"]  # a point, not an amount


def test_after_the_beginning_of_a_period_opens_at_its_start_and_after_its_early_part_at_that_part_end() -> None:
    assert dates("open after the beginning of July") == [("daterange", "after the beginning of July", "2024-07-01/..")]
    assert dates("open after the start of next month") == [
        ("daterange", "after the start of next month", "2024-07-01/..")]
    assert dates("open after early July") == [("daterange", "after early July", "2024-07-16/..")]
    assert dates("open after the end of July") == [("daterange", "after the end of July", "2024-08-01/..")]
