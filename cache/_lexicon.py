"""The word lists the polarity and name guards read, loaded once from ``cache/lexicon/``.

Each file says where it comes from (``cache/lexicon/README.md``): the English antonyms, instance
names, irregular forms, synonym groups, direct kinds and derived forms are generated from Princeton
WordNet 3.0 by ``bench/build_lexicons.py``; the Chinese lists and the English additions are
hand-written or bridged from CC-CEDICT. Nothing is fetched at run time. Loaded lazily (a process
that never compares two prompts never reads them) and kept as plain sets and dicts: about 14k
names, 3.4k antonym pairs, 36k synonym groups, the direct hypernyms of 44k words, 16k derivations.
"""

from __future__ import annotations

import sys
from functools import lru_cache
from importlib import resources

__all__ = [
    "affixes_en", "antonyms_en", "derivations_en", "hypernyms_en", "inflections_en", "lemmas", "names_en",
    "opposite_chars_zh", "opposites_zh", "synonyms_en", "synonyms_zh", "words_en",
]


def _rows(name: str) -> list[list[str]]:
    text = resources.files("lastline.cache").joinpath("lexicon", name).read_text(encoding="utf-8")
    return [line.split("\t") for line in text.splitlines() if line and not line.startswith("#")]


def _pairs(*names: str) -> frozenset[frozenset[str]]:
    return frozenset(frozenset(row[:2]) for name in names for row in _rows(name) if row[0] != row[1])


@lru_cache(maxsize=1)
def antonyms_en() -> frozenset[frozenset[str]]:
    """Unordered English opposite pairs (WordNet direct antonyms plus the curated list)."""
    return _pairs("antonyms_en.tsv", "antonyms_en_curated.tsv")


@lru_cache(maxsize=1)
def words_en() -> dict[str, str]:
    """Every single-word WordNet lemma → its parts of speech (``n v a r``): what counts as a real word."""
    return {row[0]: row[1] for row in _rows("words_en.tsv")}


@lru_cache(maxsize=1)
def affixes_en() -> tuple[tuple[str, str, str, str], ...]:
    """Opposite affixes learned from WordNet's antonyms: (``prefix`` or ``suffix``, affix, affix, the
    part of speech they make opposite), either affix possibly empty (un / "" a, over / under v,
    ful / less a)."""
    return tuple((row[0], row[1], row[2], row[3]) for row in _rows("affixes_en.tsv"))


@lru_cache(maxsize=1)
def inflections_en() -> dict[str, tuple[str, ...]]:
    """Irregular form → lemmas (``sold`` → ``sell``, ``worst`` → ``bad``)."""
    return {row[0]: tuple(row[1].split(",")) for row in _rows("inflections_en.tsv")}


@lru_cache(maxsize=1)
def names_en() -> dict[str, tuple[frozenset[str], bool]]:
    """Lower-cased instance name → (its WordNet synset ids, whether it is also an ordinary word)."""
    return {row[0]: (frozenset(row[1].split(",")), len(row) > 2 and row[2] == "c") for row in _rows("names_en.tsv")}


@lru_cache(maxsize=4)
def opposite_chars_zh(derived: bool = False, composed: bool = False) -> frozenset[frozenset[str]]:
    """Single characters that are each other's opposite (上/下, 开/关, 借/还); ``derived`` adds the
    CC-CEDICT × WordNet bridge (升/降, 胖/瘦), ``composed`` the characters in which two opposite words
    differ alone (最好 / 最差 → 好 / 差, 里面 / 外面 → 里 / 外; both ``bench/build_lexicons_zh.py``)."""
    return _pairs("opposite_chars_zh.tsv", *(("opposite_chars_zh_cedict.tsv",) if derived else ()),
                  *(("opposite_chars_zh_composed.tsv",) if composed else ()))


@lru_cache(maxsize=4)
def opposites_zh(derived: bool = False, reversals: bool = False) -> dict[str, frozenset[str]]:
    """Chinese word → its opposite words (both directions): the hand-written pairs, with ``derived``
    the CC-CEDICT × WordNet bridge (升高 / 降低, 开通 / 关闭), with ``reversals`` a verb that undoes
    against one that starts what it undoes (申请 / 撤销, 开通 / 注销, 开户 / 销户)."""
    out: dict[str, set[str]] = {}
    names = ("antonyms_zh.tsv", *(("antonyms_zh_cedict.tsv",) if derived else ()),
             *(("reversals_zh_cedict.tsv",) if reversals else ()))
    for pair in _pairs(*names):
        a, b = sorted(pair)
        out.setdefault(a, set()).add(b)
        out.setdefault(b, set()).add(a)
    return {w: frozenset(o) for w, o in out.items()}


@lru_cache(maxsize=1)
def synonyms_zh() -> dict[str, frozenset[int]]:
    """Chinese word → its synonym groups (words sharing a CC-CEDICT gloss: 借款 / 贷款 "loan")."""
    return _groups("synonyms_zh.tsv")


@lru_cache(maxsize=1)
def synonyms_en() -> dict[str, frozenset[int]]:
    """Word → the synonym groups it belongs to (WordNet synsets, adjective clusters, pertainyms):
    two words stand for each other when their groups meet."""
    return _groups("synonyms_en.tsv")


@lru_cache(maxsize=1)
def derivations_en() -> dict[str, tuple[str, ...]]:
    """Word → the words WordNet gives as its derivationally related forms (driver → drive, benefit →
    beneficial), both directions."""
    out: dict[str, list[str]] = {}
    for a, b in (row[:2] for row in _rows("derivations_en.tsv")):
        a, b = sys.intern(a), sys.intern(b)
        out.setdefault(a, []).append(b)
        out.setdefault(b, []).append(a)
    return {w: tuple(forms) for w, forms in out.items()}


@lru_cache(maxsize=1)
def hypernyms_en() -> dict[str, tuple[str, ...]]:
    """Word → its direct hypernyms in WordNet (nouns and verbs: girl → woman, reduce → decrease,
    lessen …): ``x`` is a direct kind of ``y`` when ``y`` is among ``x``'s. Words are interned and
    kept in tuples: 44k words, ≈ 8 MB of heap."""
    out: dict[str, list[str]] = {}
    for row in _rows("hypernyms_en.tsv"):
        heads = [sys.intern(w) for w in row[0].split()]
        for word in row[1].split():
            out.setdefault(sys.intern(word), []).extend(heads)
    return {w: tuple(dict.fromkeys(hs)) for w, hs in out.items()}


def _groups(name: str) -> dict[str, frozenset[int]]:
    out: dict[str, set[int]] = {}
    for i, row in enumerate(_rows(name)):
        for word in row:
            out.setdefault(word, set()).add(i)
    return {w: frozenset(ids) for w, ids in out.items()}


_SUFFIXES = (("ies", "y"), ("ied", "y"), ("iest", "y"), ("ier", "y"), ("es", ""), ("s", ""), ("ed", ""),
             ("ed", "e"), ("ing", ""), ("ing", "e"), ("est", ""), ("est", "e"), ("er", ""), ("er", "e"))


def lemmas(word: str) -> set[str]:
    """The lower-cased English word and the lemmas it may be a form of (stopped → stop,
    cheapest → cheap, sold → sell, women → woman): the irregular forms of WordNet, then its regular
    detachment rules."""
    out = {word, *inflections_en().get(word, ())}
    if word.endswith("men") and len(word) > 3:  # WordNet's morphy: women → woman, chairmen → chairman
        out.add(word[:-3] + "man")
    for suffix, repl in _SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            stem = word[: -len(suffix)] + repl
            out.add(stem)
            if not repl and stem[-1] == stem[-2]:
                out.add(stem[:-1])
    return out
