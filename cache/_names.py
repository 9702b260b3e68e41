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
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from rapidfuzz.distance import Levenshtein

from ._diff import Change, Token
from ._lexicon import names_en

__all__ = ["Name", "find_names", "name_clash", "swapped_noun_zh"]


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
    return sum(t.tag != "eng" for t in ta) >= len(ta) / 2  # a Chinese question
