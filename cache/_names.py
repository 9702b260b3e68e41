"""Named things: two questions about different places, people, organisations, products or
languages never share an answer ("the Battle of the Somme" ≠ "the Battle of Rostov",
北京 ≠ 深圳, Java ≠ Python).

Judged only where the prompts differ (``_diff.changes``): a changed stretch that names something
on both sides vetoes when a name on each side is nowhere among the other prompt's names or
words. Names are found three ways, all offline:

- WordNet 3.0's instance nouns (cities, countries, rivers, people, battles; ``cache/lexicon``),
  up to four words long; aliases share a synset ("USA" = "United States" = "America"). A lemma
  that is also an ordinary word ("china", "turkey", "mill") counts only when capitalised;
- capitalised English words that do not open a sentence (products, firms and languages WordNet
  does not list: "Flipkart", "Kotlin"), unless the text capitalises most of its words anyway;
- jieba's part-of-speech tags in Chinese text (``ns`` place, ``nr`` person, ``nt`` organisation,
  ``nz`` other proper noun, ``j`` abbreviated name), and Latin words inside Chinese text (QQ,
  iPhone, Python).

Two names agree when their synsets meet, their keys are equal, or one is a prefix of the other
(India / Indian, 北京 / 北京市), or two Latin names are one typo apart (Callao / Calao) — so a
possessive, a demonym, a longer official form or a misspelling passes.

Chinese names jieba cuts apart in context (「和微博」, 「拼 / 多多」, 「抖 / 音」) are judged by
``swapped_name_zh`` on the differing stretches taken whole (``_diff.word_spans``), out of context: a
Latin brand, a span jieba tags as a proper noun on its own, a word its dictionary lacks that its
guesser still reads as one noun (微信), or a short coinage its dictionary lacks whose pieces are no
function words and hold at most one dictionary word (微博, 拼多多). Two spans both of that weakest
kind do not veto (phrases such as 提额 / 调额 are coined the same way).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from rapidfuzz.distance import Levenshtein

from ._diff import Change, Token, cut_alone, dictionary_count, matching_form, mostly_chinese, tokens, word_spans
from ._lexicon import names_en, synonyms_zh
from ._substitution import function_word_zh

__all__ = ["Name", "find_names", "name_clash", "span_name_kind", "swapped_name_zh", "swapped_noun_zh"]


def _words(text: str) -> frozenset[str]:
    """A set of words written as one space-separated string (lists read better that way)."""
    return frozenset(text.split())

_ZH_TAGS = frozenset({"ns", "nr", "nt", "nz", "nrt", "nrfg", "nrf", "j"})  # j: abbreviated names (工商银行, 工行)
#: Capitalised words that are no names even mid-sentence.
_NOT_NAMES = _words("i i'm i've i'd i'll a ok okay vs")


@dataclass(frozen=True)
class Name:
    """A name found at tokens ``[start, end)``: its lower-cased key and WordNet synsets (if any)."""

    start: int
    end: int
    key: str
    ids: frozenset[str]

    def agrees(self, other: Name) -> bool:
        if self.ids & other.ids or self.key == other.key:
            return True
        short, long = sorted((self.key, other.key), key=len)
        if len(short) >= (2 if not short.isascii() else 4) and long.startswith(short):
            return True
        # a typo is no other name (Callao / Calao): the fuzzy layer's in-word allowance
        return short.isascii() and len(short) >= 4 and \
            Levenshtein.distance(short, long, score_cutoff=2) <= (2 if len(short) >= 10 else 1)


def _capitalised(tok: Token) -> bool:
    return tok.tag == "eng" and tok.text[:1].isupper() and tok.key not in _NOT_NAMES


def find_names(tokens: Sequence[Token]) -> list[Name]:
    """Every name in ``tokens``, longest gazetteer match first, then capitalised runs and tags."""
    gazetteer = names_en()
    latin = [t for t in tokens if t.tag == "eng" and t.key[:1].isalpha()]
    cjk_text = len(latin) < len(tokens) / 2
    inner = [t for t in latin if not t.initial]
    title_case = len(inner) >= 3 and sum(_capitalised(t) for t in inner) > len(inner) / 2
    names: list[Name] = []
    taken = [False] * len(tokens)
    i = 0
    while i < len(tokens):
        for n in (4, 3, 2, 1):
            span = tokens[i:i + n]
            if len(span) < n or any(t.tag != "eng" for t in span):
                continue
            hit = gazetteer.get(" ".join(t.key for t in span))
            if hit is None:
                continue
            ids, common = hit
            if common and not (any(_capitalised(t) and not t.initial for t in span) and not title_case):
                continue
            names.append(Name(i, i + n, " ".join(t.key for t in span), ids))
            taken[i:i + n] = [True] * n
            i += n
            break
        else:
            i += 1
    i = 0
    while i < len(tokens):
        tok = tokens[i]
        if taken[i]:
            i += 1
            continue
        tagged = tok.tag in _ZH_TAGS and len(tok.key) >= 2
        latin_in_chinese = tok.tag == "eng" and cjk_text and len(tok.key) >= 2 and tok.key.isascii() \
            and tok.key.isalpha()
        if tagged or latin_in_chinese:
            names.append(Name(i, i + 1, tok.key, frozenset()))
        elif _capitalised(tok) and not tok.initial and not title_case:
            j = i + 1
            while j < len(tokens) and not taken[j] and _capitalised(tokens[j]):
                j += 1
            names.append(Name(i, j, " ".join(t.key for t in tokens[i:j]), frozenset()))
            i = j
            continue
        i += 1
    return names


def name_clash(ta: Sequence[Token], tb: Sequence[Token], diff: Sequence[Change]) -> bool:
    """True when a changed stretch swaps a name for another the first prompt does not carry."""
    if not diff:
        return False
    na, nb = find_names(ta), find_names(tb)
    if not na or not nb:
        return False
    a_keys = {t.key for t in ta}
    b_keys = {t.key for t in tb}
    for c in diff:
        xs = [n for n in na if n.start < c.a1 and c.a0 < n.end]
        ys = [n for n in nb if n.start < c.b1 and c.b0 < n.end]
        if not xs or not ys:
            continue
        lost = any(not any(x.agrees(y) for y in nb) and x.key not in b_keys for x in xs)
        new = any(not any(y.agrees(x) for x in na) and y.key not in a_keys for y in ys)
        if lost and new:
            return True
    return False


_NOUN_TAGS = frozenset({"n", "nz", "nr", "ns", "nt", "nrt", "nrfg", "vn", "j", "eng"})


def swapped_noun_zh(ta: Sequence[Token], tb: Sequence[Token], diff: Sequence[Change]) -> bool:
    """Chinese: one noun swapped for an unrelated one and nothing else changed (微信钱包 / 百度钱包).

    jieba tags many brands and apps as plain nouns (微信 ``vn``, 百度 ``n``), so the tag rule
    above misses them; a lone one-word swap between nouns that share no character is the
    signature of another thing named, where a paraphrase rewords more (借款 / 贷款 share 款).
    """
    if len(diff) != 1:
        return False
    (c,) = diff
    if c.a1 - c.a0 != 1 or c.b1 - c.b0 != 1:
        return False
    x, y = ta[c.a0], tb[c.b0]
    if x.tag not in _NOUN_TAGS or y.tag not in _NOUN_TAGS or x.tag == y.tag == "eng":
        return False
    if min(len(x.key), len(y.key)) < 2 or set(x.key) & set(y.key):
        return False
    return mostly_chinese(ta) and mostly_chinese(tb)  # both Chinese questions, whichever one is stored


_LATIN_NAME = re.compile(r"[a-z]{2,}")
_HAN_SPAN = re.compile(r"[\u4e00-\u9fff]{2,4}")
_NOUNS_ALONE = frozenset({"n", "vn", "nz", "nr", "ns", "nt"})
_NEGATORS = frozenset("不没沒冇无未非莫勿别")


@lru_cache(maxsize=65_536)
def span_name_kind(span: str) -> str | None:
    """What makes a differing Chinese span a name, judged out of context: ``latin`` (QQ, vivo),
    ``proper`` (jieba tags it alone as a place, person, organisation or other proper noun: 支付宝,
    招商银行), ``coined`` (no dictionary word, yet jieba's guesser reads it as one noun: 微信),
    ``oov`` (no dictionary word, 2–4 characters cut into pieces that are no function words and hold at
    most one dictionary word: 微博, 拼多多, 抖音); None for anything else (a dictionary word such as
    百度 or 苹果, a phrase, negation)."""
    if _LATIN_NAME.fullmatch(span):
        return "latin"
    if not _HAN_SPAN.fullmatch(span) or set(span) & _NEGATORS:
        return None
    cut = cut_alone(span)
    if len(cut) == 1 and cut[0][1] in _ZH_TAGS:
        return "proper"
    if dictionary_count(span):
        return None
    if len(cut) == 1 and cut[0][1] in _NOUNS_ALONE:
        return "coined"
    if any(function_word_zh(word) for word, _ in cut):
        return None
    if sum(len(word) >= 2 for word, _ in cut_alone(span, hmm=False)) <= 1:
        return "oov"
    return None


def _trimmed(x: str, y: str) -> list[tuple[str, str]]:
    """A span pair as widened, without the function characters both share at its edges (和微信 /
    和微博 → 微信 / 微博), and without every character both share at its edges (微信查 / 淘宝查 →
    微信 / 淘宝): a name is one of these."""
    out = [(x, y)]
    while x and y and x[0] == y[0] and function_word_zh(x[0]):
        x, y = x[1:], y[1:]
    while x and y and x[-1] == y[-1] and function_word_zh(x[-1]):
        x, y = x[:-1], y[:-1]
    out.append((x, y))
    n = 0
    while n < min(len(x), len(y)) and x[n] == y[n]:
        n += 1
    m = 0
    while m < min(len(x), len(y)) - n and x[-1 - m] == y[-1 - m]:
        m += 1
    out.append((x[n:len(x) - m], y[n:len(y) - m]))
    return list(dict.fromkeys(out))


def _abbreviates(short: str, long: str) -> bool:
    """``short`` is ``long`` with characters left out, in order (微贷 / 微粒贷, 工行 / 工商银行)."""
    rest = iter(long)
    return all(ch in rest for ch in short)


def swapped_name_zh(a: str, b: str) -> bool:
    """Chinese: a differing stretch, taken whole, puts one name where the other prompt has another
    (微信 / 微博, QQ / 拼多多, 微信 / 淘宝) however jieba cut either side in context.

    The two spans must both be names (``span_name_kind``, not both of the weakest ``oov`` kind),
    each carried more often by its own side, neither inside the other, no abbreviation of the other
    (工行 / 工商银行), no synonyms, and not one character apart when three or more long (a typo).
    Judged in both orders and vetoed only when both agree: the character alignment and the
    widening to word boundaries can differ with the order (hypothesis found 「微微度QQ」 / 「度微信」),
    and the answer must not depend on which prompt is stored.
    """
    return _swapped_name_zh(a, b) and _swapped_name_zh(b, a)


def _swapped_name_zh(a: str, b: str) -> bool:
    ta, tb = tokens(a), tokens(b)
    if not ta or not tb or not (mostly_chinese(ta) and mostly_chinese(tb)):
        return False  # both Chinese questions: the rule must not depend on which one is stored
    fa, fb = matching_form(a).casefold(), matching_form(b).casefold()
    groups = synonyms_zh()
    for wide_x, wide_y in word_spans(a, b):
        for x, y in _trimmed(wide_x, wide_y):
            if not x or not y or x in y or y in x:
                continue
            kinds = (span_name_kind(x), span_name_kind(y))
            if None in kinds or kinds == ("oov", "oov"):
                continue
            if fa.count(x) <= fb.count(x) or fb.count(y) <= fa.count(y):
                continue  # both prompts carry both names, in another order
            short, long = sorted((x, y), key=len)
            if _abbreviates(short, long) or groups.get(x, frozenset()) & groups.get(y, frozenset()):
                continue
            if len(short) >= 3 and Levenshtein.distance(x, y, score_cutoff=1) <= 1:
                continue
            return True
    return False
