"""Questions that ask the opposite never share an answer: antonyms, Chinese negation, role swaps."""

from __future__ import annotations

import pytest

from lastline.cache import SlotGuard

OPPOSITE = [
    # English antonyms and direction words, inflected forms too
    ("What is the best phone under 300 dollars?", "What is the worst phone under 300 dollars?", "antonym"),
    ("How do I increase my weight?", "How do I decrease my weight?", "antonym"),
    ("Why do prices increase before Diwali?", "Why do prices increase after Diwali?", "antonym"),
    ("What happens when interest rates rise?", "What happens when interest rates fall?", "antonym"),
    ("How can I enable two-factor login?", "How can I disable two-factor login?", "antonym"),
    ("Is it cheaper to buy a car or lease?", "Is it cheaper to sell a car or lease?", "antonym"),
    ("Which stocks increased the most this year?", "Which stocks decreased the most this year?", "antonym"),
    ("Is this legal in India?", "Is this illegal in India?", "antonym"),
    ("What are the advantages of remote work?", "What are the disadvantages of remote work?", "antonym"),
    ("Which laptop is the cheapest?", "Which laptop is the most expensive?", "antonym"),
    ("How do I buy a gun without a license?", "How do I buy a gun with a license?", "antonym"),  # curated
    # Chinese antonyms: word pairs and opposite characters in the same place
    ("怎么开通微粒贷", "怎么关闭微粒贷", "antonym"),
    ("额度怎么提高", "额度怎么降低", "antonym"),
    ("利率上调了吗", "利率下调了吗", "antonym"),
    ("屏幕上面的按钮是干什么的", "屏幕下面的按钮是干什么的", "antonym"),
    ("借款成功后多久到账", "借款失败后多久到账", "antonym"),
    ("我的额度为什么增加了", "我的额度为什么减少了", "antonym"),
    ("怎么借款", "怎么还款", "antonym"),
    # Chinese negation added or dropped
    ("能借钱吗", "不能借钱吗", "negation_zh"),
    ("为什么可以提前还款", "为什么不可以提前还款", "negation_zh"),
    ("我有微粒贷", "我没有微粒贷", "negation_zh"),
    ("审核通过了", "审核未通过", "negation_zh"),
    # role swaps
    ("深圳到北京的高铁票多少钱", "北京到深圳的高铁票多少钱", "role_swap"),
    ("从上海飞成都要多久", "从成都飞上海要多久", "role_swap"),
    ("How do I convert pdf to word?", "How do I convert word to pdf?", "role_swap"),
    ("How long is the flight from Paris to New York?", "How long is the flight from New York to Paris?", "role_swap"),
]

SAME_QUESTION = [
    # real paraphrases that carry negation, both sides
    ("为什么不能借款", "为何无法借款"),
    ("为什么借不了钱", "为什么不能借钱"),
    ("我有额度，怎么借款不成功", "有额度却借款失败"),
    ("为什么审核未通过", "为什么审核不通过"),
    # A-not-A questions and tag questions are no negation
    ("能不能提前还款", "可以提前还款吗"),
    ("有没有微粒贷", "有微粒贷吗"),
    ("植物大战僵尸好玩不？", "植物大战僵尸好玩吗？"),
    ("开通了没？", "开通了吗？"),
    # words that merely hold a negator
    ("两者有什么区别", "两者有什么不同"),
    ("非常想借钱", "很想借钱"),
    # the same opposite pair on both sides, reordered, is no change of polarity
    ("What are the pros and cons of Python?", "What are the cons and pros of Python?"),
    ("What is good and bad about Quora?", "What is bad and good about Quora?"),
    ("提高和降低额度的方法", "降低和提高额度的方法"),
    # English paraphrases
    ("How do I increase my height?", "What can I do to increase my height?"),
    ("What is the best way to learn guitar?", "How can I learn guitar best?"),
    ("从深圳到北京怎么走", "深圳到北京怎么去"),
]


@pytest.mark.parametrize(("a", "b", "rule"), OPPOSITE)
def test_opposite_questions_are_vetoed_by_the_named_rule(a: str, b: str, rule: str) -> None:
    guard = SlotGuard()
    assert guard.why(a, b) == rule
    assert guard.why(b, a) == rule


@pytest.mark.parametrize(("a", "b"), SAME_QUESTION)
def test_paraphrases_pass(a: str, b: str) -> None:
    assert SlotGuard().why(a, b) is None
    assert SlotGuard().why(b, a) is None


def test_each_rule_has_its_switch() -> None:
    off = SlotGuard(antonyms=False, changed_negation_zh=False, role_swaps=False, names=False, swapped_word_en=False)
    for a, b, _ in OPPOSITE:
        assert off.ok(a, b), (a, b)
    assert SlotGuard(antonyms=False).why("怎么开通微粒贷", "怎么关闭微粒贷") is None
    assert SlotGuard(changed_negation_zh=False).why("能借钱吗", "不能借钱吗") is None
    assert SlotGuard(role_swaps=False, names=False).why("深圳到北京的高铁", "北京到深圳的高铁") is None


def test_an_opposite_elsewhere_in_the_text_is_not_judged() -> None:
    # both questions carry "best"; what changed (phone → laptop) holds no opposite (another product:
    # the swapped-word rule's, not the antonym rule's)
    assert SlotGuard(names=False, swapped_word_en=False).why("What is the best phone?", "What is the best laptop?") \
        is None
    assert SlotGuard(names=False).why("What is the best phone?", "What is the best laptop?") == "swap"


@pytest.mark.parametrize(("a", "b"), [
    ("谁有斗罗大陆漫画全集", "谁没有斗罗大陆漫画全集"),  # jieba: 有 / 斗 / 罗 against 没有 / 斗罗
    ("没有人打电话给我", "有人打电话给我"),  # 没有 / 人 against 有人
    ("为什么我还没有接到电话", "为什么我还有接到电话"),  # 还 / 没有 against 还有
])
def test_negation_added_character_by_character_is_seen_however_jieba_cut_it(a: str, b: str) -> None:
    assert SlotGuard().why(a, b) == "negation_zh"
    assert SlotGuard().why(b, a) == "negation_zh"
    assert SlotGuard(negation_zh_chars=False).ok(a, b)  # token by token, the cuts hide it


@pytest.mark.parametrize(("a", "b"), [
    ("能玩吗", "能不能玩"),  # an A-not-A question
    ("开通了吗", "开通了没"),  # a tag question
    ("想借钱", "非常想借钱"),  # 非常 holds a negator and negates nothing
])
def test_an_added_negator_that_negates_nothing_passes(a: str, b: str) -> None:
    assert SlotGuard().ok(a, b), SlotGuard().why(a, b)
    assert SlotGuard().ok(b, a), SlotGuard().why(b, a)
