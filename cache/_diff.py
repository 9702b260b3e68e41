"""Where two prompts differ: word tokens of both, aligned, and the spans that changed.

The polarity and name guards judge only what changed between a lookup and a candidate — a
"不" both questions carry, or a city both name, says nothing about whether they ask the same
thing. Latin words come from a regex (case kept, so capitalised names stay visible; a
possessive ``'s`` dropped), Chinese runs from ``jieba.posseg`` (its part-of-speech tags mark
places, people and organisations; its HMM stays on, or words its dictionary lacks, such as 微信,
fall apart into characters). The alignment is ``difflib``'s opcodes over the lower-cased
keys, computed on the pair in one fixed order so that ``changes(a, b)`` and ``changes(b, a)`` are
mirror images.

jieba's cut of a Chinese run depends on its neighbours: 「和微信的」 gives 和 / 微信 / 的, 「和微博的」
gives 和微博 / 的, and 「微信查」 may come out as one word. Aligned token by token, such a pair differs
in stretches that are not the two names. ``word_spans`` aligns the characters instead and widens each
difference to whole words of *both* cuts, so a differing name is seen whole (微信 / 微博), whichever
way either side was cut; ``cut_alone`` and ``dictionary_count`` then say what jieba makes of a span
out of context.
"""

from __future__ import annotations

import logging
import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from difflib import SequenceMatcher
from functools import lru_cache

from lastline.text import HAN_CHARS

__all__ = [
    "Change", "Token", "changes", "cut_alone", "dictionary_count", "is_cjk", "matching_form", "mostly_chinese",
    "small_edit", "tokens", "word_spans",
]

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


def is_cjk(token: Token) -> bool:
    """A word of Chinese text (jieba tags every Latin-letter or digit run ``eng``)."""
    return token.tag != "eng"


def mostly_chinese(toks: Sequence[Token]) -> bool:
    """At least half the words are Chinese: the Chinese-only rules apply to such a prompt."""
    return sum(is_cjk(t) for t in toks) >= len(toks) / 2


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


@lru_cache(maxsize=65_536)
def word_spans(a: str, b: str) -> tuple[tuple[str, str], ...]:
    """The stretches where ``a`` and ``b`` differ, character by character (case folded), each widened
    until it starts and ends on a word boundary of both texts' cuts: 「QQ和微信的微粒贷」 /
    「QQ和微博的微粒贷」 → (("和微信", "和微博"),) although jieba cut 和微博 as one word and 微信 as
    another. Stretches that meet after widening are merged."""
    fa, fb = matching_form(a).casefold(), matching_form(b).casefold()
    inside_a, inside_b = _inner_offsets(tokens(a)), _inner_offsets(tokens(b))
    spans: list[tuple[int, int, int, int]] = []
    for tag, i1, i2, j1, j2 in SequenceMatcher(None, fa, fb, autojunk=False).get_opcodes():
        if tag == "equal":
            continue
        # the text around a difference is equal on both sides, so both ends move in step
        while i1 in inside_a or j1 in inside_b:
            i1, j1 = i1 - 1, j1 - 1
        while i2 in inside_a or j2 in inside_b:
            i2, j2 = i2 + 1, j2 + 1
        if spans and spans[-1][1] >= i1:
            i1, _, j1, _ = spans.pop()
        spans.append((i1, i2, j1, j2))
    return tuple((fa[i1:i2], fb[j1:j2]) for i1, i2, j1, j2 in spans)


def _inner_offsets(toks: tuple[Token, ...]) -> frozenset[int]:
    """Offsets that fall inside a word (a cut there would split it)."""
    return frozenset(p for t in toks for p in range(t.start + 1, t.start + len(t.text)))


@lru_cache(maxsize=65_536)
def cut_alone(text: str, hmm: bool = True) -> tuple[tuple[str, str], ...]:
    """jieba's (word, tag) cut of ``text`` on its own, out of any context (``hmm=False``: dictionary
    words only, no guessed ones)."""
    return tuple((p.word, p.flag) for p in _posseg().lcut(text, HMM=hmm))  # type: ignore[attr-defined]


def dictionary_count(word: str) -> int:
    """How often jieba's dictionary counts ``word`` as a word (0: not a word it knows)."""
    import jieba

    if not jieba.dt.initialized:
        _posseg()
        jieba.dt.check_initialized()
    return int(jieba.dt.FREQ.get(word) or 0)
