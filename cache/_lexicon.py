"""The word lists the polarity and name guards read, loaded once from ``cache/lexicon/``.

Each file says where it comes from (``cache/lexicon/README.md``): the English antonyms, instance
names and irregular forms are generated from Princeton WordNet 3.0 by ``bench/build_lexicons.py``;
the Chinese lists and the English additions are hand-written. Nothing is fetched at run time.
Loaded lazily (a process that never compares two prompts never reads them) and kept as plain
sets and dicts: about 14k names and 3.4k antonym pairs.
"""

from __future__ import annotations

from functools import lru_cache
from importlib import resources

__all__ = ["antonyms_en", "antonyms_zh", "inflections_en", "names_en", "opposite_chars_zh"]


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
def inflections_en() -> dict[str, tuple[str, ...]]:
    """Irregular form → lemmas (``sold`` → ``sell``, ``worst`` → ``bad``)."""
    return {row[0]: tuple(row[1].split(",")) for row in _rows("inflections_en.tsv")}


@lru_cache(maxsize=1)
def names_en() -> dict[str, tuple[frozenset[str], bool]]:
    """Lower-cased instance name → (its WordNet synset ids, whether it is also an ordinary word)."""
    return {row[0]: (frozenset(row[1].split(",")), len(row) > 2 and row[2] == "c") for row in _rows("names_en.tsv")}


@lru_cache(maxsize=1)
def antonyms_zh() -> tuple[tuple[str, str], ...]:
    """Chinese opposite word pairs, both orders, longest first (so 开通 wins over 开)."""
    pairs = [(a, b) for a, b, *_ in _rows("antonyms_zh.tsv")]
    both = {*pairs, *((b, a) for a, b in pairs)}
    return tuple(sorted(both, key=lambda p: (-len(p[0]), p)))


@lru_cache(maxsize=1)
def opposite_chars_zh() -> frozenset[frozenset[str]]:
    """Single characters that are each other's opposite (上/下, 开/关, 借/还)."""
    return _pairs("opposite_chars_zh.tsv")
