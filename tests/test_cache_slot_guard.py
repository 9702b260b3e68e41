"""The slot guard compares values, not characters, in English and Chinese."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lastline import is_cjk_dominant
from lastline.cache import SlotGuard, extract_slots, slot_guard_ok

VALUE_CHANGED = [
    # a day given as a part-of-day range (明天上午 is a daterange)
    ("明天上午有空吗", "后天上午有空吗"),
    # English: counts, amounts, dates, IDs, emails, URLs
    ("Book 2 tickets to Paris", "Book 3 tickets to Paris"),
    ("Can I buy one ticket online?", "Can I buy two tickets online?"),  # the lone "one" is no value, "two" is
    ("refund order 123", "refund order 456"),
    ("What is the status of order #A12345?", "What is the status of order #A12346?"),
    ("Transfer $500 to savings", "Transfer $5,000 to savings"),
    ("Is the store open on May 5?", "Is the store open on May 6?"),
    ("Send the invoice to alice@example.com", "Send the invoice to bob@example.com"),
    ("Summarize https://example.com/a", "Summarize https://example.com/b"),
    ("What is 15% of 80?", "What is 20% of 80?"),
    ("How many calories are in 2 eggs?", "How many calories are in 4 eggs?"),
    ("Which iPhone came out in 2016?", "Which iPhone came out in 2017?"),
    # English negation
    ("Can I cancel my subscription?", "Can't I cancel my subscription?"),
    ("Why is my phone charging?", "Why is my phone not charging?"),
    # Chinese: amounts incl. 两/万/亿 and financial capitals, counts, dates, order numbers
    ("我想借五千元", "我想借六千元"),
    ("借两万块要多少利息", "借三万块要多少利息"),
    ("贷款一亿元的利息", "贷款两亿元的利息"),
    ("还款壹仟元", "还款贰仟元"),
    ("买两张去北京的票", "买三张去北京的票"),
    ("3月5日的航班还有吗", "3月6日的航班还有吗"),
    ("订单号 AB12345 怎么退款", "订单号 AB12346 怎么退款"),
    ("分12期还款利息多少", "分24期还款利息多少"),
    ("我要借5000", "我要借6000"),
    ("一个人去西藏要多少钱", "两个人去西藏要多少钱"),
    # numbers glued to units or letters, versions, ratios, a number before a full stop
    ("How can I lose 4kg weight?", "How can I lose 5kg weight?"),
    ("Is 774mg of caffeine a day too much?", "Is 874mg of caffeine a day too much?"),
    ("Is 320kbps good enough?", "Is 420kbps good enough?"),
    ("My phone is a xiaomi mi3. How do I reset it?", "My phone is a xiaomi mi4. How do I reset it?"),
    ("I'm leaning towards the roland ds88. Any advice?", "I'm leaning towards the roland ds98. Any advice?"),
    ("Which is better, KitKat 4.4.4 or Lollipop 5.1?", "Which is better, KitKat 5.4.4 or Lollipop 5.1?"),
    ("My GPA is 2.3/4.0. Any chance?", "My GPA is 2.3/5.0. Any chance?"),
    ("I am 23. What should I study?", "I am 33. What should I study?"),
    ("I was born on 26/01/1989", "I was born on 27/01/1989"),
    ("我借15000.期限一个月，利息多少", "我借25000.期限一个月，利息多少"),
    ("1万一个月多少利息", "2万一个月多少利息"),
    ("5点之前还款可以吗", "6点之前还款可以吗"),
    ("为何我微信是6.3.7版本，没微粒贷服务？", "为何我微信是7.3.7版本，没微粒贷服务？"),
    ("1.看不到微粒贷图标", "2.看不到微粒贷图标"),  # list numbers compare too (measured cost: docs)
    ("Is wanting a dog a phase? (I am 13)", "Is wanting a dog a phase? (I am 23)"),  # not a list marker
    ("What is f(x+2) if f(x) = x^2?", "What is f(x+3) if f(x) = x^2?"),
]

SAME_VALUES = [
    # the same value written differently must still agree
    ("我想借五千元", "我想借5000元"),
    ("借两万", "借20000"),
    ("Transfer $5,000 to savings", "Transfer $5000 to savings"),
    ("我想借5000元", "我想借５０００元"),  # full-width digits
    # paraphrases without values, or with the same values
    ("How do I reset my password?", "How can I reset my password?"),
    ("Book 2 tickets to Paris", "Please book 2 tickets to Paris"),
    ("我想借钱", "我要借款"),
    ("纪念碑谷这关怎么过", "纪念碑谷这一关怎么过"),  # 一 here is a word, not a count
    ("怎么登录微粒贷", "怎么登陆微粒贷"),  # 陆 in 登陆 is not the capital 6
    ("为什么借不了钱", "为什么我借不了款"),  # Chinese negation on both sides
    ("为什么没有微粒贷", "为什么我无法开通微粒贷"),  # Chinese negation words differ: not a rule
    ("How can I lose 4kg weight?", "How can I lose 4 kg of weight?"),
    ("Should I buy the roland ds88 or wait?", "Should I buy the Roland DS88 or wait?"),
    ("Is KitKat 4.4.4 worth it?", "Is KitKat 4.4.04 worth it?"),
    ("Why don’t I get a refund?", "Why don't I get a refund?"),  # curly apostrophe is still n't
    ("我借15000.期限一个月", "我借15000，期限一个月"),
    ("What are the two steps: 1) apply 2) wait?", "What are the two steps to apply and wait?"),  # list markers
    ("Can I buy one ticket online?", "Can I buy a ticket online?"),  # a lone "one" counts as the article
    ("How can one learn physics?", "How do I learn physics?"),
    ("Effects of the ban of 500 1000 notes?", "Effects of the ban of 500 and 1000 notes?"),  # two numbers
]

TRIVIAL_REWRITES = [
    "Book 2 tickets to Paris on May 5",
    "refund order 123",
    "What is 15% of 80?",
    "Send the invoice to alice@example.com",
    "我想借五千元，分12期",
    "3月5日的航班还有吗？",
    "订单号 AB12345 怎么退款",
    "借两万块要多少利息?",
    "Which is better, KitKat 4.4.4 or Lollipop 5.1?",
    "My phone is a xiaomi mi3. How do I lose 4kg?",
    "我借15000.期限一个月",
]


def _rewrites(text: str) -> list[str]:
    half_full = str.maketrans({"?": "？", ",": "，", "!": "！", ":": "："})
    full_half = str.maketrans({"？": "?", "，": ",", "！": "!", "：": ":"})
    out = [
        text.upper(), text.lower(), "  " + text.replace(" ", "   ") + " ",
        text.translate(half_full), text.translate(full_half),
        text.rstrip("?？") if text.endswith(("?", "？")) else text + "？",
    ]
    if is_cjk_dominant(text):
        out.append(re.sub(r"([\u4e00-\u9fff])", r" \1 ", text))  # 我 想 借 钱: spaced characters
    return out


@pytest.mark.parametrize(("a", "b"), VALUE_CHANGED)
def test_guard_blocks_a_changed_value(a: str, b: str) -> None:
    assert not slot_guard_ok(a, b)
    assert not slot_guard_ok(b, a)


@pytest.mark.parametrize(("a", "b"), SAME_VALUES)
def test_guard_passes_same_values_written_differently(a: str, b: str) -> None:
    assert slot_guard_ok(a, b), SlotGuard().why(a, b)


@pytest.mark.parametrize("text", TRIVIAL_REWRITES)
def test_guard_passes_trivial_rewrites(text: str) -> None:
    for variant in _rewrites(text):
        assert slot_guard_ok(text, variant), (variant, SlotGuard().why(text, variant))


def test_guard_names_the_failing_rule() -> None:
    guard = SlotGuard()
    assert guard.why("refund order 123", "refund order 456") == "ident"
    assert guard.why("Book 2 tickets", "Book 3 tickets") == "amount"
    assert guard.why("Why is it on?", "Why is it not on?") == "negation"
    assert guard.why("same words", "same words") is None


def test_one_sided_values_count_as_different_by_default_but_not_in_both_mode() -> None:
    assert not slot_guard_ok("Book tickets to Paris", "Book 2 tickets to Paris")
    assert SlotGuard(one_sided="both").ok("Book tickets to Paris", "Book 2 tickets to Paris")
    # identifiers stay strict in either mode
    assert not SlotGuard(one_sided="both").ok("refund my order", "refund order 123")


def test_chinese_negation_anywhere_is_off_by_default_and_available() -> None:
    # a negator character that negates nothing (非常, "very"): only the whole-text rule vetoes
    assert slot_guard_ok("非常想借钱", "很想借钱")
    assert not SlotGuard(negation_zh=True).ok("非常想借钱", "很想借钱")
    # negation added where the questions differ: the changed-words rule (on by default) vetoes
    assert SlotGuard().why("能借钱吗", "不能借钱吗") == "negation_zh"


def test_extract_slots_normalizes_values() -> None:
    assert extract_slots("我想借五千元").values == extract_slots("我想借5000元").values
    assert extract_slots("no numbers here").values == ()
    assert extract_slots("Why not?").negated_en


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=80))
def test_guard_never_raises_and_is_symmetric_and_reflexive(text: str) -> None:
    assert slot_guard_ok(text, text)
    other = text + " 2"
    assert slot_guard_ok(text, other) == slot_guard_ok(other, text)


_LOADED_AFTER_WARM = """
import sys
from lastline.cache import SlotGuard, _lexicon
SlotGuard().warm()
loaders = [getattr(_lexicon, n) for n in _lexicon.__all__ if hasattr(getattr(_lexicon, n), "cache_info")]
print(sorted(f.__name__ for f in loaders if f.cache_info().currsize == 0))
import jieba
print(jieba.dt.initialized)
"""


def test_a_warm_up_loads_every_word_list_and_jiebas_dictionary_in_a_fresh_process() -> None:
    out = subprocess.run([sys.executable, "-c", _LOADED_AFTER_WARM], capture_output=True, text=True, check=True)
    assert out.stdout.split("\n")[:2] == ["[]", "True"]  # nothing left to load inside a first lookup
