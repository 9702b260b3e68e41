"""Tokens for FTS5: Chinese runs segmented, everything else left to the porter/unicode61 tokenizer.

FTS5's unicode61 tokenizer sees a run of Chinese characters as one token, so Chinese is segmented
here, before indexing and before querying, and stored space-separated. Three segmenters are offered
(``jieba`` words, single ``char``\\ s, overlapping ``bigram``\\ s; ``char+bigram`` both) — which one is
the default was picked on ``bq_faq_dev`` by ``bench/kb_eval.py`` (see docs/benchmarks.md).

:func:`query_terms` is the only road from user text to a keyword query: it extracts word tokens, and
each store quotes them in its own query language (:func:`fts5_expression` for FTS5), so ``"``, ``*``,
``NEAR``, ``-``, ``AND``, ``:``, ``&``, ``|``, ``!`` and parentheses are never syntax.
"""

from __future__ import annotations

import logging
import re
import unicodedata
from collections.abc import Iterator

from lastline.text import HAN_CHARS

__all__ = ["SEGMENTERS", "fts5_expression", "index_text", "match_expression", "query_terms", "tokens"]

SEGMENTERS = ("jieba", "char", "bigram", "char+bigram")
MAX_QUERY_TOKENS = 64

_CJK_RUN = re.compile(rf"[{HAN_CHARS}]+|[^\W_]+")
_IS_CJK = re.compile(f"[{HAN_CHARS}]")
# Query-side only: function words that carry no topic; BM25 would down-weight them anyway,
# but dropping them keeps big OR queries cheap.
_STOP = frozenset({
    "a", "an", "and", "are", "as", "at", "be", "but", "by", "can", "do", "does", "for", "from",
    "has", "have", "how", "i", "if", "in", "into", "is", "it", "its", "of", "on", "or", "so",
    "than", "that", "the", "their", "then", "there", "these", "this", "to", "was", "were", "what",
    "when", "where", "which", "who", "why", "will", "with", "you", "your",
})


def _cjk(run: str, segmenter: str) -> list[str]:
    if segmenter == "jieba":
        import jieba

        jieba.setLogLevel(logging.WARNING)  # its start-up chatter would land in CLI output
        return [w for w in jieba.lcut(run, HMM=True) if w.strip()]
    chars = list(run)
    bigrams = [run[i : i + 2] for i in range(len(run) - 1)] or chars
    if segmenter == "char":
        return chars
    if segmenter == "bigram":
        return bigrams
    return chars + bigrams if len(run) > 1 else chars


def tokens(text: str, segmenter: str) -> Iterator[str]:
    """Word tokens of ``text`` (NFKC, case-folded), Chinese runs segmented by ``segmenter``."""
    if segmenter not in SEGMENTERS:
        raise ValueError(f"unknown segmenter {segmenter!r}")
    folded = unicodedata.normalize("NFKC", text).casefold()
    for match in _CJK_RUN.finditer(folded):
        run = match.group()
        if _IS_CJK.match(run):
            yield from _cjk(run, segmenter)
        else:
            yield run


def index_text(text: str, segmenter: str) -> str:
    """The text FTS5 indexes: tokens joined by spaces (the porter tokenizer stems English ones)."""
    return " ".join(tokens(text, segmenter))


def query_terms(query: str, segmenter: str) -> list[str]:
    """The distinct word tokens of a query a keyword index searches for (stop words dropped), at most 64.

    Every backend builds its own query from these terms (FTS5 ``MATCH``, a PostgreSQL ``tsquery``),
    so user text never reaches a query language: operators in it are plain words here.
    """
    seen: dict[str, None] = {}
    all_tokens = list(tokens(query, segmenter))
    for token in all_tokens:
        if token in _STOP and len(all_tokens) > 1:
            continue
        seen.setdefault(token, None)
        if len(seen) >= MAX_QUERY_TOKENS:
            break
    if not seen and all_tokens:
        seen = dict.fromkeys(all_tokens[:MAX_QUERY_TOKENS])
    return list(seen)


def fts5_expression(terms: list[str] | tuple[str, ...]) -> str | None:
    """A safe FTS5 query: each term quoted, OR-ed together; None when there is no term."""
    if not terms:
        return None
    return " OR ".join('"' + t.replace('"', '""') + '"' for t in terms)


def match_expression(query: str, segmenter: str) -> str | None:
    """A safe FTS5 query for ``query``: :func:`query_terms` quoted and OR-ed; None when no token is left."""
    return fts5_expression(query_terms(query, segmenter))
