"""Opposites built by construction, beyond any list: English affixes and irregular plurals, Chinese
opposite characters inside words and reversal verbs; and the name rules judged the same in both orders."""

from __future__ import annotations

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from lastline import Embedder, PostgresStorage, SQLiteStorage
from lastline.cache import CacheConfig, SemanticCache, SlotGuard
from lastline.cache._diff import changes
from lastline.cache._lexicon import antonyms_en, lemmas
from lastline.cache._names import swapped_name_zh, swapped_noun_zh
from lastline.cache._polarity import affix_opposite

# ------------------------------------------------------------------ English: opposite affixes

AFFIX_OPPOSITES = [
    # none of these pairs is in an antonym list the guard reads
    ("Is it safe to drive at night in Delhi?", "Is it unsafe to drive at night in Delhi?"),
    ("What is a good mobile phone under 10000?", "What is a good mobile phone over 10000?"),
    ("How do I get over my fear of driving?", "How do I get under my fear of driving?"),
    ("Why are nonprofit hospitals so expensive?", "Why are profit hospitals so expensive?"),
    ("Which is the best inexpensive laptop for coding?", "Which is the best expensive laptop for coding?"),
]


@pytest.mark.parametrize(("a", "b"), AFFIX_OPPOSITES)
def test_words_one_opposite_affix_apart_are_vetoed(a: str, b: str) -> None:
    assert SlotGuard().why(a, b) == "antonym"
    assert SlotGuard().why(b, a) == "antonym"
    # no list holds them: the affix rule does it (a lone swapped word is also the swapped-word rule's)
    assert SlotGuard(affixes_en=False, swapped_word_en=False).why(a, b) is None


def test_the_pairs_are_in_no_list() -> None:
    for x, y in [("safe", "unsafe"), ("over", "under"), ("nonprofit", "profit"), ("inexpensive", "expensive")]:
        assert frozenset((x, y)) not in antonyms_en()


@pytest.mark.parametrize(("x", "y"), [
    ("under", "der"), ("uniform", "iform"),  # no un+ : the rest is no word
    ("inform", "form"), ("invest", "vest"),  # in- makes adjectives and nouns opposite, not verbs
    ("used", "useless"),  # a stem of two letters
])
def test_an_affix_is_read_only_on_real_words_of_its_part_of_speech(x: str, y: str) -> None:
    assert not affix_opposite(x, y)
    assert not affix_opposite(y, x)


_AFFIXED = st.sampled_from(["safe", "unsafe", "over", "under", "like", "dislike", "lock", "unlock", "hopeful",
                            "hopeless", "form", "inform", "uniform", "possible", "impossible", "der", "profit"])


@settings(max_examples=200, deadline=None)
@given(_AFFIXED, _AFFIXED)
def test_affix_opposites_are_symmetric_and_irreflexive(x: str, y: str) -> None:
    assert affix_opposite(x, y) == affix_opposite(y, x)
    assert not affix_opposite(x, x)


# ------------------------------------------------------------------ English: irregular plurals


def test_irregular_plurals_reach_their_opposite() -> None:
    assert "woman" in lemmas("women")
    assert "chairman" in lemmas("chairmen")
    a, b = "Why do more men commit suicide than women?", "Why do more women commit suicide than women?"
    assert SlotGuard().why(a, b) == "antonym"
    assert SlotGuard().why(b, a) == "antonym"


# ------------------------------------------------------------------ through a real cache


def test_a_real_cache_keeps_affix_opposites_apart(
        storage: SQLiteStorage | PostgresStorage, embedder: Embedder) -> None:
    cache = SemanticCache(storage, embedder, CacheConfig(record_lookups=False))
    cache.put("Is it safe to drive at night in Delhi?", "safe answer")
    cache.put("What is a good mobile phone under 10000?", "under answer")
    assert not cache.lookup("Is it unsafe to drive at night in Delhi?", threshold=0.5).hit
    assert not cache.lookup("What is a good mobile phone over 10000?", threshold=0.5).hit
    assert cache.lookup("is it safe to drive at night in delhi", threshold=0.5).answer == "safe answer"
    assert cache.lookup("What is a good mobile phone under 10000 ?", threshold=0.5).answer == "under answer"


# ------------------------------------------------------------------ names: the same answer in both orders

_MIXED = st.lists(st.sampled_from([*"微信百度钱包借款的吗", "QQ", "淘宝", " wallet", " how", " the", "?", "，"]),
                  max_size=12).map("".join)


@settings(max_examples=200, deadline=None)
@given(_MIXED, _MIXED)
@example("微信 wallet", "Baidu wallet")  # once judged Chinese by the first prompt alone
@example("微信 wallet", "QQ wallet")
def test_chinese_name_rules_do_not_depend_on_which_prompt_is_stored(a: str, b: str) -> None:
    assert swapped_name_zh(a, b) == swapped_name_zh(b, a)
    assert swapped_noun_zh(*changes(a, b)) == swapped_noun_zh(*changes(b, a))


# ------------------------------------------------------------------ Chinese: reversal verbs, composed characters

REVERSALS = [
    ("广州手机用户有没有开通微粒贷", "广州手机用户有没有注销微粒贷"),
    ("我申请微粒贷时候为什么说我信息不对", "我撤销微粒贷时候为什么说我信息不对"),
    ("银行卡开户需要什么材料", "银行卡销户需要什么材料"),
]


@pytest.mark.parametrize(("a", "b"), REVERSALS)
def test_a_verb_against_the_one_that_undoes_it_is_vetoed(a: str, b: str) -> None:
    assert SlotGuard().why(a, b) == "antonym"
    assert SlotGuard().why(b, a) == "antonym"
    assert SlotGuard(reversals_zh=False).why(a, b) is None


COMPOSED = [
    ("请推荐一款质量好的移动硬盘", "请推荐一款质量差的移动硬盘"),
    ("布艺沙发品牌什么牌子比较好？", "布艺沙发品牌什么牌子比较差？"),
    ("为什么我在贴吧里不能上传图片了", "为什么我在贴吧外不能上传图片了"),
]


@pytest.mark.parametrize(("a", "b"), COMPOSED)
def test_opposite_characters_learned_from_words_are_composed_inside_words(a: str, b: str) -> None:
    assert SlotGuard().why(a, b) == "antonym"
    assert SlotGuard().why(b, a) == "antonym"
    assert SlotGuard(composed_zh=False).why(a, b) is None


@pytest.mark.parametrize(("a", "b"), [
    ("质量好的移动硬盘推荐", "推荐质量好的移动硬盘"),  # the same character on both sides, moved
    ("好差评怎么看", "差好评怎么看"),  # both carry both characters
    ("什么牌子的面膜好", "哪个牌子的面膜好用"),
])
def test_a_composed_character_both_prompts_carry_is_no_opposite(a: str, b: str) -> None:
    assert SlotGuard().why(a, b) != "antonym"
    assert SlotGuard().why(b, a) != "antonym"


_ZH_TEXT = st.lists(st.sampled_from(["开通", "注销", "申请", "撤销", "质量", "好", "差", "里", "外", "贴吧", "的", "吗",
                                     "微粒贷", "怎么", "不", "？"]), max_size=10).map("".join)


@settings(max_examples=300, deadline=None)
@given(_ZH_TEXT, _ZH_TEXT)
def test_chinese_constructions_are_symmetric_and_reflexive(a: str, b: str) -> None:
    guard = SlotGuard()
    assert guard.why(a, b) == guard.why(b, a)
    assert guard.why(a, a) is None


def test_a_real_cache_keeps_reversals_and_composed_opposites_apart(
        storage: SQLiteStorage | PostgresStorage, embedder: Embedder) -> None:
    cache = SemanticCache(storage, embedder, CacheConfig(record_lookups=False))
    cache.put("广州手机用户有没有开通微粒贷", "开通的答案")
    cache.put("请推荐一款质量好的移动硬盘", "好硬盘的答案")
    assert not cache.lookup("广州手机用户有没有注销微粒贷", threshold=0.5).hit
    assert not cache.lookup("请推荐一款质量差的移动硬盘", threshold=0.5).hit
    assert cache.lookup("广州手机用户有没有开通微粒贷？", threshold=0.5).answer == "开通的答案"
    assert cache.lookup("请推荐一款质量好的移动硬盘 ", threshold=0.5).answer == "好硬盘的答案"
