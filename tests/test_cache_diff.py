"""Tokens and the aligned changes between two prompts: the ground the polarity and name guards stand on."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from lastline.cache._diff import Change, changes, matching_form, tokens

_ALPHABET = [*"abc XYZ'’.?!,", *"北京到深圳不能借款上下开通关闭", "\u3000", "5"]
_MIXED = st.text(alphabet=st.sampled_from(_ALPHABET), max_size=40)


def test_latin_words_keep_their_case_and_know_when_they_open_a_sentence() -> None:
    toks = tokens("Where is Paris? Rome is nice.")
    assert [(t.text, t.key, t.initial) for t in toks] == [
        ("Where", "where", True), ("is", "is", False), ("Paris", "paris", False),
        ("Rome", "rome", True), ("is", "is", False), ("nice", "nice", False)]


def test_possessive_is_dropped_and_contractions_stay_one_word() -> None:
    assert [t.key for t in tokens("Why don't I get India's visa?")] == ["why", "don't", "i", "get", "india", "visa"]


def test_chinese_runs_are_cut_by_jieba_with_tags_and_offsets() -> None:
    toks = tokens("深圳到北京的高铁")
    assert [t.text for t in toks] == ["深圳", "到", "北京", "的", "高铁"]
    assert toks[0].tag == "ns" and toks[2].tag == "ns"
    assert [t.start for t in toks] == [0, 2, 3, 5, 6]


def test_mixed_text_offsets_point_at_the_token_in_the_matching_form() -> None:
    text = "用ＱＱ还款 to Alice"
    folded = matching_form(text)
    assert folded == "用QQ还款to Alice"
    for tok in tokens(text):
        assert folded[tok.start:tok.start + len(tok.text)] == tok.text


def test_spaced_out_chinese_reads_as_written_together() -> None:
    assert tokens(" 我 想 借 钱 ") == tokens("我想借钱")


def test_changes_are_only_what_differs() -> None:
    ta, tb, diff = changes("How do I increase my weight?", "How do I decrease my weight?")
    assert diff == (Change(3, 4, 3, 4),)
    assert ta[3].key == "increase" and tb[3].key == "decrease"
    assert changes("same words", "Same words!")[2] == ()


@settings(max_examples=300, deadline=None)
@given(_MIXED, _MIXED)
def test_changes_never_raise_and_are_mirror_images(a: str, b: str) -> None:
    ta, tb, diff = changes(a, b)
    tb2, ta2, back = changes(b, a)
    assert (ta, tb) == (ta2, tb2)
    assert back == tuple(Change(c.b0, c.b1, c.a0, c.a1) for c in diff)
    for c in diff:
        assert 0 <= c.a0 <= c.a1 <= len(ta) and 0 <= c.b0 <= c.b1 <= len(tb)
        assert (c.a0, c.b0) != (c.a1, c.b1)  # every change changes something
    assert changes(a, a)[2] == ()
