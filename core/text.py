"""Text normalization shared by the cache key, FAQ matching and language detection.

Normalization is for *matching*, never for display: NFKC folds full-width letters, digits and
punctuation to their ASCII forms (``？`` → ``?``), case is folded, runs of whitespace collapse, and
trailing sentence punctuation is dropped, so trivial rewrites of one question share one key.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata

__all__ = ["CJK_CHARS", "HAN_CHARS", "cjk_ratio", "is_cjk_dominant", "language_of", "normalize_text", "text_hash"]

#: The one definition of a Han character, as the body of a regex class (``f"[{HAN_CHARS}]"``): CJK
#: Unified Ideographs, Extension A and the compatibility block. Every tier builds its patterns on it.
HAN_CHARS = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
#: Han plus Japanese kana and Korean Hangul: what counts as CJK when telling the language of a text.
CJK_CHARS = HAN_CHARS + "\u3040-\u30ff\uac00-\ud7af"

_SPACE = re.compile(r"\s+")
_CJK = re.compile(f"[{CJK_CHARS}]")
_NON_LETTERS = re.compile(r"[\W\d_]+")
_NON_CJK = re.compile(f"[^{CJK_CHARS}]+")
# Punctuation that does not change meaning when spaced differently or doubled: 。、，！？ etc.
# after NFKC (。 and 、 have no compatibility mapping, so they are folded here).
_FOLD = str.maketrans({"。": ".", "、": ",", "「": '"', "」": '"', "『": '"', "』": '"', "〜": "~"})
_TRAILING = re.compile(r"[\s.!?,;:~…]+$")
_SPACE_AROUND_PUNCT = re.compile(r"\s*([,.!?;:()\"'])\s*")


def normalize_text(text: str) -> str:
    """Matching form of ``text``: NFKC, case-folded, spaces collapsed, end punctuation dropped."""
    folded = unicodedata.normalize("NFKC", text).translate(_FOLD).casefold()
    folded = _SPACE.sub(" ", folded).strip()
    folded = _SPACE_AROUND_PUNCT.sub(r"\1", folded)
    folded = _TRAILING.sub("", folded)
    return _space_between_cjk(folded)


def _space_between_cjk(text: str) -> str:
    """Drop spaces that touch a CJK character: ``我 想 借钱`` and ``我想借钱`` are one question."""
    if " " not in text or not _CJK.search(text):
        return text
    return re.sub(
        f"(?<=[{HAN_CHARS}]) | (?=[{HAN_CHARS}])", "", text
    )


def text_hash(text: str) -> str:
    """Stable hex digest of already-normalized text (sha256)."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def cjk_ratio(text: str) -> float:
    """Share of letters that are CJK; 0.0 for text with no letters."""
    if not _CJK.search(text):
        return 0.0  # most English text: one scan, no copies
    # Deleting runs in C and counting what is left is ~3x faster than a list of one-letter matches.
    letters = _NON_LETTERS.sub("", text)
    if not letters:
        return 0.0
    return len(_NON_CJK.sub("", letters)) / len(letters)


def is_cjk_dominant(text: str) -> bool:
    """True when CJK makes up at least a third of the letters (mixed 中文 + English counts)."""
    return cjk_ratio(text) >= 1 / 3


def language_of(text: str) -> str:
    """``"zh"`` for CJK-dominant text, else ``"en"``: picks the language of user-facing notices."""
    return "zh" if is_cjk_dominant(text) else "en"
