"""find_entities: spans, normalized values, equal values for equal quantities, never raising."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime
from decimal import Decimal, localcontext

import cn2an
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lastline.rules import Entity, find_entities, parse_number

REF = datetime(2024, 6, 12, 10, 0)  # a Wednesday


def values(text: str, type_: str | None = None) -> list[object]:
    return [e.value for e in find_entities(text, reference_time=REF) if type_ is None or e.type == type_]


@pytest.mark.parametrize(("text", "expected"), [
    ("3万5千", "35000"), ("壹拾贰万", "120000"), ("1,200.50", "1200.5"), ("两千四百五", "2450"),
    ("36.57亿", "3657000000"), ("一千零五", "1005"), ("肆佰陸拾", "460"), ("1.2万亿", "1200000000000"),
    ("四亿五千六百四十二万零一十五", "456420015"), ("负1.1", "-1.1"),
])
def test_numbers_normalize_to_decimal_strings(text: str, expected: str) -> None:
    assert values(text, "number") == [expected]


@pytest.mark.parametrize(("text", "amount", "currency"), [
    ("人民币伍拾万元整", "500000", "CNY"), ("价格¥1,200.50", "1200.5", "CNY"), ("$3k", "3000", "USD"),
    ("USD 20", "20", "USD"), ("5千元", "5000", "CNY"), ("五千块", "5000", "CNY"), ("1200亿美元", "120000000000", "USD"),
    ("50元6角三分", "50.63", "CNY"), ("€15.5", "15.5", "EUR"), ("3.5 million dollars", "3500000", "USD"),
])
def test_money_has_amount_and_iso_currency(text: str, amount: str, currency: str) -> None:
    assert values(text, "money") == [{"amount": amount, "currency": currency}]


def test_equal_amounts_written_differently_have_equal_values() -> None:
    forms = ["借五千元", "借5000元", "借5,000元", "借5千元", "借伍仟元"]
    assert len({str(values(f, "money")) for f in forms}) == 1


@pytest.mark.parametrize(("text", "expected"), [
    ("15%", "15"), ("百分之十五", "15"), ("打八折", "80"), ("九五折", "95"), ("七成", "70"),
    ("千分之五", "0.5"), ("12个百分点", "12"), ("15 percent", "15"), ("负3.9%", "-3.9"),
])
def test_percentages_are_percent_numbers(text: str, expected: str) -> None:
    assert values(text, "percent") == [expected]


@pytest.mark.parametrize(("text", "type_", "expected"), [
    ("2024年6月15日", "date", "2024-06-15"), ("二〇二四年六月十五日", "date", "2024-06-15"),
    ("2024-06-15", "date", "2024-06-15"), ("June 15, 2024", "date", "2024-06-15"),
    ("15 June 2024", "date", "2024-06-15"), ("明天", "date", "2024-06-13"),
    ("下周三下午3点", "datetime", "2024-06-19T15:00:00"), ("next Friday", "date", "2024-06-21"),
    ("tomorrow at 3pm", "datetime", "2024-06-13T15:00:00"), ("下午5:00", "time", "17:00:00"),
    ("合同期限三年", "duration", "P3Y"), ("2018年10月", "date", "2018-10"),
    ("2015年1月1日或之后", "daterange", "2015-01-01/.."),
    ("从2016年一月十日到十二日", "daterange", "2016-01-10/2016-01-12"),
])
def test_dates_are_iso_8601_against_the_reference_time(text: str, type_: str, expected: str) -> None:
    assert values(text, type_) == [expected]


@pytest.mark.parametrize(("text", "type_", "expected"), [
    ("电话 138 1234 5678", "phone", "+8613812345678"), ("+86-13812345678", "phone", "+8613812345678"),
    ("座机010-62288559", "phone", "01062288559"), ("call +1 541-754-3010", "phone", "+15417543010"),
    ("mail Bob@Example.COM now", "email", "bob@example.com"),
    ("see https://Example.com/a?b=1.", "url", "https://example.com/a?b=1"),
    ("身份证11010519491231002X", "id_card", "11010519491231002X"),
    ("refund order 123456", "order_id", "123456"), ("订单号：AB12345", "order_id", "AB12345"),
])
def test_fixed_shape_entities(text: str, type_: str, expected: str) -> None:
    assert values(text, type_) == [expected]


@pytest.mark.parametrize(("text", "expected"), [
    ("第3期还款", ["3"]), ("第十二条", ["12"]), ("the 3rd payment", ["3"]), ("我第一次申请", []),
    # a bare 第N before a pause or the end ranks something; before other characters it is a word
    ("他这次考了第三。", ["3"]), ("第二百五十", ["250"]), ("第三，我们要核对金额", ["3"]), ("排名第 12!", ["12"]),
    ("选择第三方支付", []), ("第3.5名", []), ("见第1,3条", []), ("第三、第四名", ["3", "4"]),
])
def test_ordinals_only_where_they_name_an_item_or_stand_alone(text: str, expected: list[str]) -> None:
    assert values(text, "ordinal") == expected


def test_id_number_with_a_bad_checksum_is_not_an_id_card() -> None:
    assert values("身份证110105194912310021", "id_card") == []


def test_words_that_only_contain_numerals_are_not_numbers() -> None:
    assert values("一切都好，统一安排") == []


def test_types_filter_keeps_overlap_resolution() -> None:
    found = find_entities("2024年6月15日付款", reference_time=REF, types={"number"})
    assert found == []


def test_spans_are_offsets_into_the_original_text_with_full_width_digits() -> None:
    text = "金额：１２，０００元，比例５％"
    for e in find_entities(text, reference_time=REF):
        assert text[e.start:e.end] == e.text
    assert values(text, "percent") == ["5"]


def test_refund_orders_with_different_numbers_differ() -> None:
    assert values("refund order 123") != values("refund order 456")


@given(st.integers(min_value=0, max_value=10**12 - 1))
@settings(max_examples=300, deadline=None)
def test_chinese_numerals_round_trip(n: int) -> None:
    assert parse_number(cn2an.an2cn(n, "low")) == n
    assert parse_number(cn2an.an2cn(n, "up")) == n
    assert parse_number(f"{n:,}") == n


@given(st.decimals(min_value=0, max_value=10**9, places=2, allow_nan=False))
@settings(max_examples=200, deadline=None)
def test_money_values_round_trip_across_writings(d: Decimal) -> None:
    plain = format(d, "f")
    for text in (f"付款{plain}元", f"付款{d:,}元", f"付款¥{d:,}"):
        [money] = values(text)
        assert money["currency"] == "CNY"
        assert Decimal(money["amount"]) == d
        assert "E" not in money["amount"] and not (("." in money["amount"]) and money["amount"].endswith("0"))
    assert values(f"付款{plain}元") == values(f"付款{d:,}元") == values(f"付款¥{d:,}")


@given(st.integers(min_value=1, max_value=10**8))
@settings(max_examples=200, deadline=None)
def test_chinese_and_arabic_money_agree(n: int) -> None:
    assert values(f"借{cn2an.an2cn(n, 'low')}元") == values(f"借{n}元") == values(f"借{n:,}元")


class _Failures(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.ERROR)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


@contextmanager
def no_recognizer_failure(text: str) -> Iterator[None]:
    """``find_entities`` never raises because it logs a failing recognizer and goes on without it; a failure
    is still a bug (that recognizer's entities are lost for the whole text), so the properties check the log."""
    failures = _Failures()
    logger = logging.getLogger("lastline.rules.entities")
    logger.addHandler(failures)
    try:
        yield
    finally:
        logger.removeHandler(failures)
    assert not failures.records, (text, [r.getMessage() for r in failures.records])


@given(st.text(max_size=200))
@settings(max_examples=300, deadline=None)
def test_find_entities_never_raises_and_spans_match(text: str) -> None:
    with no_recognizer_failure(text):
        found = find_entities(text, reference_time=REF)
    for e in found:
        assert isinstance(e, Entity)
        assert text[e.start:e.end] == e.text


@given(st.lists(st.sampled_from(["²", "³", "¹⁴⁹", "₂", "½", "⅓", "①", "٣", "3", "10", "1,000", "two", "hundred",
                                 "fifths", "and", "a", "half", "km", "per", "-", " ", ".", "/", "$", "%"]),
                max_size=14).map(" ".join))
@settings(max_examples=300, deadline=None)
def test_digits_of_other_forms_beside_english_numbers_fail_no_recognizer(text: str) -> None:
    """Superscript and subscript digits count as digits to ``str.isdigit`` but are no decimal numbers: a
    recognizer that took one for digits failed on the whole text (``people/km²``, ``NH₂`` in an abstract)."""
    with no_recognizer_failure(text):
        find_entities(text, reference_time=REF)


def test_a_superscript_beside_english_numbers_keeps_them() -> None:
    found = [(e.type, e.text, e.value) for e in find_entities("3,000 people/km² and two hundred cells", lang="en")]
    assert found == [("number", "3,000", "3000"), ("number", "two hundred", "200")]


@given(st.text(alphabet="0123456789一二三四五六七八九十百千万亿零两年月日号点分%元$¥,.-:/ 周下上午后天", max_size=60))
@settings(max_examples=400, deadline=None)
def test_find_entities_never_raises_on_numeric_soup(text: str) -> None:
    with no_recognizer_failure(text):
        found = find_entities(text, reference_time=REF)
    for e in found:
        assert text[e.start:e.end] == e.text


@pytest.mark.parametrize("token", ["1点", "1 ", "1,", "个百分点", "月1日", "1%", "一 ", "1234567890", "前1"])
def test_long_entity_dense_input_completes(token: str) -> None:
    """Bounded repetitions and O(log n) overlap checks keep a scan linear (timed in bench, not here)."""
    text = token * (10_000 // len(token))
    found = find_entities(text, reference_time=REF)
    assert all(text[e.start:e.end] == e.text for e in found)


@pytest.mark.parametrize(("text", "expected"), [
    # a full stop after a number ends the sentence; it does not hide the number
    ("I am 23.And I feel lost", ["23"]), ("我借15000.期限一个月", ["15000"]), ("1.看不到微粒贷图标", ["1"]),
    ("GPA 2.3/4.0.Is there", ["2.3", "4"]),
    # a letter after k/m/w starts a unit (4kg, 320kbps), so the digits are the count, not 4000
    ("lose 4kg", ["4"]), ("774mg", ["774"]), ("320kbps", ["320"]), ("2mm", ["2"]), ("$3k", []),
])
def test_numbers_before_a_full_stop_or_a_unit_are_found(text: str, expected: list[str]) -> None:
    assert values(text, "number") == expected


@pytest.mark.parametrize("text", ["4.4.4", "1.2.3.4.", "3k.", "5kg.", "1..2", "..", "4kk", "9...16...24..."])
def test_dotted_and_unit_inputs_never_raise(text: str) -> None:
    find_entities(text, reference_time=REF)


@pytest.mark.parametrize(("text", "expected"), [
    ("1万一个月多少利息", ["10000"]), ("借1万一年", ["10000"]), ("1万五", ["15000"]), ("3万5千", ["35000"]),
])
def test_a_digit_before_a_classifier_counts_on_its_own(text: str, expected: list[str]) -> None:
    assert values(text, "number") == expected


@pytest.mark.parametrize("text", [
    "two thirds of the board agreed", "a fee of 1,234,567,890.125 dollars", "贷款三分之二，共计12,345,678,901.25元",
    "rates rose 12.3456789 percent", "一又三分之一",
])
def test_values_do_not_depend_on_the_callers_decimal_context(text: str) -> None:
    expected = [(e.type, e.text, e.value) for e in find_entities(text, reference_time=REF)]
    parse_number.cache_clear()
    with localcontext() as ctx:  # as a host (or a library it imported) may leave the thread's context
        ctx.prec = 6
        assert [(e.type, e.text, e.value) for e in find_entities(text, reference_time=REF)] == expected
        assert parse_number("一又三分之一") == Decimal("1.33333333333333")
