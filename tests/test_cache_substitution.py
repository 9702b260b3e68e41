"""Words the guard's lists never held: CC-CEDICT-bridged Chinese opposites, Chinese negation that
is all that differs, the English swapped-word rule (on by default) and the order-free minimal-edit
rules (off by default) that ask a swapped word to prove it is a paraphrase."""

from __future__ import annotations

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from lastline import Embedder, PostgresStorage, SQLiteStorage
from lastline.cache import CacheConfig, SemanticCache, SlotGuard
from lastline.cache._diff import changes, tokens
from lastline.cache._lexicon import derivations_en, hypernyms_en, lemmas, synonyms_en, synonyms_zh
from lastline.cache._substitution import content_words, swapped_stretch_zh, swapped_word_en, unproven_swap

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
    assert SlotGuard(swapped_word_en=False).why(a, b) is None  # the order-free rule is off by default


def test_the_order_free_rule_also_judges_a_swap_reworded_around() -> None:
    # "full of" against "without": two words against one, which the in-place rule leaves to the cosine
    a, b = "What is it like to live a life full of regrets?", "What is it like to live a life without regrets?"
    assert SlotGuard().why(a, b) is None
    assert SlotGuard(swaps_en=True).why(a, b) == "swap"


#: One English word swapped in place for one no synonym, kind or form of it vouches for: opposites no
#: list holds (the held-out pairs of bench/opposite_questions.py are of this kind), other things.
SWAPPED_IN_PLACE = [
    ("Is the moon landing real?", "Is the moon landing fake?"),
    ("How do I install Chrome on Ubuntu?", "How do I remove Chrome on Ubuntu?"),
    ("How often does Netflix add new titles?", "How often does Netflix delete new titles?"),
    ("Is a speedy recovery possible after knee surgery?", "Is a slow recovery possible after knee surgery?"),
    ("Is coffee good for the liver?", "Is coffee good for the kidney?"),
    ("What does it feel like to see a guy cry?", "What does it feel like to see a girl cry?"),  # siblings
    # function words may change around the swap: "can" / "do" are form, "join" / "quit" the question
    ("How can I join the army?", "How do I quit the army?"),
]


@pytest.mark.parametrize(("a", "b"), SWAPPED_IN_PLACE)
def test_a_word_swapped_in_place_is_vetoed_by_default(a: str, b: str) -> None:
    assert SlotGuard().why(a, b) == "swap"
    assert SlotGuard().why(b, a) == "swap"
    assert SlotGuard(swapped_word_en=False).why(a, b) is None  # its switch


@pytest.mark.parametrize(("a", "b"), [
    # one a direct kind of the other (WordNet hypernymy, hypernyms_en.tsv)
    ("Why would a guy avoid telling a female that he is single?",
     "Why would a guy avoid telling a girl that he is single?"),
    ("How do I reduce my metabolism?", "How do I decrease my metabolism?"),
    ("How was the modern state of Israel formed?", "How was the modern state of Israel created?"),
    # derivationally related forms (derivations_en.tsv): driver / drive, then inflection
    ("Can I live without a driving license?", "Can I live without a drivers license?"),
    # synonyms, lemmas, one stem, a one-letter spelling difference
    ("Which film should I watch tonight?", "Which movie should I watch tonight?"),
    ("What are the functions of the liver?", "What is the function of the liver?"),
    ("Why is coffee so addictive?", "Why is coffee so addicting?"),
    ("What is the favourite colour of cats?", "What is the favorite colour of cats?"),
    ("How do I reset my password?", "How do I rest my password?"),  # a typo the fuzzy layer serves
])
def test_a_word_swapped_for_one_shown_to_stand_for_it_passes(a: str, b: str) -> None:
    assert SlotGuard().why(a, b) is None, SlotGuard().why(a, b)
    assert SlotGuard().why(b, a) is None


@pytest.mark.parametrize(("a", "b"), [
    ("Why does my question keep getting marked as needing improvement?",
     "Why is my question repeatedly marked as needing improvement?"),  # two words against one
    ("How can I get rid of menstrual cramps?", "How can I deal with menstrual cramps?"),
    ("What are the pros and cons of the German Shepherd dog?",
     "What are the pros and cons of having a pet German Shepherd?"),
    ("How can I improve my writing skills?", "How can I improve my English writing?"),  # no swap in place
])
def test_a_rewording_around_a_word_is_left_to_the_cosine(a: str, b: str) -> None:
    assert SlotGuard().why(a, b) is None, SlotGuard().why(a, b)
    assert SlotGuard().why(b, a) is None


def test_one_stem_with_the_privative_ending_is_no_paraphrase() -> None:
    # once read as one stem with two endings (addictive / addicting)
    a, b = "What is the meaning of life?", "What is the meaningless of life?"
    assert SlotGuard().why(a, b) == "swap"
    assert SlotGuard(swaps_en=True, swapped_word_en=False).why(a, b) == "swap"


def test_the_swapped_word_rule_judges_latin_words_only() -> None:
    assert not swapped_word_en(*changes("怎么开通微信", "怎么开通支付宝"))
    assert not swapped_word_en(*changes("How do I use 微信?", "How do I use 支付宝?"))


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
    assert "woman" in hypernyms_en()["girl"] and "girl" not in hypernyms_en()["woman"]
    assert "drive" in derivations_en()["driver"] and "driver" in derivations_en()["drive"]
    assert synonyms_zh()["得到"] & synonyms_zh()["获取"]
    assert "child" in lemmas("children")


_TEXT = st.lists(st.sampled_from([*"借款贷还能不没怎么的吗微信 aB?，", "quick", "fast", " the ", "Paris"]),
                 max_size=16).map("".join)
#: English questions of one template with a word swapped, inserted or dropped.
_WORDS = ["real", "fake", "girl", "woman", "guy", "drivers", "driving", "meaning", "meaningless", "can", "do",
          "the", "keep", "getting", "reduce", "decrease", "Paris", "2", "not"]
_ENGLISH = st.lists(st.sampled_from(_WORDS), min_size=1, max_size=8).map(lambda ws: "How " + " ".join(ws) + "?")


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


@settings(max_examples=300, deadline=None)
@given(_ENGLISH, _ENGLISH)
def test_the_swapped_word_rule_is_symmetric_and_reflexive(a: str, b: str) -> None:
    assert not swapped_word_en(*changes(a, a))
    assert swapped_word_en(*changes(a, b)) == swapped_word_en(*changes(b, a))
    assert SlotGuard().why(a, b) == SlotGuard().why(b, a)


@settings(max_examples=100, deadline=None)
@given(_ENGLISH, st.sampled_from(_WORDS), st.sampled_from(_WORDS))
def test_only_a_one_word_swap_is_judged(text: str, x: str, y: str) -> None:
    # a question against itself with one word swapped: judged only when both words are content words
    # and differ; with a second content word swapped elsewhere it is never judged
    a, b = f"{text} {x} now", f"{text} {y} now"
    both_content = x.lower() != y.lower() and bool(content_words(tokens(x))) and bool(content_words(tokens(y)))
    if swapped_word_en(*changes(a, b)):
        assert both_content
    if both_content:
        assert not swapped_word_en(*changes(f"{a} real", f"{b} fake"))


def test_a_real_cache_keeps_a_swapped_word_apart(storage: SQLiteStorage | PostgresStorage, embedder: Embedder) -> None:
    cache = SemanticCache(storage, embedder, CacheConfig(record_lookups=False))
    cache.put("Is the moon landing real?", "the real answer")
    assert not cache.lookup("Is the moon landing fake?", threshold=0.5).hit
    assert cache.lookup("is the moon landing real", threshold=0.5).answer == "the real answer"
    cache.put("How do I reduce my metabolism?", "the metabolism answer")
    assert cache.lookup("How do I decrease my metabolism?", threshold=0.5).answer == "the metabolism answer"


def test_a_real_cache_keeps_a_bridged_opposite_apart(
        storage: SQLiteStorage | PostgresStorage, embedder: Embedder) -> None:
    cache = SemanticCache(storage, embedder, CacheConfig(record_lookups=False))
    cache.put("申请被接纳了吗", "接纳的答案")
    cache.put("孕妇可以吃饼干吗", "可以吃的答案")
    assert not cache.lookup("申请被拒绝了吗", threshold=0.5).hit
    assert not cache.lookup("孕妇不可以吃饼干吗", threshold=0.5).hit
    assert cache.lookup("申请被接纳了吗？", threshold=0.5).answer == "接纳的答案"
    assert cache.lookup("孕妇可以吃饼干吗?", threshold=0.5).answer == "可以吃的答案"
