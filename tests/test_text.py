"""Normalization for matching: trivial rewrites share a key, different questions don't."""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from lastline import is_cjk_dominant, language_of, normalize_text, text_hash
from lastline.text import CJK_CHARS, cjk_ratio


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("How do I reset my password?", "how do i reset my password"),
        ("How do I reset   my password ?", "How do I reset my password"),
        ("我想借五千元？", "我想借五千元"),
        ("我想借五千元。", "我想借五千元"),
        ("ＡＢＣ１２３", "abc123"),
        ("我 想 借 钱", "我想借钱"),
        ("退款，订单123", "退款,订单123"),
    ],
)
def test_trivial_rewrites_normalize_equal(a: str, b: str) -> None:
    assert normalize_text(a) == normalize_text(b)


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("refund order 123", "refund order 456"),
        ("借五千元", "借六千元"),
        ("from Shenzhen to Beijing", "from Beijing to Shenzhen"),
    ],
)
def test_different_questions_stay_different(a: str, b: str) -> None:
    assert normalize_text(a) != normalize_text(b)


@given(st.text())
def test_normalize_is_idempotent(text: str) -> None:
    once = normalize_text(text)
    assert normalize_text(once) == once


@given(st.text())
def test_normalize_ignores_surrounding_whitespace_and_case(text: str) -> None:
    assert normalize_text(f"  {text.upper()}\n") == normalize_text(f"\t{text.upper()} ")


def test_text_hash_is_stable_hex() -> None:
    assert text_hash("abc") == text_hash("abc")
    assert len(text_hash("abc")) == 64


@pytest.mark.parametrize(
    ("text", "lang"),
    [
        ("我的银行卡丢了", "zh"),
        ("How do I reset my password", "en"),
        ("lastline 的缓存怎么用", "zh"),
        ("123 456", "en"),
    ],
)
def test_language_of_follows_the_dominant_script(text: str, lang: str) -> None:
    assert language_of(text) == lang
    assert is_cjk_dominant(text) == (lang == "zh")


@given(st.text(alphabet=st.characters(codec="utf-8")) | st.text(alphabet="中文かな한글 abcÀ1２_²,。"))
def test_cjk_ratio_is_the_share_of_cjk_among_letters(text: str) -> None:
    letters = [ch for ch in text if re.fullmatch(r"[^\W\d_]", ch)]
    cjk = [ch for ch in letters if re.fullmatch(f"[{CJK_CHARS}]", ch)]
    assert cjk_ratio(text) == (len(cjk) / len(letters) if letters else 0.0)
