"""Words the guard's lists never held: CC-CEDICT-bridged Chinese opposites, Chinese negation that
is all that differs, and the minimal-edit rules (off by default) that ask a swapped word to prove
it is a paraphrase."""

from __future__ import annotations

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from lastline import Embedder, PostgresStorage, SQLiteStorage
from lastline.cache import CacheConfig, SemanticCache, SlotGuard
from lastline.cache._diff import changes, tokens
from lastline.cache._lexicon import lemmas, synonyms_en, synonyms_zh
from lastline.cache._substitution import content_words, swapped_stretch_zh, unproven_swap

#: Opposites none of the hand-written Chinese lists holds; the CC-CEDICT × WordNet bridge does.
BRIDGED = [
    ("申请被接纳了吗", "申请被拒绝了吗"),  # accept / reject
    ("外头的温度是多少", "里头的温度是多少"),  # outside / inside
    ("怎样出卖股票", "怎样选购股票"),  # sell / buy
]


@pytest.mark.parametrize(("a", "b"), BRIDGED)
def test_bridged_chinese_opposites_are_vetoed_only_with_the_bridge(a: str, b: str) -> None:
    assert SlotGuard().why(a, b) == "antonym"
    assert SlotGuard().why(b, a) == "antonym"
    # the composed characters are learned from the bridged words too (外头 / 里头 → 外 / 里)
    assert SlotGuard(derived_zh=False, composed_zh=False).why(a, b) is None


def test_the_bridge_never_pairs_negators_or_numerals() -> None:
    # 无 / 没有 both negate: the bridge once read "none" / "not have" as opposites
    assert SlotGuard().why("微信中无微粒贷", "我的微信没有微粒贷") is None


@pytest.mark.parametrize(("a", "b"), [
    ("孕妇可以吃饼干吗", "孕妇不可以吃饼干吗"),
    ("什么样的女人容易出轨", "什么样的女人不容易出轨？"),
    ("东莞为什么扫黄", "东莞为什么不扫黄"),
])
def test_chinese_negation_that_is_all_that_differs_vetoes(a: str, b: str) -> None:
    assert SlotGuard().why(a, b) == "negation_zh"
    assert SlotGuard().why(b, a) == "negation_zh"


@pytest.mark.parametrize(("a", "b"), [
    # labelled BQ duplicates the looser rule vetoed: one intent asked in two framings
    ("还款可以微信里面的钱还吗", "微信的钱不能还吗？"),
    ("不可以用微信钱包还款吗", "你好!可以用微信钱包的钱还款吗？"),
    # a why-not question asks after a failure what a how question asks after a way
    ("为什么审批不通过", "怎么能审批通过"),
    # 要不 ("how about") is no negation, wherever jieba cuts it
    ("登录不了", "要不登录不了"),
])
def test_chinese_negation_among_other_changes_passes(a: str, b: str) -> None:
    assert SlotGuard().why(a, b) is None
    assert SlotGuard().why(b, a) is None


def test_the_looser_negation_rule_stays_available() -> None:
    loose = SlotGuard(negation_zh_alone=False)
    assert loose.why("还款可以微信里面的钱还吗", "微信的钱不能还吗？") == "negation_zh"


SWAPS = SlotGuard(swaps_en=True, swaps_zh=True, stretch_zh=True)


@pytest.mark.parametrize(("a", "b"), [
    ("Is it safe to drink tap water?", "Is it risky to drink tap water?"),  # no antonym list holds it
    ("Is coffee good for the liver?", "Is coffee good for the kidney?"),
    ("What is it like to live a life full of regrets?", "What is it like to live a life without regrets?"),
])
def test_a_swapped_english_word_without_a_synonym_is_vetoed_when_switched_on(a: str, b: str) -> None:
    assert SWAPS.why(a, b) == "swap"
    assert SWAPS.why(b, a) == "swap"
    assert SlotGuard().why(a, b) is None  # off by default


@pytest.mark.parametrize(("a", "b"), [
    ("Why is coffee so addictive?", "Why is coffee so addicting?"),  # one stem
    ("How does a husky interact with children?", "How does a husky interact with kids?"),  # irregular plural, synset
    ("What are the functions of the liver?", "What is the function of the liver?"),  # inflection
    ("How do I learn Kotlin rapidly?", "How do I learn Kotlin quickly?"),  # WordNet synset
    ("How was the modern state of israel founded?", "How was the modern state of Israel founded?"),  # case
    ("百度文库怎么得到下载券？", "百度文库怎么获取下载券？"),  # CC-CEDICT gloss "to get"
    ("一般借款要多久到账", "一般借款多久到账"),  # function word only
])
def test_swapped_paraphrases_pass_the_minimal_edit_rules(a: str, b: str) -> None:
    assert SWAPS.why(a, b) is None, SWAPS.why(a, b)
    assert SWAPS.why(b, a) is None


def test_a_swapped_chinese_stretch_is_another_thing() -> None:
    a, b = "我注销过微信，微粒货就不见了", "我注销过支付宝，微粒货就不见了"  # jieba tags 微信 no name here
    assert SlotGuard().why(a, b) == "name"  # the span rule reads 微信 out of context
    assert SlotGuard(names_zh_spans=False).why(a, b) is None
    assert SlotGuard(names_zh_spans=False, stretch_zh=True).why(a, b) == "stretch_zh"
    assert not swapped_stretch_zh(*changes("怎么绑定银行卡", "如何绑定银行卡"))  # 怎么 / 如何: function words


def test_lexicons_are_loaded_from_package_data() -> None:
    assert synonyms_en()["quick"] & synonyms_en()["fast"]
    assert synonyms_zh()["得到"] & synonyms_zh()["获取"]
    assert "child" in lemmas("children")


_TEXT = st.lists(st.sampled_from([*"借款贷还能不没怎么的吗微信 aB?，", "quick", "fast", " the ", "Paris"]),
                 max_size=16).map("".join)


@settings(max_examples=200, deadline=None)
@given(_TEXT, _TEXT)
@example("fast", "借借")  # once judged Chinese by the first prompt alone
def test_minimal_edit_rules_are_symmetric_and_reflexive(a: str, b: str) -> None:
    ta, tb = tokens(a), tokens(b)
    assert not unproven_swap(ta, ta, chinese=True)
    assert unproven_swap(ta, tb, chinese=True) == unproven_swap(tb, ta, chinese=True)
    assert swapped_stretch_zh(*changes(a, b)) == swapped_stretch_zh(*changes(b, a))
    assert not swapped_stretch_zh(*changes(a, a))
    assert sum(content_words(ta).values()) <= len(ta)


def test_a_real_cache_keeps_a_bridged_opposite_apart(
        storage: SQLiteStorage | PostgresStorage, embedder: Embedder) -> None:
    cache = SemanticCache(storage, embedder, CacheConfig(record_lookups=False))
    cache.put("申请被接纳了吗", "接纳的答案")
    cache.put("孕妇可以吃饼干吗", "可以吃的答案")
    assert not cache.lookup("申请被拒绝了吗", threshold=0.5).hit
    assert not cache.lookup("孕妇不可以吃饼干吗", threshold=0.5).hit
    assert cache.lookup("申请被接纳了吗？", threshold=0.5).answer == "接纳的答案"
    assert cache.lookup("孕妇可以吃饼干吗?", threshold=0.5).answer == "可以吃的答案"
