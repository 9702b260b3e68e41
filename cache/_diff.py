"""Where two prompts differ: word tokens of both, aligned, and the spans that changed.

The polarity and name guards judge only what changed between a lookup and a candidate — a
"不" both questions carry, or a city both name, says nothing about whether they ask the same
thing. Latin words come from a regex (case kept, so capitalised names stay visible; a
possessive ``'s`` dropped), Chinese runs from ``jieba.posseg`` (its part-of-speech tags mark
places, people and organisations; its HMM stays on, or words its dictionary lacks, such as 微信,
fall apart into characters). The alignment is ``difflib``'s opcodes over the lower-cased
keys, computed on the pair in one fixed order so that ``changes(a, b)`` and ``changes(b, a)`` are
mirror images.
"""

from __future__ import annotations

import logging
import re
import unicodedata
from dataclasses import dataclass
from difflib import SequenceMatcher
from functools import lru_cache

from lastline.text import HAN_CHARS

__all__ = ["Change", "Token", "changes", "matching_form", "small_edit", "tokens"]

_CJK_RUN = re.compile(f"[{HAN_CHARS}]+")
_WORD = re.compile(r"[^\W_]+(?:['’][^\W_]+)*|[+#]+")
_SENTENCE_END = re.compile(r"[.!?。！？]\s*$")
_POSSESSIVE = re.compile(r"['’]s$", re.I)
_SPACE_BY_CJK = re.compile(rf"(?<=[{HAN_CHARS}])\s+|\s+(?=[{HAN_CHARS}])")


def matching_form(text: str) -> str:
    """The text tokens are cut from (and their offsets index): NFKC, no spaces touching a CJK
    character — "我 想 借 钱" is "我想借钱", as in the cache's own key (``normalize_text``)."""
    return _SPACE_BY_CJK.sub("", unicodedata.normalize("NFKC", text))


@dataclass(frozen=True)
class Token:
    """One word: as written, its compared key, jieba's tag (``eng`` for Latin words), whether
    it opens a sentence (a capital there says nothing about names), and its offset in
    :func:`matching_form` of the text."""

    text: str
    key: str
    tag: str
    initial: bool
    start: int


@dataclass(frozen=True)
class Change:
    """One non-equal stretch of the alignment: token ranges ``[a0, a1)`` and ``[b0, b1)``."""

    a0: int
    a1: int
    b0: int
    b1: int


def _posseg() -> object:
    import jieba
    import jieba.posseg

    jieba.setLogLevel(logging.WARNING)  # its start-up chatter would land in CLI output
    return jieba.posseg


@lru_cache(maxsize=65_536)
def tokens(text: str) -> tuple[Token, ...]:
    """The word tokens of ``text`` (cached: a stored prompt is compared again and again)."""
    text = matching_form(text)
    out: list[Token] = []
    pos = 0
    for m in [*_CJK_RUN.finditer(text), None]:
        end = m.start() if m else len(text)
        for w in _WORD.finditer(text, pos, end):
            word = _POSSESSIVE.sub("", w.group())
            initial = not out or bool(_SENTENCE_END.search(text, 0, w.start()))
            if word:
                out.append(Token(word, word.casefold(), "eng", initial, w.start()))
        if m is None:
            break
        at = m.start()
        for pair in _posseg().lcut(m.group(), HMM=True):  # type: ignore[attr-defined]
            word, flag = pair.word, pair.flag
            if word.strip():
                out.append(Token(word, word, flag, False, at))
            at += len(word)
        pos = m.end()
    return tuple(out)


def changes(a: str, b: str) -> tuple[tuple[Token, ...], tuple[Token, ...], tuple[Change, ...]]:
    """Tokens of ``a`` and ``b`` and the stretches where they differ (replace, insert, delete)."""
    ta, tb = tokens(a), tokens(b)
    return ta, tb, _aligned(a, b) if (a, len(ta)) <= (b, len(tb)) else tuple(
        Change(c.b0, c.b1, c.a0, c.a1) for c in _aligned(b, a))


@lru_cache(maxsize=16_384)
def _aligned(a: str, b: str) -> tuple[Change, ...]:
    ka = [t.key for t in tokens(a)]
    kb = [t.key for t in tokens(b)]
    ops = SequenceMatcher(None, ka, kb, autojunk=False).get_opcodes()
    return tuple(Change(i1, i2, j1, j2) for tag, i1, i2, j1, j2 in ops if tag != "equal")


def small_edit(ta: tuple[Token, ...], tb: tuple[Token, ...], diff: tuple[Change, ...], min_overlap: float) -> bool:
    """True when the prompts differ by a small edit: at most two words changed on each side, or
    shared words making up at least ``min_overlap`` of both (difflib's ratio over words).

    An opposite question an embedding cannot tell apart is a small edit of the original; two
    questions worded quite differently are the cosine's to judge, and labelled paraphrases of
    that kind often differ in polarity words without differing in what they ask.
    """
    changed_a = sum(c.a1 - c.a0 for c in diff)
    changed_b = sum(c.b1 - c.b0 for c in diff)
    if changed_a <= 2 and changed_b <= 2:
        return True
    total = len(ta) + len(tb)
    return total > 0 and 2 * (len(ta) - changed_a) / total >= min_overlap
