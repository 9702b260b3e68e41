"""The ranked lists one query gets, and how they are fused into one score per chunk.

Lists are named: ``keyword`` (FTS5 BM25), ``vector`` (kNN in the primary, multilingual space) and
``english`` (kNN in the English space, only for an English query when that space is on). A
Chinese query, or any query with the English space off, fuses keyword + vector exactly as before
the English space existed; an English query fuses all three with its own weights, because the
English model is much stronger than USE on English text and USE adds only a little on top of it
(curves in docs/benchmarks.md). Fusion is weighted reciprocal rank fusion with one ``k``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from ._filters import Filters
from ._search import Ranked, keyword_search, rrf, vector_search
from ._vectors import ENGLISH, PRIMARY

if TYPE_CHECKING:
    from ._kb import KnowledgeBase, Mode

__all__ = ["KEYWORD", "VECTOR_LISTS", "Rankings", "rank_lists"]

KEYWORD = "keyword"
#: Lists that come from a vector space (named like the space, see ``VectorSpace.name``).
VECTOR_LISTS = (PRIMARY.name, ENGLISH.name)


@dataclass(frozen=True)
class Rankings:
    """The candidate lists of one query (best first) with the weights and ``k`` that fuse them.

    Every list the query is entitled to is present, possibly empty, so the weights in force do not
    depend on what happened to match.
    """

    lists: dict[str, list[Ranked]]
    weights: dict[str, float]
    rrf_k: float
    query_vectors: dict[str, np.ndarray] = field(default_factory=dict, repr=False)  # per vector list
    ranks: dict[str, dict[int, int]] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        ranks = {name: {r.rowid: i for i, r in enumerate(items, start=1)} for name, items in self.lists.items()}
        object.__setattr__(self, "ranks", ranks)

    def rank(self, name: str, rowid: int) -> int | None:
        """1-based rank of ``rowid`` in list ``name``, or None when it is not there."""
        return self.ranks.get(name, {}).get(rowid)

    def cosine(self, name: str, rowid: int) -> float | None:
        """Cosine similarity of ``rowid`` in vector list ``name``, when it was a candidate there."""
        rank = self.rank(name, rowid)
        return None if rank is None or name not in VECTOR_LISTS else self.lists[name][rank - 1].score

    def scores(self) -> dict[int, float]:
        """One score per candidate: the list's own score when there is one list, else weighted RRF.

        A single list keeps its natural score (``-bm25`` or cosine), so keyword and one-space
        vector searches report what they always did.
        """
        if len(self.lists) == 1:
            (only,) = self.lists.values()
            return {r.rowid: r.score for r in only}
        names = list(self.lists)
        return rrf([self.lists[n] for n in names], [self.weights[n] for n in names], self.rrf_k)


def rank_lists(
    kb: KnowledgeBase, query: str, *, tenant: str, filters: Filters, mode: Mode, depth: int
) -> Rankings:
    """Run the lists ``mode`` asks for: keyword unless ``vector``, each space holding the query unless ``keyword``.

    A space "holds" a query by the same rule as a chunk (the English space: not CJK-dominant), so an
    English query meets English chunks in the English space and every chunk in the primary one.
    """
    conn = kb.storage.connection()
    spaces = [(space, embedder) for space, embedder in kb.spaces if space.holds(query)]
    lists: dict[str, list[Ranked]] = {}
    if mode != "vector":
        lists[KEYWORD] = keyword_search(
            conn, query, tenant=tenant, filters=filters, limit=depth, segmenter=kb.config.segmenter
        )
    vectors: dict[str, np.ndarray] = {}
    if mode != "keyword":
        for space, embedder in spaces:
            vectors[space.name] = embedder.encode([query])[0]
            lists[space.name] = vector_search(
                conn, vectors[space.name], table=space.table, tenant=tenant, filters=filters, limit=depth
            )
    c = kb.config
    english = any(space is ENGLISH for space, _ in spaces)
    weights = {
        KEYWORD: c.keyword_weight,
        PRIMARY.name: c.english_vector_weight if english else c.vector_weight,
        ENGLISH.name: c.english_weight,
    }
    return Rankings(lists, weights, c.rrf_k, vectors)
