"""Named things that differ — places, people, organisations, products, languages — never share an answer."""

from __future__ import annotations

import pytest

from lastline.cache import SlotGuard
from lastline.cache._diff import tokens, word_spans
from lastline.cache._names import find_names, span_name_kind

OTHER_NAME = [
    ("How did the Battle of Somme compare to the Battle of Rostov?",
     "How did the Battle of Mill compare to the Battle of Rostov?"),
    ("Which is the best restaurant in Callao?", "Which is the best restaurant in Huánuco?"),
    ("What is the best way to learn Java?", "What is the best way to learn Python?"),
    ("How do I get a job at Google?", "How do I get a job at Flipkart?"),
    ("What do Americans think of Hillary Clinton?", "What do Americans think of Narendra Modi?"),
    ("Is it safe to travel to india now?", "Is it safe to travel to pakistan now?"),  # lower-case, from WordNet
    ("What is the capital of France?", "What is the capital of Germany?"),
    ("北京有什么好玩的地方", "深圳有什么好玩的地方"),
    ("工商银行的卡可以绑定吗", "招商银行的卡可以绑定吗"),
    ("周杰伦的新歌叫什么", "林俊杰的新歌叫什么"),
    ("微粒贷可以用支付宝还款吗", "微粒贷可以用qq还款吗"),
    ("学python好还是学java好", "学php好还是学java好"),
]

SAME_THING = [
    ("What is life like in the USA?", "What is life like in America?"),  # WordNet aliases
    ("Why is India poor?", "Why are Indians poor?"),  # a demonym is no other name
    ("What does Trump think about China?", "What does Donald Trump think about China?"),
    ("Who will win, Trump or Clinton?", "Who will win, Clinton or Trump?"),
    ("What Is The Best Way To Learn English?", "What Is The Easiest Way To Learn English?"),  # title case
    ("How do I learn Python fast?", "What is the quickest way to learn Python?"),
    ("北京有什么好玩的", "北京市有什么好玩的"),
    ("Best restaurants when visiting Callao, Peru?", "Best restaurants when visiting Calao, Peru?"),  # a typo
    ("微信怎么还微粒贷", "怎么在微信上还微粒贷"),
]


@pytest.mark.parametrize(("a", "b"), OTHER_NAME)
def test_another_name_is_vetoed(a: str, b: str) -> None:
    assert SlotGuard().why(a, b) == "name"
    assert SlotGuard().why(b, a) == "name"


@pytest.mark.parametrize(("a", "b"), SAME_THING)
def test_the_same_thing_named_differently_passes(a: str, b: str) -> None:
    assert SlotGuard().why(a, b) is None, SlotGuard().why(a, b)


def test_wordnet_names_share_an_id_across_aliases() -> None:
    (usa,) = find_names(tokens("I live in the United States of America"))
    (us,) = find_names(tokens("I live in the US"))
    assert usa.key == "united states of america" and usa.agrees(us)


def test_a_common_word_counts_as_a_name_only_when_capitalised() -> None:
    assert [n.key for n in find_names(tokens("Is china made of clay?"))] == []
    assert [n.key for n in find_names(tokens("Is China big?"))] == ["china"]


def test_name_rule_can_be_switched_off() -> None:
    off = SlotGuard(names=False, names_zh_spans=False, swapped_nouns_zh=False)
    assert off.ok("北京有什么好玩的地方", "深圳有什么好玩的地方")


@pytest.mark.parametrize(("a", "b"), [("可以用微信钱包还款吗", "可以用百度钱包还款吗"),
                                      ("小米手机怎么截图", "华为手机怎么截图")])
def test_one_chinese_noun_swapped_for_an_unrelated_one_is_another_thing(a: str, b: str) -> None:
    assert SlotGuard(names=False).why(a, b) == "noun_zh"


@pytest.mark.parametrize(("a", "b"), [("怎么申请借款", "怎么申请贷款"), ("额度怎么查", "金额怎么查"),
                                      ("微信怎么还款", "微信上怎么还款啊")])
def test_a_reworded_noun_is_no_other_thing(a: str, b: str) -> None:
    assert SlotGuard().ok(a, b), SlotGuard().why(a, b)


#: Names jieba cuts apart or glues to a neighbour in context: 「和微博」 is one word, 拼多多 is 拼 / 多多,
#: 抖音 is 抖 / 音, 「微信查」 one word; token by token the pair differs in stretches that are no name.
CUT_APART = [
    ("QQ和微信的微粒贷是一回事吗", "QQ和微博的微粒贷是一回事吗"),
    ("QQ微粒贷和微信是共享的吗", "拼多多微粒贷和微信是共享的吗"),
    ("微信手机号已变更怎么办", "拼多多手机号已变更怎么办"),
    ("QQ中的微粒贷与微信的微粒贷有什么区别", "QQ中的微粒贷与抖音的微粒贷有什么区别"),
    ("微信查不了", "淘宝查不了"),
    ("什么时候能我微信贷", "什么时候能我支付宝贷"),
]


@pytest.mark.parametrize(("a", "b"), CUT_APART)
def test_a_chinese_name_cut_apart_in_context_is_seen_whole(a: str, b: str) -> None:
    assert SlotGuard().why(a, b) == "name"
    assert SlotGuard().why(b, a) == "name"
    assert SlotGuard(names_zh_spans=False).ok(a, b)  # the token-level rules alone let it through


@pytest.mark.parametrize(("a", "b"), [
    ("怎么关闭微粒贷", "怎么关闭微贷"),  # an abbreviation
    ("工商银行的卡能用吗", "工行的卡能用吗"),
    ("qq钱包没有怎么办", "QQ钱包里没有啊"),  # case
    ("支付宝怎么绑定银行卡", "银行卡怎么绑定支付宝"),  # both carry both
])
def test_spans_that_name_the_same_thing_or_no_thing_pass_the_span_rule(a: str, b: str) -> None:
    assert SlotGuard(names=False, swapped_nouns_zh=False).ok(a, b)
    assert SlotGuard(names=False, swapped_nouns_zh=False).ok(b, a)


def test_differing_spans_are_widened_to_whole_words_of_both_cuts() -> None:
    assert word_spans("QQ和微信的微粒贷", "QQ和微博的微粒贷") == (("和微信", "和微博"),)
    assert word_spans("同一句话", "同一句话") == ()


@pytest.mark.parametrize(("span", "kind"), [("qq", "latin"), ("支付宝", "proper"), ("微信", "coined"),
                                            ("拼多多", "oov"), ("百度", None), ("不能", None), ("怎么还", None)])
def test_span_name_kind_reads_a_span_out_of_context(span: str, kind: str | None) -> None:
    assert span_name_kind(span) == kind
