"""The near-exact layer: the same question with a typo, nothing more.

Measured first with a plain ``fuzz.ratio ≥ 95`` on normalized text, the layer served 113 QQP
non-duplicates for 170 duplicates: templated questions that differ in one name ("restaurants in
Callao" / "in Huánuco", "compare to Chile" / "to Canada") score 95+ by characters alone, and in
Chinese one character flips meaning (喜欢 / 不喜欢, 金属 / 非金属). So a fuzzy hit needs both:

- ``fuzz.ratio`` of the normalized texts ≥ ``min_ratio`` (a cheap C++ pre-filter), and
- *typo-only* differences: aligning the two token sequences, every changed token is a Latin word
  of ≥ 4 letters replaced by one within edit distance 1 (2 for words of ≥ 10 letters; a swap
  of two neighbouring letters counts as one edit);
  no token inserted, deleted or reordered, no CJK character or digit changed.

On QQP val that serves 23 duplicates against 1 non-duplicate, and never fires on LCQMC or BQ
(``bench/fuzzy_layer.py``). Word reordering is
deliberately not a fuzzy match: "Shenzhen to Beijing" is not "Beijing to Shenzhen".
"""

from __future__ import annotations

import math
import re
import sys

from rapidfuzz import fuzz
from rapidfuzz.distance import OSA

from lastline.text import HAN_CHARS

__all__ = ["length_window", "typo_key", "typo_only", "typo_similarity", "word_typo"]

_TOKEN = re.compile(rf"[^\W\d_{HAN_CHARS}]+|\d+|[{HAN_CHARS}]|\S")
_LATIN_WORD = re.compile(rf"[^\W\d_{HAN_CHARS}]{{4,}}")
_SPACE = re.compile(r"\s+")


def typo_key(norm: str) -> str | None:
    """What every typo-level match of ``norm`` shares with it, for a text with no Latin word of ≥ 4
    letters: the text without whitespace. None for a text with one.

    Why: only such a word may change in a typo-level match (:func:`typo_only`), so a text without
    one matches only texts of the same tokens, and the tokens are every non-space character: the
    two differ in whitespace alone ("qq 12怎么办" / "qq12怎么办"). A partition files its prompts
    under this key and hands such a query (most Chinese questions) the few prompts filed under
    its own in one read, instead of a scan of its length window: at 4,000 LCQMC questions that
    window holds four fifths of them (``bench/crowded_scan.py``).
    """
    if _LATIN_WORD.search(norm):
        return None
    return _SPACE.sub("", norm)


def word_typo(a: str, b: str) -> bool:
    """``a`` and ``b`` are one Latin word of ≥ 4 letters with a typo: within one edit (two from 10
    letters; two neighbouring letters swapped count as one)."""
    if not (_LATIN_WORD.fullmatch(a) and _LATIN_WORD.fullmatch(b)):
        return False
    allowed = 2 if min(len(a), len(b)) >= 10 else 1
    return OSA.distance(a, b, score_cutoff=allowed) <= allowed


def typo_only(a: str, b: str) -> bool:
    """True when normalized ``a`` and ``b`` differ only by in-word typos (see module docstring)."""
    ta, tb = _TOKEN.findall(a), _TOKEN.findall(b)
    if ta == tb:
        return True
    if len(ta) != len(tb):
        return False
    return all(x == z or word_typo(x, z) for x, z in zip(ta, tb, strict=True))


def length_window(length: int, min_ratio: float) -> tuple[int, int]:
    """The lengths a text may have to reach ``fuzz.ratio ≥ min_ratio`` against one of ``length``.

    Why: the ratio is ``2·LCS / (la + lb)`` and the LCS is at most the shorter text, so a text
    outside ``[la·r/(2−r), la·(2−r)/r]`` (r = min_ratio / 100) cannot pass. A partition's prompts
    kept in length order are then scanned over this window only, not all of them, before any
    embedding. One character of slack on each side keeps float rounding from ever excluding a text
    that passes.
    """
    r = min_ratio / 100.0
    if r <= 0:
        return 0, sys.maxsize
    return max(0, math.floor(length * r / (2.0 - r)) - 1), math.ceil(length * (2.0 - r) / r) + 1


def typo_similarity(a: str, b: str, min_ratio: float) -> float | None:
    """``ratio / 100`` when ``a`` and ``b`` are a typo-level match, else None."""
    score = fuzz.ratio(a, b, score_cutoff=min_ratio)
    if not score or not typo_only(a, b):
        return None
    return round(score / 100.0, 4)
