"""The cheap first passes in front of the grammars never hide a match: they only skip work."""

from __future__ import annotations

import re
from datetime import datetime

import pytest
from hypothesis import given
from hypothesis import strategies as st

from lastline.rules import dates_en, dates_zh, dates_zh_periods, find_entities, numbers_en

#: Digits, separators, Chinese date words and numerals: everything the grammars read except ASCII letters.
LETTERLESS_TEXT = st.text(alphabet=st.sampled_from("0123456789 -–~/.:,'%年月日号点时分秒周星期天前后半季末代第每最"
                                                   "一二三四五六七八九十两个上下本今明昨到至从"), max_size=30)
#: Chinese date text: what the Chinese period patterns read.
ZH_TEXT = st.text(alphabet=st.sampled_from("0123456789 -~年月份日号点时時分钟秒周週星期礼拜天前后後半季度末代第每最后近"
                                           "过去未来之还剩一二两三四五六七八九十个個上下本这今明去世纪"
                                           "从自到至的"), max_size=30)


@pytest.mark.parametrize(("name", "rx"), [(n, rx) for n, rx in dates_en._COMPILED if n not in dates_en.LETTERLESS])
@given(text=LETTERLESS_TEXT)
def test_english_word_date_patterns_never_match_text_without_ascii_letters(
        name: str, rx: re.Pattern[str], text: str) -> None:
    assert rx.search(text) is None


@pytest.mark.parametrize("rx", list(dates_zh_periods.GATES), ids=lambda rx: rx.pattern[:30])
@given(text=ZH_TEXT)
def test_a_chinese_period_match_holds_a_character_of_its_gate(rx: re.Pattern[str], text: str) -> None:
    for m in rx.finditer(text):
        assert any(ch in m.group() for ch in dates_zh_periods.GATES[rx])


@given(text=LETTERLESS_TEXT)
def test_word_numbers_need_an_ascii_letter(text: str) -> None:
    assert numbers_en.SCALED_RE.search(text) is None
    assert numbers_en.SCALED_CHAIN_RE.search(text) is None
    assert numbers_en._HAS_WORD.search(text) is None


def test_gated_patterns_still_read_their_constructions() -> None:
    ref = datetime(2024, 5, 8)
    assert [e.value for e in find_entities("2015-2018", reference_time=ref)] == ["2015/2018"]
    assert [e.value for e in find_entities("每周一", reference_time=ref)] == ["R/XXXX-WXX-1"]
    assert [e.value for e in find_entities("in 3 days", reference_time=ref)] == ["2024-05-11"]


#: Chinese text of every kind but the anchors: numerals, relative words, eras, parts of days' prefixes.
NO_ANCHOR_TEXT = st.text(alphabet=st.sampled_from("0123456789 .-/:：一二两三四五六七八九十零〇百千万上下本这个前后"
                                                  "後大今明昨去中正农历農曆凌清傍半刻钟"
                                                  "康熙乾隆民国元的份"), max_size=30)


@given(text=NO_ANCHOR_TEXT)
def test_chinese_dates_and_durations_need_their_anchor(text: str) -> None:
    ref = datetime(2024, 5, 8)
    if dates_zh.DATE_ANCHOR.search(text) is None:
        assert [h for m in dates_zh.DATETIME_RE.finditer(text) if m.end() > m.start()
                for h in [dates_zh._datetime_hit(m, ref)] if h is not None] == []
    if dates_zh.DURATION_ANCHOR.search(text) is None:
        assert dates_zh.DURATION_RE.search(text) is None
