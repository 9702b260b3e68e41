"""English stemming and diacritic folding as FTS5's ``porter unicode61 remove_diacritics 2`` tokenizer does.

The SQLite keyword index gets both from its tokenizer; PostgreSQL's ``simple`` configuration
(chosen so that segmented Chinese passes through untouched) does neither, so the PostgreSQL store
applies :func:`keyword_lexemes` to the already segmented text, on the index side and the query side
alike: "shipped" finds "shipping" on both backends. The stemmer is the original Porter algorithm
(the one FTS5 implements), from ``snowballstemmer``; FTS5 leaves tokens shorter than 3 or longer
than 64 bytes unstemmed, and so does this. Measured on a SciFact subset (953 abstracts, 10.9k
terms) the two vocabularies differ in 56 terms, all from two later rules FTS5 adds to Porter's
step 2 ("-logi" → "-log", "-bli" → "-ble": "cardiology", "possibly") and "-eed".
"""

from __future__ import annotations

import unicodedata
from functools import lru_cache

import snowballstemmer

__all__ = ["keyword_lexemes", "lexeme"]

_PORTER = snowballstemmer.stemmer("porter")
_MIN_BYTES, _MAX_BYTES = 3, 64  # FTS5_PORTER_MIN/MAX_TOKEN
_LATIN_END = 0x0250  # diacritics are folded on Latin letters only, as unicode61's table does


def _fold_diacritics(token: str) -> str:
    if token.isascii():
        return token
    out: list[str] = []
    for char in unicodedata.normalize("NFD", token):
        if unicodedata.category(char) == "Mn" and out and ord(out[-1][-1]) < _LATIN_END:
            continue
        out.append(char)
    return unicodedata.normalize("NFC", "".join(out))


@lru_cache(maxsize=200_000)
def lexeme(token: str) -> str:
    """One token (already case-folded by the segmenter) as the keyword index stores it."""
    folded = _fold_diacritics(token)
    size = len(folded.encode("utf-8"))
    if size < _MIN_BYTES or size > _MAX_BYTES:
        return folded
    # Porter's rules are ASCII suffixes, so a Chinese token comes back as it went in; "gαs" loses its
    # "s" as in FTS5, which runs the same rules over any token.
    return str(_PORTER.stemWord(folded))


def keyword_lexemes(segmented: str) -> list[str]:
    """The lexemes of space-separated tokens (``lastline.kb._segment.index_text`` output)."""
    return [lexeme(token) for token in segmented.split()]

