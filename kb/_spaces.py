"""The KB's vector spaces: which chunks each one holds, and which model it was built with.

A space is one table of chunk vectors tied to one embedding model; the store records the model id
and dimension per space, and opening the KB with another model rebuilds the space, so vectors of
two models never mix.

Two spaces exist:

- ``PRIMARY`` (``kb_vec``) holds every chunk, embedded by the service's one embedder (USE by
  default, the only bundled model that reads Chinese and English alike). Cross-lingual search and
  the answer floors rest on its cosines.
- ``ENGLISH`` (``kb_vec_en``) holds only chunks whose embedded text is not CJK-dominant
  (:func:`lastline.text.language_of`), embedded by an English specialist (MiniLM by default):
  USE is weak on technical English (SciFact vector-only nDCG@10 0.436 vs MiniLM 0.670), while an
  English-only model maps Chinese to unknown tokens, so it must never see Chinese chunks.
"""

from __future__ import annotations

from dataclasses import dataclass

from lastline.text import language_of

__all__ = ["ENGLISH", "PRIMARY", "VectorSpace"]


@dataclass(frozen=True)
class VectorSpace:
    """Where a space lives (table, meta key prefix) and which chunks it holds.

    ``languages`` is None for a space that holds every chunk, else the set of
    :func:`~lastline.text.language_of` values whose chunks it holds.
    """

    name: str
    table: str
    meta_prefix: str
    languages: frozenset[str] | None = None

    def holds(self, text: str) -> bool:
        """Whether a chunk (or query) whose embedded text is ``text`` belongs in this space."""
        return self.holds_language(language_of(text))

    def holds_language(self, language: str) -> bool:
        return self.languages is None or language in self.languages

    @property
    def model_key(self) -> str:
        return f"{self.meta_prefix}model_id"

    @property
    def dim_key(self) -> str:
        return f"{self.meta_prefix}dim"


# The primary space keeps the unprefixed keys and table name it has had since kb_0001, so
# existing databases open without re-embedding.
PRIMARY = VectorSpace("vector", "kb_vec", "")
ENGLISH = VectorSpace("english", "kb_vec_en", "en_", frozenset({"en"}))
