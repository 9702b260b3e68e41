"""One test per construction the entity grammars read: each names the kind of expression it pins.

The cases are written for the construction, not copied from the benchmark specs, so a grammar that
learned one spec string instead of the construction fails here.
"""

from __future__ import annotations

from datetime import date, datetime

import pytest
from hypothesis import given
from hypothesis import strategies as st

from lastline.rules import find_entities

REF = datetime(2024, 6, 12, 10, 0)  # a Wednesday
_MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
           "November", "December")


def found(text: str, *types: str) -> list[tuple[str, str, object]]:
    return [(e.type, e.text, e.value) for e in find_entities(text, reference_time=REF) if not types or e.type in types]


# -- numbers ----------------------------------------------------------------------------------
@pytest.mark.parametrize(("text", "value"), [
    ("3^2", "9"), ("10^-2", "0.01"), ("-2^+3", "-8"), ("1.5^--2", "2.25"),
])
def test_power_is_one_number(text: str, value: str) -> None:
    assert found(text, "number") == [("number", text, value)]


@pytest.mark.parametrize(("text", "span", "value"), [
    ("还剩2 1/4", "2 1/4", "2.25"), ("有3/4的人同意", "3/4", "0.75"), ("7 ３/8英寸", "7 ３/8", "7.375"),
])
def test_digit_fraction_with_a_whole_part_or_before_de_is_one_number(text: str, span: str, value: str) -> None:
    assert ("number", span, value) in found(text, "number")


def test_bare_proper_digit_fraction_is_one_number() -> None:
    assert found("1/4", "number") == [("number", "1/4", "0.25")]


def test_bare_improper_digit_fraction_is_not_read_as_a_fraction() -> None:
    """``12/1`` alone may be a day (or a score): never the number 12 (its digits stay two numbers)."""
    assert found("12/1", "number") == [("number", "12", "12"), ("number", "1", "1")]


@pytest.mark.parametrize("text", ["他去年退伍了", "这样说太放肆", "她弯腰拾起落叶", "飞机在大陆着陆", "气势十足",
                                  "同学们两两分组", "我一看就明白", "万"])
def test_a_numeral_inside_a_word_or_a_lone_unit_is_no_number(text: str) -> None:
    """Everyday characters that are also financial capitals (伍 肆 拾 陆) alone, numerals inside idioms
    (十足, 两两, 一看就), and a 万 with no count are no numbers."""
    assert found(text, "number") == []


@pytest.mark.parametrize(("text", "span", "value"), [
    ("合计伍拾万", "伍拾万", "500000"), ("共陆仟", "陆仟", "6000"), ("编号叁", "叁", "3"), ("一万人", "一万", "10000"),
])
def test_financial_capitals_in_a_run_or_unambiguous_stay_numbers(text: str, span: str, value: str) -> None:
    assert found(text, "number") == [("number", span, value)]


@pytest.mark.parametrize(("text", "span", "value"), [("买了三打鸡蛋", "三打", "36"), ("2打铅笔", "2打", "24")])
def test_dozens_multiply_by_twelve(text: str, span: str, value: str) -> None:
    assert found(text, "number") == [("number", span, value)]


@pytest.mark.parametrize("text", ["请打开文件", "一打电话就通了", "这件衣服打八折"])
def test_da_as_a_verb_is_not_a_dozen(text: str) -> None:
    assert all(not t.endswith("打") for _, t, _ in found(text, "number"))


# -- money ------------------------------------------------------------------------------------
def test_bitcoin_amount_is_money() -> None:
    assert found("转给他3个比特币", "money") == [("money", "3个比特币", {"amount": "3", "currency": "BTC"})]


# -- Chinese dates ----------------------------------------------------------------------------
@pytest.mark.parametrize(("text", "value"), [
    ("乾隆五十年", "1785"), ("光绪二十六年五月", "1900-05"), ("民国元年", "1912"), ("嘉庆10年3月", "1805-03"),
])
def test_era_year_reads_as_the_gregorian_year(text: str, value: str) -> None:
    assert found(text, "date") == [("date", text, value)]


@pytest.mark.parametrize(("text", "span", "value"), [
    ("我们每周三开会", "每周三", "R/XXXX-WXX-3"), ("每星期日休息", "每星期日", "R/XXXX-WXX-7"),
])
def test_every_weekday_is_a_set(text: str, span: str, value: str) -> None:
    assert found(text, "set") == [("set", span, value)]


# -- holidays ---------------------------------------------------------------------------------
@pytest.mark.parametrize(("text", "span", "value"), [
    ("国庆节放假", "国庆节", "2024-10-01"),  # fixed Gregorian day, next occurrence
    ("元旦前交付", "元旦", "2025-01-01"),  # already past this year → next year's
    ("2023年圣诞节", "2023年圣诞节", "2023-12-25"), ("去年的教师节", "去年的教师节", "2023-09-10"),
    ("母亲节快乐", "母亲节", "2025-05-11"),  # second Sunday of May (2024's is past)
    ("感恩节", "感恩节", "2024-11-28"),  # fourth Thursday of November
    ("端午节", "端午节", "2025-05-05"),  # lunar festival: lunar month and day, unconverted (2024-05-05 is past)
])
def test_chinese_holiday_names_resolve_to_their_day(text: str, span: str, value: str) -> None:
    assert found(text, "date") == [("date", span, value)]


@pytest.mark.parametrize(("text", "span", "value"), [
    ("see you on Christmas", "Christmas", "2024-12-25"), ("thanksgiving 2025", "thanksgiving 2025", "2025-11-27"),
    ("Easter 2024", "Easter 2024", "2024-03-31"), ("last Halloween", "last Halloween", "2023-10-31"),
    ("memorial day", "memorial day", "2025-05-26"),  # last Monday of May (2024's is past)
])
def test_english_holiday_names_resolve_to_their_day(text: str, span: str, value: str) -> None:
    assert found(text, "date") == [("date", span, value)]


# -- Chinese dates: years, days, periods -------------------------------------------------------
@pytest.mark.parametrize(("text", "value"), [
    ("两千零八年五月十二日", "2008-05-12"), ("一九九七年七月一日", "1997-07-01"), ("二〇一〇年三月", "2010-03"),
])
def test_worded_year_reads_as_digits(text: str, value: str) -> None:
    assert found(text, "date") == [("date", text, value)]


@pytest.mark.parametrize(("text", "span", "value"), [
    ("约在三月二十一见", "三月二十一", "2024-03-21"), ("十月十五那天", "十月十五", "2024-10-15"),
])
def test_worded_day_right_after_its_month_needs_no_ri(text: str, span: str, value: str) -> None:
    assert found(text, "date") == [("date", span, value)]


def test_relative_year_keeps_its_offset_before_this_month() -> None:
    assert found("去年本月五号", "date") == [("date", "去年本月五号", "2023-06-05")]


def test_lunar_marker_between_year_and_month() -> None:
    assert found("2023年农历八月十五", "date") == [("date", "2023年农历八月十五", "2023-08-15")]


@pytest.mark.parametrize(("text", "span", "value"), [
    ("2023年第二季度营收", "2023年第二季度", "2023-04-01/2023-07-01"), ("第4季度", "第4季度", "2024-10-01/2025-01-01"),
    ("下周末去爬山", "下周末", "2024-06-22/2024-06-24"), ("从2019到2021", "从2019到2021", "2019/2021"),
    ("18世纪80年代", "18世纪80年代", "1780/1790"), ("本世纪10年代", "本世纪10年代", "2010/2020"),
    ("近两年的数据", "近两年", "2022-06-12/2024-06-12"), ("上3个月", "上3个月", "2024-03-12/2024-06-12"),
])
def test_worded_periods_are_date_ranges(text: str, span: str, value: str) -> None:
    assert found(text, "daterange") == [("daterange", span, value)]


def test_evening_after_a_date_is_its_evening() -> None:
    assert found("六月二十号晚到货", "daterange") == [
        ("daterange", "六月二十号晚", "2024-06-20T16:00:00/2024-06-20T20:00:00")]


@pytest.mark.parametrize("text", ["我来晚了", "晚安", "今天很晚"])
def test_wan_without_a_date_is_not_a_time(text: str) -> None:
    assert found(text, "daterange", "timerange", "time") == []


# -- numeric dates ----------------------------------------------------------------------------
@pytest.mark.parametrize(("text", "value"), [("05/05/89", "1989-05-05"), ("07/04/21", "2021-07-04"),
                                             ("2010 01 29", "2010-01-29")])
def test_two_digit_years_pivot_at_thirty_and_spaced_iso_dates(text: str, value: str) -> None:
    assert found(text, "date") == [("date", text, value)]


# -- English numbers in words ------------------------------------------------------------------
@pytest.mark.parametrize(("text", "value"), [
    ("three hundred and forty two", "342"), ("twenty-one", "21"), ("sixty five point four", "65.4"),
    ("two thousand and one", "2001"), ("negative seven", "-7"), ("minus twelve", "-12"),
])
def test_english_cardinal_words(text: str, value: str) -> None:
    assert found(text, "number") == [("number", text, value)]


@pytest.mark.parametrize(("text", "value"), [
    ("three fifths", "0.6"), ("a quarter", "0.25"), ("one tenth", "0.1"), ("seven and a half", "7.5"),
    ("ten and two thirds", "10.666666666666667"), ("two over four", "0.5"), ("one out of ten", "0.1"),
    ("quarter million", "250000"),
])
def test_english_fraction_words(text: str, value: str) -> None:
    assert found(text, "number") == [("number", text, value)]


@pytest.mark.parametrize(("text", "value"), [
    ("4 dozen", "48"), ("two dozens", "24"), ("7 million", "7000000"), ("2.5 K", "2500"), ("3bn", "3000000000"),
])
def test_english_dozens_and_scaled_digits(text: str, value: str) -> None:
    assert found(text, "number") == [("number", text, value)]


@pytest.mark.parametrize("text", ["which one is better", "how can one apply", "the 10 m mark"])
def test_a_pronoun_one_and_lowercase_m_are_not_scaled_numbers(text: str) -> None:
    assert all(t != "one" and not t.endswith(" m") for _, t, _ in found(text, "number"))


# -- English money, percent, phones -------------------------------------------------------------
@pytest.mark.parametrize(("text", "amount", "currency"), [
    ("twelve dollars and fifty cents", "12.5", "USD"), ("two million yen", "2000000", "JPY"),
    ("forty euros", "40", "EUR"), ("three thousand us dollars", "3000", "USD"),
])
def test_amount_in_words_before_a_currency_word(text: str, amount: str, currency: str) -> None:
    assert found(text, "money") == [("money", text, {"amount": amount, "currency": currency})]


@pytest.mark.parametrize(("text", "amount", "currency"), [
    ("25 usd", "25", "USD"), ("300 rmb", "300", "CNY"), ("40 chinese yuan", "40", "CNY"), ("7 €", "7", "EUR"),
    ("c $ 2.5 million", "2500000", "CAD"), ("mex$ 40", "40", "MXN"), ("12 bitcoins", "12", "BTC"),
    ("90 turkish lira", "90", "TRY"), ("3 billion francs", "3000000000", "CHF"),
])
def test_currency_codes_names_and_symbols_after_the_amount(text: str, amount: str, currency: str) -> None:
    assert found(text, "money") == [("money", text, {"amount": amount, "currency": currency})]


@pytest.mark.parametrize(("text", "value"), [
    ("fifteen percent", "15"), ("minus two percent", "-2"), ("forty percentage", "40"), ("ten per cent", "10"),
])
def test_percent_in_words(text: str, value: str) -> None:
    assert found(text, "percent") == [("percent", text, value)]


@pytest.mark.parametrize(("text", "span", "value"), [
    ("Sales #-(415) 555-2671", "(415) 555-2671", "4155552671"),
    ("desk: (212).555.0188", "(212).555.0188", "2125550188"),
    ("desk.-415 555 2671", "415 555 2671", "4155552671"),
    ("dial 650.555.0100X123", "650.555.0100X123", "6505550100x123"),
])
def test_phone_area_codes_dotted_groups_and_upper_case_extensions(text: str, span: str, value: str) -> None:
    assert found(text, "phone") == [("phone", span, value)]


@pytest.mark.parametrize("text", ["91a-677-0060", "id 12-3456"])
def test_a_phone_never_starts_inside_a_code_joined_by_a_hyphen(text: str) -> None:
    assert found(text, "phone") == []


@pytest.mark.parametrize(("text", "span", "value"), [
    ("call 555-0188 after six", "555-0188", "5550188"),          # a local number: its groups joined by a hyphen
    ("Tel: 555 0188", "555 0188", "5550188"),                    # or named as one
    ("dial 0049 171 1234567", "0049 171 1234567", "+491711234567"),
    ("dial 00441611234567 now", "00441611234567", "+441611234567"),  # an unbroken run dialled abroad
    ("reach her on 8613812345678", "8613812345678", "+8613812345678"),  # a Chinese mobile with its country code
    ("her mobile 13812345678", "13812345678", "+8613812345678"),
])
def test_what_stays_a_phone(text: str, span: str, value: str) -> None:
    assert found(text, "phone") == [("phone", span, value)]


@pytest.mark.parametrize(("text", "numbers"), [
    ("the ban of 500 1000 notes", ["500", "1000"]),              # three digits and four, a space between
    ("a Thunderbird 350 2014 model", ["350", "2014"]),
    ("account 6222021234567890123 is frozen", ["6222021234567890123"]),  # too long for a number dialled at home
    ("barcode 6901028025096 on the box", ["6901028025096"]),
    ("among 2 901 019 adults", ["2901019"]),                      # thousands spaced out
])
def test_digits_a_phone_does_not_take(text: str, numbers: list[str]) -> None:
    assert found(text, "phone") == []
    assert [v for _, _, v in found(text, "number")] == numbers


# -- English dates ------------------------------------------------------------------------------
@pytest.mark.parametrize(("text", "type_", "value"), [
    ("last week", "date", "2024-W23"), ("next month", "date", "2024-07"), ("this year", "date", "2024"),
    ("next weekend", "daterange", "2024-06-22/2024-06-24"), ("previous month", "date", "2024-05"),
])
def test_english_relative_periods(text: str, type_: str, value: str) -> None:
    assert found(text, type_) == [(type_, text, value)]


@pytest.mark.parametrize(("text", "span", "value"), [
    ("see you thursday", "thursday", "2024-06-13"), ("closed on Wednesday", "Wednesday", "2024-06-12"),
    ("due in september", "september", "2024-09"),
])
def test_english_weekday_or_month_alone(text: str, span: str, value: str) -> None:
    assert found(text, "date") == [("date", span, value)]


@pytest.mark.parametrize(("text", "span", "value"), [
    ("sales 2019-2021.", "2019-2021", "2019/2021"), ("between 1998 and 2003", "between 1998 and 2003", "1998/2003"),
    ("from 2010 till 2012", "from 2010 till 2012", "2010/2012"), ("the 1980s", "the 1980s", "1980/1990"),
    ("the 70s", "the 70s", "1970/1980"),
])
def test_english_year_ranges_and_decades(text: str, span: str, value: str) -> None:
    assert found(text, "daterange") == [("daterange", span, value)]


def test_a_year_after_a_preposition_is_a_date_but_a_count_is_a_number() -> None:
    assert found("founded in 1987", "date") == [("date", "1987", "1987")]
    assert found("we sold 1987 units", "date") == []


@pytest.mark.parametrize(("text", "value"), [
    ("daily", "R/P1D"), ("every month", "R/P1M"), ("each three days", "R/P3D"), ("every tuesday", "R/XXXX-WXX-2"),
    ("once a week", "R/P1W"),
])
def test_english_sets(text: str, value: str) -> None:
    assert found(text, "set") == [("set", text, value)]


@pytest.mark.parametrize(("text", "value"), [
    ("two weeks from today", "2024-06-26"), ("3 days before yesterday", "2024-06-08"),
    ("a month after tomorrow", "2024-07-13"),
])
def test_english_offsets_from_a_named_day(text: str, value: str) -> None:
    assert found(text, "date") == [("date", text, value)]


@pytest.mark.parametrize(("text", "value"), [
    ("8.30pm", "20:30:00"), ("1140 a.m.", "11:40:00"), ("9:15a", "09:15:00"), ("seven o'clock", "07:00:00"),
    ("noon", "12:00:00"), ("midnight", "00:00:00"), ("half past seven", "07:30:00"),
    ("a quarter to eight", "07:45:00"), ("ten past nine", "09:10:00"), ("3 in the afternoon", "15:00:00"),
    ("in the evening at 8", "20:00:00"), ("9 in the morning", "09:00:00"),
])
def test_english_clock_times(text: str, value: str) -> None:
    assert found(f"see you {text}.", "time") == [("time", text, value)]


def test_minutes_to_an_hour_needs_a_minute_word() -> None:
    assert found("two to four people came", "time") == []
    assert found("twenty minutes to four", "time") == [("time", "twenty minutes to four", "03:40:00")]


@pytest.mark.parametrize(("text", "value"), [
    ("tomorrow at 8:45am", "2024-06-13T08:45:00"), ("3pm today", "2024-06-12T15:00:00"),
    ("friday, 10am", "2024-06-14T10:00:00"), ("8am this morning", "2024-06-12T08:00:00"),
    ("tonight at 2am", "2024-06-12T02:00:00"), ("tomorrow night at 9", "2024-06-13T21:00:00"),
    ("10 pm on June 20", "2024-06-20T22:00:00"),
])
def test_a_day_next_to_a_time_is_one_datetime(text: str, value: str) -> None:
    assert found(text, "datetime") == [("datetime", text, value)]


@pytest.mark.parametrize(("text", "type_", "value"), [
    ("tomorrow night", "daterange", "2024-06-13T20:00:00/2024-06-13T23:59:59"),
    ("this afternoon", "daterange", "2024-06-12T12:00:00/2024-06-12T16:00:00"),
    ("late this morning", "daterange", "2024-06-12T10:00:00/2024-06-12T12:00:00"),
    ("tonight", "daterange", "2024-06-12T20:00:00/2024-06-12T23:59:59"),
    ("friday evening", "daterange", "2024-06-14T16:00:00/2024-06-14T20:00:00"),
    ("in the morning", "timerange", "08:00:00/12:00:00"),
])
def test_english_parts_of_the_day(text: str, type_: str, value: str) -> None:
    assert found(text, type_) == [(type_, text, value)]


@pytest.mark.parametrize(("text", "value"), [
    ("this quarter", "2024-04-01/2024-07-01"), ("next quarter", "2024-07-01/2024-10-01"),
    ("last quarter", "2024-01-01/2024-04-01"), ("q3", "2024-07-01/2024-10-01"), ("2017 q1", "2017-01-01/2017-04-01"),
    ("Q4-2019", "2019-10-01/2020-01-01"), ("2019-h2", "2019-07-01/2020-01-01"), ("H1 2020", "2020-01-01/2020-07-01"),
    ("the third quarter of 2018", "2018-07-01/2018-10-01"), ("the second half of next year", "2025-07-01/2026-01-01"),
])
def test_english_quarters_and_halves(text: str, value: str) -> None:
    assert found(text, "daterange") == [("daterange", text, value)]


@pytest.mark.parametrize(("text", "value"), [
    ("previous wednesday", "2024-06-05"), ("previous friday", "2024-06-07"), ("following monday", "2024-06-17"),
    ("this past tuesday", "2024-06-11"),
])
def test_english_weekday_of_the_previous_or_following_week(text: str, value: str) -> None:
    assert found(text, "date") == [("date", text, value)]


@pytest.mark.parametrize(("text", "type_", "value"), [
    ("two hours", "duration", "PT2H"), ("3h", "duration", "PT3H"), ("one and a half hours", "duration", "PT1.5H"),
    ("half an hour", "duration", "PT0.5H"), ("a fortnight", "duration", "P2W"), ("all week", "duration", "P1W"),
    ("one year and a quarter", "duration", "P1.25Y"), ("few minutes", "duration", "PT3M"),
    ("3 minutes from now", "datetime", "2024-06-12T10:03:00"),
    ("half an hour from now", "datetime", "2024-06-12T10:30:00"), ("in two months", "date", "2024-08-12"),
    ("3 weeks later", "date", "2024-07-03"), ("five days ago", "date", "2024-06-07"),
    ("within 2h", "daterange", "2024-06-12T10:00:00/2024-06-12T12:00:00"),
])
def test_english_amounts_of_time_and_offsets_from_now(text: str, type_: str, value: str) -> None:
    assert found(f"it takes {text}", type_) == [(type_, text, value)]


def test_a_second_time_is_not_a_duration() -> None:
    assert found("try a second time", "duration") == []


@pytest.mark.parametrize(("text", "span", "value"), [
    ("a rise of percent of 10", "percent of 10", "10"), ("per cent of 210 in a year", "per cent of 210", "210"),
    ("a percentage of twelve", "percentage of twelve", "12"),
])
def test_percent_named_before_its_rate(text: str, span: str, value: str) -> None:
    assert found(text, "percent") == [("percent", span, value)]


@pytest.mark.parametrize(("text", "span", "amount", "currency"), [
    ("shares closed at 197 pence.", "197 pence", "197", "GBX"),
    ("it starts at dollar 22.5 million", "dollar 22.5 million", "22500000", "USD"),
    ("rises to 17 USD 25.", "17 USD 25", "17.25", "USD"), ("it was 15 dollars 50", "15 dollars 50", "15.5", "USD"),
    ("a budget of 120 MEUR", "120 MEUR", "120000000", "EUR"), ("5 kUSD per seat", "5 kUSD", "5000", "USD"),
])
def test_money_minor_units_scaled_codes_and_a_currency_word_first(text: str, span: str, amount: str,
                                                                  currency: str) -> None:
    assert found(text, "money") == [("money", span, {"amount": amount, "currency": currency})]


def test_a_count_after_an_amount_is_not_its_cents() -> None:
    assert found("5 dollars 10 times", "money") == [("money", "5 dollars", {"amount": "5", "currency": "USD"})]
    assert found("5 USD 10 more times", "money") == [("money", "5 USD", {"amount": "5", "currency": "USD"})]
    assert found("ten dollars twenty people came", "money") == [
        ("money", "ten dollars", {"amount": "10", "currency": "USD"})]


@pytest.mark.parametrize(("text", "span", "amount", "currency"), [
    ("the bid was 75 USD million in cash", "75 USD million", "75000000", "USD"),
    ("a fee of 2.5 EUR billion.", "2.5 EUR billion", "2500000000", "EUR"),
    ("with 15 USD 50 more we could pay", "15 USD 50", "15.5", "USD"),
    ("they added 20 dollars 25 extra", "20 dollars 25", "20.25", "USD"),
    ("a 12-cent-a-share dividend", "12-cent", "0.12", "USD"),
    ("it only cost thirteen dollars forty five", "thirteen dollars forty five", "13.45", "USD"),
    ("that's twenty pounds fifty, please", "twenty pounds fifty", "20.5", "GBP"),
])
def test_a_scale_after_the_code_cents_left_unnamed_and_hyphened_cents(text: str, span: str, amount: str,
                                                                      currency: str) -> None:
    assert found(text, "money") == [("money", span, {"amount": amount, "currency": currency})]


@pytest.mark.parametrize(("text", "value"), [
    ("twenty and three fifths", "20.6"), ("five - eighths", "0.625"), ("five-eighths", "0.625"),
    ("ninety - five", "95"), ("2000 over 3", "666.666666666666667"), ("¾", "0.75"), ("2½", "2.5"),
    ("- 1 4/5", "-1.8"), ("6.23x10^-4", "0.000623"), ("1.3 × 10^6", "1300000"),
])
def test_english_fraction_forms_signs_and_scientific_notation(text: str, value: str) -> None:
    assert found(f"it is {text}", "number") == [("number", text, value)]


def test_over_before_a_unit_is_a_preposition() -> None:
    assert ("duration", "3 years", "P3Y") in found("a loan of $10000 over 3 years")


def test_a_hyphen_between_digits_is_not_a_sign() -> None:
    assert found("the score was 3-1 4/5", "number")[-1][2] == "1.8"


@pytest.mark.parametrize(("text", "type_", "value"), [
    ("5 to 6pm", "timerange", "17:00:00/18:00:00"), ("from 3:30 to 5:55", "timerange", "03:30:00/05:55:00"),
    ("9.30-4.30pm", "timerange", "09:30:00/16:30:00"), ("from 10 am to 2pm", "timerange", "10:00:00/14:00:00"),
    ("between 5 and 6 in the afternoon", "timerange", "17:00:00/18:00:00"),
    ("tuesday from 2:00 to 2:30 pm", "daterange", "2024-06-18T14:00:00/2024-06-18T14:30:00"),
    ("monday 11-4", "daterange", "2024-06-17T11:00:00/2024-06-17T16:00:00"),
    ("between 3 and 8 yesterday", "daterange", "2024-06-11T03:00:00/2024-06-11T08:00:00"),
    ("3:00 to 4:00 tomorrow", "daterange", "2024-06-13T03:00:00/2024-06-13T04:00:00"),
    ("tomorrow evening between 7:30 and 9", "daterange", "2024-06-13T19:30:00/2024-06-13T21:00:00"),
])
def test_english_ranges_of_clock_times(text: str, type_: str, value: str) -> None:
    assert found(text, type_) == [(type_, text, value)]


@pytest.mark.parametrize("text", ["from 2 to 4 people", "pages 10-12", "a 3-1 win", "between 5 and 7 items"])
def test_bare_number_ranges_without_a_day_are_not_times(text: str) -> None:
    assert found(text, "timerange", "daterange") == []


@pytest.mark.parametrize(("text", "type_", "value"), [
    ("after feb", "daterange", "2024-03/.."), ("after the year 2020", "daterange", "2021/.."),
    ("later than 2018", "daterange", "2019/.."), ("since august", "daterange", "2024-08/.."),
    ("starting on january 7th", "daterange", "2024-01-07/.."), ("after january 1, 2007", "daterange", "2007-01-01/.."),
    ("after 3pm", "timerange", "15:00:00/.."), ("until april 27th", "daterange", "../2024-04-27"),
    ("Before May 2019", "daterange", "../2019-05"), ("no later than june 30", "daterange", "../2024-06-30"),
])
def test_english_open_ranges_named_by_a_preposition(text: str, type_: str, value: str) -> None:
    assert found(text, type_) == [(type_, text, value)]


def test_may_the_verb_is_not_a_month() -> None:
    assert found("I may go in may", "date") == [("date", "may", "2024-05")]


@pytest.mark.parametrize(("text", "value"), [
    ("next two days", "2024-06-13/2024-06-15"), ("the next 3 weeks", "2024-06-13/2024-07-04"),
    ("5 upcoming years", "2024-06-13/2029-06-13"), ("past 3 weeks", "2024-05-22/2024-06-12"),
    ("last 2 quarters", "2023-10-01/2024-04-01"), ("next quarter", "2024-07-01/2024-10-01"),
    ("last minute", "2024-06-12T09:59:00/2024-06-12T10:00:00"),
    ("next hour", "2024-06-12T10:00:00/2024-06-12T11:00:00"),
    ("the next couple of days", "2024-06-13/2024-06-15"),
])
def test_english_counted_ranges_before_or_after_now(text: str, value: str) -> None:
    assert found(text, "daterange") == [("daterange", text, value)]


@pytest.mark.parametrize(("text", "type_", "value"), [
    ("next week mon", "date", "2024-06-17"), ("next week on tuesday", "date", "2024-06-18"),
    ("last week friday", "date", "2024-06-07"), ("week 10", "daterange", "2024-03-04/2024-03-11"),
    ("the second week of 2021", "daterange", "2021-01-11/2021-01-18"),
    ("the last week of 2019", "daterange", "2019-12-23/2019-12-30"),
    ("the first week of jan 2015", "daterange", "2014-12-29/2015-01-05"),
    ("the end of 2000", "daterange", "2000-09-01/2001-01-01"), ("end of the day", "datetime", "2024-06-12T23:59:59"),
])
def test_english_weeks_weekdays_of_a_week_and_period_ends(text: str, type_: str, value: str) -> None:
    assert found(text, type_) == [(type_, text, value)]


@pytest.mark.parametrize(("text", "value"), [
    ("second of Aug", "2024-08-02"), ("the fourth of july 1995", "1995-07-04"),
    ("fourth of july of 1995", "1995-07-04"),
    ("the twenty third day of September", "2024-09-23"), ("the twenty-first of march", "2024-03-21"),
    ("july 4th of 1995", "1995-07-04"), ("march eighteenth", "2024-03-18"), ("jan/3", "2024-01-03"),
    ("Dec31 , 1994", "1994-12-31"), ("2020/23/Sep", "2020-09-23"), ("2019/aug/01", "2019-08-01"),
    ("dec, 2018", "2018-12"),
])
def test_english_day_of_month_in_ordinal_words_and_slashed_month_names(text: str, value: str) -> None:
    assert found(f"due {text}", "date") == [("date", text, value)]


def test_an_ordinal_word_without_a_month_is_no_date() -> None:
    assert found("first of all, the first day of school", "date") == []


def test_a_range_end_named_in_words_keeps_its_own_month() -> None:
    assert found("2019/aug/01 to today", "daterange") == [
        ("daterange", "2019/aug/01 to today", "2019-08-01/2024-06-12")]


@pytest.mark.parametrize(("text", "type_", "value"), [
    ("friday 5/12", "date", "2024-05-12"), ("Monday, June 17 at 10am", "datetime", "2024-06-17T10:00:00"),
    ("sunday 30", "date", "2024-06-30"), ("Sat 14th", "date", "2024-09-14"), ("on 6/4 at 5pm", "datetime", None),
])
def test_english_weekday_with_its_date_and_month_day_after_a_cue(text: str, type_: str, value: str | None) -> None:
    hits = found(text, type_)
    assert len(hits) == 1 and hits[0][1] in (text, text.removeprefix("on "))
    assert value is None or hits[0][2] == value


def test_a_bare_digit_fraction_is_no_date() -> None:
    assert found("add 3/4 cup of flour", "date") == []


@pytest.mark.parametrize(("text", "span", "type_", "value"), [
    ("十月的第一周是国庆节", "十月的第一周", "daterange", "2024-10-07/2024-10-14"),
    ("2019年3月第二周", "2019年3月第二周", "daterange", "2019-03-11/2019-03-18"),
    ("8月的最后一个星期一", "8月的最后一个星期一", "date", "2024-08-26"),
    ("从四月的最后一个星期一到十月一日", "从四月的最后一个星期一到十月一日", "daterange", "2024-04-29/2024-10-01"),
])
def test_chinese_week_of_a_month_and_last_weekday_of_a_month(text: str, span: str, type_: str, value: str) -> None:
    assert (type_, span, value) in found(text, type_)


@pytest.mark.parametrize(("text", "value"), [
    ("from 10/1/2018-10/7/2018", "2018-10-01/2018-10-07"), ("2:00-明天4:00", "2024-06-12T02:00:00/2024-06-13T04:00:00"),
])
def test_ranges_of_numeric_dates_and_a_time_to_a_later_day(text: str, value: str) -> None:
    assert found(text, "daterange") == [("daterange", text, value)]


@pytest.mark.parametrize(("text", "value"), [
    ("every night", "R/TNI"), ("every weekend", "R/P1WE"), ("bi-monthly", "R/P2M"), ("semi-annually", "R/P0.5Y"),
    ("friday mornings", "R/XXXX-WXX-5TMO"), ("Thursdays", "R/XXXX-WXX-4"), ("everyday", "R/P1D"),
    ("each monday at 4pm", "R/XXXX-WXX-1T16"), ("every evening at 7:13 p.m.", "R/T19:13"), ("6am everyday", "R/T06"),
    ("thursdays at 17.30", "R/XXXX-WXX-4T17:30"),
])
def test_english_sets_with_parts_of_the_day_plural_weekdays_and_times(text: str, value: str) -> None:
    assert found(f"we meet {text}", "set") == [("set", text, value)]


@pytest.mark.parametrize(("text", "span", "value"), [
    ("from sep to nov", "from sep to nov", "2024-09/2024-11"),
    ("november 19-20", "november 19-20", "2024-11-19/2024-11-20"),
    ("april ninth through seventeenth", "april ninth through seventeenth", "2024-04-09/2024-04-17"),
    ("between 3 and 12 of sept", "between 3 and 12 of sept", "2024-09-03/2024-09-12"),
    ("June 3 to 5 2019", "June 3 to 5 2019", "2019-06-03/2019-06-05"),
])
def test_english_ranges_of_months_and_of_days_in_a_month(text: str, span: str, value: str) -> None:
    assert found(text, "daterange") == [("daterange", span, value)]


@pytest.mark.parametrize("text", ["I want to mar it", "this may work", "This may or may not be right."])
def test_may_and_mar_as_verbs_are_no_months(text: str) -> None:
    assert found(text, "date", "daterange") == []


@pytest.mark.parametrize(("text", "values"), [
    ("they played three-nought-four", ["3", "0", "4"]), ("twenty-one trillion and three hundred", ["21000000000300"]),
    ("a five-year plan", ["5"]), ("forty-two", ["42"]),
])
def test_english_digits_read_one_by_one_trillions_and_a_count_joined_to_its_unit(text: str,
                                                                                 values: list[str]) -> None:
    assert [v for _, _, v in found(text, "number")] == values


@pytest.mark.parametrize(("text", "amount", "currency"), [
    ("its one-yen bid", "1", "JPY"), ("three quarters billion us dollars", "750000000", "USD"),
])
def test_money_in_words_joined_by_a_hyphen_or_a_fraction_of_a_scale(text: str, amount: str, currency: str) -> None:
    assert [v for _, _, v in found(text, "money")] == [{"amount": amount, "currency": currency}]


@pytest.mark.parametrize(("text", "type_", "value"), [
    ("two months after next friday", "date", "2024-08-21"), ("3 days from tuesday", "date", "2024-06-21"),
    ("5 days before new year", "date", "2024-12-27"), ("for 2 hours from 2pm", "timerange", "14:00:00/16:00:00"),
    ("from 10 am for 3 hours", "timerange", "10:00:00/13:00:00"), ("the next decade", "daterange", "2030/2040"),
    ("later this week", "daterange", "2024-06-13/2024-06-17"),
    ("later this month", "daterange", "2024-06-16/2024-07-01"),
])
def test_english_offsets_from_a_named_day_spans_from_a_time_decades_and_the_rest_of_a_period(
        text: str, type_: str, value: str) -> None:
    [hit] = found(text, type_)
    assert hit[0] == type_ and hit[2] == value and hit[1] in text


def test_a_time_and_a_week_are_not_a_range() -> None:
    assert found("Race - 3pm - this week", "time") == [("time", "3pm", "15:00:00")]


# -- English: third round (constructions named from the misses of half a) ----------------------
@pytest.mark.parametrize(("text", "span", "value"), [
    ("We met on 07/04/51.", "07/04/51", "1951-07-04"), ("Due 12/31/2025.", "12/31/2025", "2025-12-31"),
])
def test_a_numeric_date_ends_before_a_sentence_full_stop(text: str, span: str, value: str) -> None:
    assert ("date", span, value) in found(text, "date")


@pytest.mark.parametrize(("text", "span", "value"), [
    ("paid $30 March 3", "March 3", "2024-03-03"), ("total 1,204.15 May 2020", "May 2020", "2020-05"),
])
def test_the_tail_of_an_amount_or_a_decimal_is_no_day_of_the_month(text: str, span: str, value: str) -> None:
    assert ("date", span, value) in found(text, "date")


@pytest.mark.parametrize(("text", "value"), [
    ("from march in 2011 to may in 2012", "2011-03/2012-05"),
    ("4 july in 2021 to 9 july in 2022", "2021-07-04/2022-07-09"),
])
def test_a_month_or_day_names_its_year_after_in(text: str, value: str) -> None:
    assert found(text) == [("daterange", text, value)]


@pytest.mark.parametrize(("text", "value"), [
    ("monday 17 at 9", "2024-06-17T09:00:00"), ("june 20 at 5", "2024-06-20T05:00:00"),
])
def test_a_bare_hour_after_at_follows_its_date(text: str, value: str) -> None:
    assert found(text) == [("datetime", text, value)]


def test_a_bare_hour_that_opens_a_range_keeps_the_range_meridiem() -> None:
    assert found("june 20 at 4 - 5:30 pm", "daterange") == [
        ("daterange", "june 20 at 4 - 5:30 pm", "2024-06-20T16:00:00/2024-06-20T17:30:00")]


@pytest.mark.parametrize(("text", "value"), [
    ("from 6 in the morning until 2pm", "06:00:00/14:00:00"), ("from May 3 through May 9", "2024-05-03/2024-05-09"),
    ("June 1 till June 4", "2024-06-01/2024-06-04"),
])
def test_ranges_joined_by_until_till_or_through(text: str, value: str) -> None:
    assert [v for _, _, v in found(text)] == [value]


@pytest.mark.parametrize(("text", "span", "value"), [
    ("on 3/5/2019 or later", "3/5/2019 or later", "2019-03-05/.."),
    ("by 5/3/2019 and earlier", "5/3/2019 and earlier", "../2019-05-03"),
    ("as early as next month", "as early as next month", "2024-07/.."),
    ("as late as 9:30 pm", "as late as 9:30 pm", "../21:30:00"),
    ("after about 4pm", "after about 4pm", "16:00:00/.."),
])
def test_open_ranges_by_and_later_as_early_as_and_around(text: str, span: str, value: str) -> None:
    assert (span, value) in [(t, v) for _, t, v in found(text)]


def test_and_before_another_point_is_no_open_range() -> None:
    assert all(v != "../2010" for _, _, v in found("sales after 2010 and before 2018"))


@pytest.mark.parametrize(("text", "value"), [
    ("the 19th century", "1800/1900"), ("the 1st century", "0000/0100"), ("21st century", "2000/2100"),
])
def test_an_ordinal_century_is_its_hundred_years(text: str, value: str) -> None:
    assert found(text) == [("daterange", text, value)]


@pytest.mark.parametrize(("text", "value"), [("cy 2012", "2012"), ("cy21", "2021"), ("calendar year 1999", "1999")])
def test_a_calendar_year_is_that_year(text: str, value: str) -> None:
    assert found(text) == [("date", text, value)]


@pytest.mark.parametrize(("text", "value"), [
    ("earlier this week", "2024-06-10/2024-06-12"), ("earlier this year", "2024-01-01/2024-06-12"),
])
def test_earlier_in_a_period_runs_from_its_start_to_today(text: str, value: str) -> None:
    assert found(text) == [("daterange", text, value)]


def test_tonite_is_tonight() -> None:
    assert [v for _, _, v in found("see you tonite")] == [v for _, _, v in found("see you tonight")] != []


def test_an_order_keyword_inside_a_word_names_no_order() -> None:
    assert found("sales_report-2002-10-09.xlsx") == [("date", "2002-10-09", "2002-10-09")]
    assert ("order_id", "PO-2291", "PO-2291") in found("see PO-2291")


# -- Chinese: third round ---------------------------------------------------------------------
@pytest.mark.parametrize(("text", "span"), [
    ("我们20号见", "20号"), ("5号之前交", "5号之前"), ("3号下午两点", "3号下午两点"), ("截止到12号", "截止到12号"),
    ("12号到15号", "12号到15号"),
])
def test_a_bare_day_number_with_hao_is_a_day_of_this_month(text: str, span: str) -> None:
    assert [t for _, t, _ in found(text, "date", "datetime", "daterange")] == [span]


@pytest.mark.parametrize("text", ["12号", "3号楼", "12号线", "5号选手", "房间号是12号", "A12号", "第12号"])
def test_a_numbered_thing_is_no_day(text: str) -> None:
    assert found(text, "date", "datetime", "daterange") == []


@pytest.mark.parametrize(("text", "value"), [
    ("2010年之后2018年之前", "2010/2018"), ("3月5日以后且4月1日以前", "2024-03-05/2024-04-01"),
])
def test_after_one_point_and_before_another_is_one_range(text: str, value: str) -> None:
    assert found(text) == [("daterange", text, value)]


def test_two_open_ranges_listed_with_a_comma_stay_two() -> None:
    assert [v for _, _, v in found("2010年1月1日或之后、2011年1月8日之前")] == ["2010-01-01/..", "../2011-01-08"]


@pytest.mark.parametrize(("text", "value"), [("你27-7-3有空吗", "2027-07-03"), ("on 24-6-15", "2024-06-15")])
def test_a_hyphened_date_with_a_two_digit_year_first(text: str, value: str) -> None:
    assert [v for t, _, v in found(text) if t == "date"] == [value]


def test_a_count_of_three_small_numbers_is_no_date() -> None:
    assert found("3-2-1", "date") == []


@pytest.mark.parametrize(("text", "value"), [
    ("4 thousand 3 hundred and 21", "4321"), ("2 million 500 thousand", "2500000"), ("7 thousand and 9", "7009"),
])
def test_digits_with_falling_scale_words_are_one_number(text: str, value: str) -> None:
    assert found(text, "number") == [("number", text, value)]


def test_a_rising_scale_starts_a_new_number() -> None:
    assert [v for _, _, v in found("3 thousand 2 million", "number")] == ["3000", "2000000"]


@pytest.mark.parametrize(("text", "value"), [
    ("last easter", "2024-03-31"), ("last christmas", "2023-12-25"), ("last year's easter", "2023-04-09"),
])
def test_last_holiday_is_the_most_recent_one_and_last_years_is_last_years(text: str, value: str) -> None:
    assert found(text) == [("date", text, value)]


@pytest.mark.parametrize(("text", "value"), [
    ("between now and August 1st", "2024-06-12/2024-08-01"), ("between May 2023 and now", "2023-05/2024-06-12"),
    ("between 9am and 11am", "09:00:00/11:00:00"),
])
def test_between_a_and_b_is_one_range_and_now_is_today(text: str, value: str) -> None:
    assert [v for _, _, v in found(text)] == [value]


def test_and_without_between_lists_two_points() -> None:
    assert [t for t, _, _ in found("on June 3 and June 9")] == ["date", "date"]


def test_this_calendar_year_is_this_year() -> None:
    assert [v for _, _, v in found("this calendar year")] == [v for _, _, v in found("this year")] != []


@pytest.mark.parametrize(("text", "value"), [
    ("20 min past eight in the evening", "20:20:00"), ("half past six in the morning", "06:30:00"),
])
def test_a_clock_time_takes_its_part_of_the_day_after_it(text: str, value: str) -> None:
    assert found(text) == [("time", text, value)]


@pytest.mark.parametrize(("text", "span", "value"), [
    ("for 3 hours 30 minutes", "3 hours 30 minutes", "PT3H30M"),
    ("2 years, 1 month and 21 days", "2 years, 1 month and 21 days", "P2Y1M21D"),
])
def test_a_duration_written_in_parts_is_one_duration(text: str, span: str, value: str) -> None:
    assert found(text) == [("duration", span, value)]


def test_two_durations_of_one_unit_stay_two() -> None:
    assert [v for _, _, v in found("3 hours 2 hours")] == ["PT3H", "PT2H"]


def test_a_time_for_a_duration_in_parts_is_the_range_it_covers() -> None:
    assert [v for _, _, v in found("from 10 am for 3 hours 30 minutes")] == ["10:00:00/13:30:00"]


# -- English parts of a period, days counted in a period, weekday of a named week ----------------
@pytest.mark.parametrize(("text", "value"), [
    ("early June", "2024-06-01/2024-06-16"), ("mid-June", "2024-06-10/2024-06-21"),
    ("late June", "2024-06-16/2024-07-01"), ("the end of June", "2024-06-16/2024-07-01"),
    ("the beginning of July 2025", "2025-07-01/2025-07-16"), ("the end of next month", "2024-07-16/2024-08-01"),
    ("mid-2023", "2023-05-01/2023-09-01"), ("late 2008", "2008-09-01/2009-01-01"),
    ("the start of next year", "2025-01-01/2025-07-01"), ("the end of the week", "2024-06-13/2024-06-17"),
    ("early next week", "2024-06-17/2024-06-20"),
])
def test_english_early_mid_late_part_of_a_period(text: str, value: str) -> None:
    assert found(f"due {text}.", "daterange") == [("daterange", text, value)]


@pytest.mark.parametrize(("text", "value"), [
    ("the first Monday of July", "2024-07-01"), ("the last Friday of June", "2024-06-28"),
    ("the second Tuesday of next month", "2024-07-09"), ("the third Thursday of November 2025", "2025-11-20"),
    ("the last day of the month", "2024-06-30"), ("the first day of 2025", "2025-01-01"),
    ("the last day of February 2024", "2024-02-29"), ("the first day of next month", "2024-07-01"),
])
def test_english_day_counted_inside_a_month_or_year(text: str, value: str) -> None:
    assert found(f"starts {text}.", "date") == [("date", text, value)]


def test_a_fifth_weekday_the_month_lacks_is_no_date() -> None:
    # February 2024 has four Mondays: no day is made up (the weekday and the month still read alone)
    assert all("fifth" not in t for _, t, _ in found("the fifth Monday of February 2024"))


@pytest.mark.parametrize(("text", "span", "value"), [
    ("payable on the 15th.", "the 15th", "2024-06-15"),  # still ahead this month
    ("payable on the 5th.", "the 5th", "2024-07-05"),  # past this month: next month's
    ("due by the 30th", "the 30th", "2024-06-30"), ("on the 3rd of next month", "the 3rd of next month", "2024-07-03"),
    ("the twenty-sixth day of the month", "the twenty-sixth day of the month", "2024-06-26"),
])
def test_english_ordinal_day_of_month_without_a_month_name(text: str, span: str, value: str) -> None:
    assert found(text, "date") == [("date", span, value)]


@pytest.mark.parametrize("text", ["around the 21st", "the 3rd party", "on the 2nd floor", "the first to arrive",
                                  "between the 21st and 23rd", "the 15th of each month"])
def test_an_ordinal_without_a_cue_or_before_a_noun_is_no_day(text: str) -> None:
    assert found(text, "date", "daterange") == []


@pytest.mark.parametrize(("text", "value"), [
    ("Friday next week", "2024-06-21"), ("tuesday of last week", "2024-06-04"), ("Thursday this week", "2024-06-13"),
    ("day after tomorrow", "2024-06-14"), ("the next day", "2024-06-13"), ("the previous day", "2024-06-11"),
])
def test_english_weekday_of_a_named_week_and_days_named_from_today(text: str, value: str) -> None:
    assert found(f"see you {text}.", "date") == [("date", text, value)]


@pytest.mark.parametrize(("text", "value"), [
    ("the week after next", "2024-W26"), ("the following week", "2024-W25"), ("the month before last", "2024-04"),
])
def test_english_periods_two_steps_away_and_the_following_one(text: str, value: str) -> None:
    assert found(f"by {text}", "date")[0][2] == value


@pytest.mark.parametrize(("text", "value"), [
    ("the week of June 19", "2024-06-17/2024-06-24"), ("the week starting on June 10", "2024-06-10/2024-06-17"),
    ("2 weeks starting June 20th", "2024-06-20/2024-07-04"), ("Mon-Fri", "2024-06-17/2024-06-21"),
    ("from Tuesday to Thursday", "2024-06-18/2024-06-20"), ("1-15 June", "2024-06-01/2024-06-15"),
    ("the first week of July", "2024-07-01/2024-07-08"), ("the end of the day", None),
])
def test_english_weeks_held_by_a_day_spans_from_a_day_and_ranges_of_weekdays(text: str, value: str | None) -> None:
    if value is None:
        assert found(text, "datetime") == [("datetime", text, "2024-06-12T23:59:59")]
    else:
        assert found(f"open {text}.", "daterange") == [("daterange", text, value)]


def test_a_bare_hour_after_at_that_ends_the_clause_is_the_days_hour() -> None:
    assert found("see you Friday at 3.", "datetime") == [("datetime", "Friday at 3", "2024-06-14T03:00:00")]
    assert found("open Friday at 3 locations", "datetime") == []
    assert found("3 and 12 May", "daterange") == []


# -- English percent units, currency names and codes, fractions of a scale -------------------------
@pytest.mark.parametrize(("text", "value"), [
    ("15 percentage points", "15"), ("four percentage points", "4"), ("2.5 percentum", "2.5"),
    ("150 basis points", "1.5"), ("150bps", "1.5"), ("5 per cent", "5"),
])
def test_english_percent_units_and_basis_points(text: str, value: str) -> None:
    assert found(f"a rise of {text} a year", "percent") == [("percent", text, value)]


def test_a_rate_in_kbps_is_no_basis_point() -> None:
    assert found("a 320kbps stream", "percent") == []


@pytest.mark.parametrize(("text", "amount", "currency"), [
    ("CHF 200", "200", "CHF"), ("200 Swiss Francs", "200", "CHF"), ("AUD 1,500", "1500", "AUD"),
    ("50 Australian dollars", "50", "AUD"), ("Rs. 5000", "5000", "INR"), ("INR 2.5 million", "2500000", "INR"),
    ("3 PLN", "3", "PLN"), ("50 bucks", "50", "USD"), ("3 dollars and 50 cents", "3.5", "USD"),
    ("12 euros 5 cents", "12.05", "EUR"), ("100 pounds sterling", "100", "GBP"),
])
def test_english_currency_codes_and_names_around_an_amount(text: str, amount: str, currency: str) -> None:
    assert found(f"pay {text} now", "money") == [("money", text, {"amount": amount, "currency": currency})]


@pytest.mark.parametrize("text", ["give it 2 try", "5 php files", "3 rub marks"])
def test_a_lower_case_word_that_spells_a_code_is_no_currency(text: str) -> None:
    assert found(text, "money") == []


@pytest.mark.parametrize(("text", "value"), [
    ("half a million", "500000"), ("a quarter of a million", "250000"), ("half a billion", "500000000"),
    ("two-thirds", "0.666666666666667"), ("five-eighths", "0.625"), ("a dozen", "12"),
])
def test_english_half_a_scale_hyphened_fractions_and_a_dozen(text: str, value: str) -> None:
    # "a quarter of a million" is English for 250,000 (a fraction of a scale), not two numbers
    assert found(f"about {text} of them", "number") == [("number", text, value)]


@pytest.mark.parametrize(("text", "span", "value"), [
    ("see you 11/20", "11/20", "2024-11-20"), ("11/20, 12 of Nov", "11/20", "2024-11-20"),
    ("born 2/29", "2/29", "2024-02-29"),
])
def test_a_bare_month_day_whose_day_is_past_twelve_is_a_date(text: str, span: str, value: str) -> None:
    assert found(text, "date")[0] == ("date", span, value)


def test_a_bare_leap_day_in_a_common_year_is_the_next_leap_day() -> None:
    assert [e.value for e in find_entities("2/29", reference_time=datetime(2025, 3, 1)) if e.type == "date"] == [
        "2028-02-29"]


@pytest.mark.parametrize("text", ["add 3/4 cup", "价格12/20元", "version 1/13/2"])
def test_a_small_fraction_a_chinese_text_or_a_longer_run_is_no_bare_month_day(text: str) -> None:
    assert found(text, "date") == []


@pytest.mark.parametrize(("text", "type_", "value"), [
    ("meet at nine thirty", "time", "09:30:00"), ("three thirty pm", "time", "15:30:00"),
    ("at twelve oh five am", "time", "00:05:00"), ("tomorrow at seven fifteen", "datetime", "2024-06-13T07:15:00"),
    ("from two thirty to two forty-five", "timerange", "02:30:00/02:45:00"),
])
def test_english_clock_times_in_words_after_a_cue(text: str, type_: str, value: str) -> None:
    assert [v for t, _, v in found(text) if t == type_] == [value]


def test_two_number_words_without_a_cue_are_no_clock_time() -> None:
    assert found("ten twenty", "time") == [] and found("nine thirty year olds", "time") == []


def test_a_list_of_weekdays_stays_a_list_of_days() -> None:
    assert found("free on Wednesday, Thursday or Friday", "date") == [
        ("date", "Wednesday", "2024-06-12"), ("date", "Thursday", "2024-06-13"), ("date", "Friday", "2024-06-14")]


# -- a range does not end before it starts ------------------------------------------------------------
@pytest.mark.parametrize(("text", "value"), [
    ("off from December 20 to January 3", "2024-12-20/2025-01-03"),       # the end crosses the new year
    ("the promo runs Dec 28 - Jan 4", "2024-12-28/2025-01-04"),
    ("valid from today until March 3", "2024-06-12/2025-03-03"),          # a month already past this year
    ("between now and February 1", "2024-06-12/2025-02-01"),
    ("from today to April", "2024-06-12/2025-04"),
    ("活动从12月20日到1月3日", "2024-12-20/2025-01-03"),
    ("有效期从今天到3月5日", "2024-06-12/2025-03-05"),
    ("从今天到二月", "2024-06-12/2025-02"),
    ("值班从周五到周一", "2024-06-14/2024-06-17"),                          # a weekday alone: the one after the start
    ("from December 20 to January 3, 2024", "2023-12-20/2024-01-03"),     # a written year is kept
    ("从今天到明年三月", "2024-06-12/2025-03"),
])
def test_a_range_whose_end_names_no_year_ends_after_its_start(text: str, value: str) -> None:
    assert [v for t, _, v in found(text) if t == "daterange"] == [value]


@given(st.dates(min_value=date(2000, 1, 1), max_value=date(2090, 12, 31)), st.integers(1, 12),
       st.integers(1, 28), st.integers(1, 12), st.integers(1, 28), st.booleans())
def test_a_range_of_yearless_days_never_ends_before_it_starts(ref: date, m1: int, d1: int, m2: int, d2: int,
                                                              zh: bool) -> None:
    text = f"从{m1}月{d1}日到{m2}月{d2}日" if zh else f"from {_MONTHS[m1 - 1]} {d1} to {_MONTHS[m2 - 1]} {d2}"
    ranges = [e.value for e in find_entities(text, reference_time=datetime(ref.year, ref.month, ref.day))
              if e.type == "daterange"]
    assert len(ranges) == 1
    start, end = ranges[0].split("/")
    assert start <= end
    assert (date.fromisoformat(end) - date.fromisoformat(start)).days < 366


# -- a bare Chinese hour opening a range of clock times ---------------------------------------------------
@pytest.mark.parametrize(("text", "span", "value"), [
    ("会议三点到五点", "三点到五点", "03:00:00/05:00:00"),
    ("我们从八点到十点开会", "从八点到十点", "08:00:00/10:00:00"),
    ("营业时间十点至十二点", "十点至十二点", "10:00:00/12:00:00"),
    ("两点到三点半之间有空", "两点到三点半之间", "02:00:00/03:30:00"),
])
def test_a_bare_chinese_hour_before_to_and_a_clock_time_opens_a_timerange(text: str, span: str, value: str) -> None:
    assert found(text, "timerange", "time") == [("timerange", span, value)]


@pytest.mark.parametrize("text", ["我有三点建议", "三点建议到五点再说"])
def test_a_bare_chinese_hour_with_no_clock_time_after_to_is_no_time(text: str) -> None:
    assert ("time", "三点", "03:00:00") not in found(text)


# -- 现在 opening a range ---------------------------------------------------------------------------
@pytest.mark.parametrize(("text", "span", "value"), [
    ("从现在到八点都有空", "从现在到八点", "2024-06-12T10:00:00/2024-06-12T20:00:00"),   # 八点 after now: 20:00
    ("现在开始至下午五点", "现在开始至下午五点", "2024-06-12T10:00:00/2024-06-12T17:00:00"),
    ("从现在到周五都在出差", "从现在到周五", "2024-06-12/2024-06-14"),                     # to a day: whole days
    ("活动从现在起到12月31日", "从现在起到12月31日", "2024-06-12/2024-12-31"),
])
def test_now_in_chinese_opens_a_range_from_the_reference_time(text: str, span: str, value: str) -> None:
    assert [(t, s, v) for t, s, v in found(text) if t in ("daterange", "datetime", "date", "time")] == [
        ("daterange", span, value)]


@pytest.mark.parametrize("text", ["我现在想借五千元", "现在能提额吗", "目前到账了吗"])
def test_now_in_chinese_alone_is_no_entity(text: str) -> None:
    assert [e for e in find_entities(text, reference_time=REF) if e.type in ("datetime", "date", "daterange")] == []


# -- parts of a Chinese month, halves counted in the unit below, named lunar months -------------------
@pytest.mark.parametrize(("text", "span", "type_", "value"), [
    ("合同在本月最后一天到期", "本月最后一天", "date", "2024-06-30"),          # a month's last day
    ("请在2024年2月的最后一天前提交", "2024年2月的最后一天", "date", "2024-02-29"),
    ("新规下个月第一天执行", "下个月第一天", "date", "2024-07-01"),           # and its first
    ("今年最后一天放假", "今年最后一天", "date", "2024-12-31"),              # a year's last day
    ("款项六月下旬到账", "六月下旬", "daterange", "2024-06-21/2024-07-01"),  # its ten-day thirds
    ("这个月中旬出差", "这个月中旬", "daterange", "2024-06-11/2024-06-21"),
    ("3月上旬发货", "3月上旬", "daterange", "2024-03-01/2024-03-11"),
    ("下个月初再说", "下个月初", "daterange", "2024-07-01/2024-07-11"),      # 月初: the first third
    ("2月底交货", "2月底", "daterange", "2024-02-21/2024-03-01"),            # 月底 / 月末: the last
    ("请在月底前付款", "月底", "daterange", "2024-06-21/2024-07-01"),        # 月 alone: this month
])
def test_parts_and_edge_days_of_a_chinese_month(text: str, span: str, type_: str, value: str) -> None:
    assert found(text, type_) == [(type_, span, value)]


@pytest.mark.parametrize("text", ["三月初一是春节", "每月底结算", "每月月底对账", "岁月如歌"])
def test_a_lunar_day_or_every_month_is_no_part_of_this_month(text: str) -> None:
    assert not [f for f in found(text, "daterange") if str(f[2]).startswith(("2024-03-01/", "2024-06-21/"))]


@pytest.mark.parametrize(("text", "span", "type_", "value"), [
    ("半年前签的合同", "半年前", "date", "2023-12-12"),                      # half a year: six months
    ("三年半前", "三年半前", "date", "2020-12-12"),
    ("半个月后复查", "半个月后", "date", "2024-06-27"),                      # half a month: 15 days
    ("两个半月后交付", "两个半月后", "date", "2024-08-27"),
    ("一个半小时后出发", "一个半小时后", "datetime", "2024-06-12T11:30:00"),  # 个 before 半
    ("会议开了一个半小时", "一个半小时", "duration", "PT1.5H"),
    ("工期两个半月", "两个半月", "duration", "P2.5M"),
])
def test_a_half_counts_in_the_unit_below_it(text: str, span: str, type_: str, value: str) -> None:
    assert found(text, type_) == [(type_, span, value)]


def test_half_a_day_from_now_names_no_day() -> None:
    assert found("半天后", "date", "datetime") == []


@pytest.mark.parametrize(("text", "span", "value"), [
    ("腊月二十三是小年", "腊月二十三", "2024-12-23"),                         # lunar months by name, kept lunar
    ("臘月初八喝粥", "臘月初八", "2024-12-08"),
    ("冬月初八出生", "冬月初八", "2024-11-08"),
])
def test_named_lunar_months(text: str, span: str, value: str) -> None:
    assert found(text, "date") == [("date", span, value)]


@pytest.mark.parametrize(("text", "span", "type_", "value"), [
    ("差五分十点到", "差五分十点", "time", "09:55:00"),                       # minutes short of the hour
    ("十点差五分出发", "十点差五分", "time", "09:55:00"),
    ("差一刻八点", "差一刻八点", "time", "07:45:00"),                          # a quarter short
    ("下午差5分3点开会", "下午差5分3点", "time", "14:55:00"),                 # after a part of the day
    ("明天下午差五分三点", "明天下午差五分三点", "datetime", "2024-06-13T14:55:00"),  # composed with its day
])
def test_a_clock_time_told_by_what_it_lacks(text: str, span: str, type_: str, value: str) -> None:
    assert found(text, "time", "datetime") == [(type_, span, value)]


@pytest.mark.parametrize("text", ["差距十点五个百分点", "差不多了", "差五分"])
def test_cha_without_an_hour_is_no_time(text: str) -> None:
    assert found(text, "time", "datetime") == []


@pytest.mark.parametrize(("text", "span", "value"), [
    ("每月5日前支付租金", "每月5日", "R/XXXX-XX-05"),                         # a day of every month
    ("每个月的1号发工资", "每个月的1号", "R/XXXX-XX-01"),
    ("每月十五号对账", "每月十五号", "R/XXXX-XX-15"),
    ("每年3月15日年检", "每年3月15日", "R/XXXX-03-15"),                      # a day of every year
])
def test_a_day_that_comes_back_is_a_set_not_this_months_day(text: str, span: str, value: str) -> None:
    assert found(text, "set", "date") == [("set", span, value)]


def test_a_yearly_day_no_month_has_is_none() -> None:
    assert found("每年2月30日", "set", "date") == []
