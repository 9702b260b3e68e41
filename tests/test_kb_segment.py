"""FTS5 query building: Chinese segmented, and no user text is ever FTS5 syntax."""

from __future__ import annotations

from functools import lru_cache

import sqlean
from hypothesis import given, settings
from hypothesis import strategies as st

from lastline.kb import SEGMENTERS, match_expression
from lastline.kb._segment import index_text


@lru_cache(maxsize=1)
def _fts() -> sqlean.Connection:
    conn = sqlean.connect(":memory:")
    conn.execute("CREATE VIRTUAL TABLE f USING fts5(body, tokenize='porter unicode61 remove_diacritics 2')")
    body = index_text('say "hi" NEAR the end-user (AND) 借款审核', "char")
    conn.execute("INSERT INTO f (rowid, body) VALUES (1, ?)", (body,))
    return conn


def test_chinese_is_segmented_per_segmenter() -> None:
    assert index_text("借款审核", "char") == "借 款 审 核"
    assert index_text("借款审核", "bigram") == "借款 款审 审核"
    assert index_text("Refund 借款", "char+bigram") == "refund 借 款 借款"
    assert "借款" in index_text("借款审核", "jieba").split()


def test_syntax_characters_are_quoted_and_still_match() -> None:
    conn = _fts()
    for query in ['"hi', "NEAR(", "end-user", "AND", "(and)", "hi*", "-hi", "say: hi", "借款"]:
        expression = match_expression(query, "char")
        assert expression is not None
        assert conn.execute("SELECT rowid FROM f WHERE f MATCH ?", (expression,)).fetchall() == [(1,)]


def test_text_without_word_characters_gives_no_expression() -> None:
    assert match_expression('"*() - ', "char") is None


@settings(max_examples=300, deadline=None)
@given(query=st.text(max_size=200), segmenter=st.sampled_from(SEGMENTERS))
def test_any_text_is_a_valid_match_expression(query: str, segmenter: str) -> None:
    expression = match_expression(query, segmenter)
    if expression is not None:
        _fts().execute("SELECT rowid FROM f WHERE f MATCH ?", (expression,)).fetchall()
