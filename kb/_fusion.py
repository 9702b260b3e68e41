"""The ranked lists one query gets, and how they are fused into one score per chunk.

Lists are named: ``keyword`` (BM25 over the segmented text), ``vector`` (kNN in the primary, multilingual space) and
``english`` (kNN in the English space, only for an English query when that space is on). A
Chinese query, or any query with the English space off, fuses keyword + vector exactly as before
the English space existed; an English query fuses all three with its own weights, because the
English model is much stronger than USE on English text and USE adds only a little on top of it
(curves in docs/benchmarks.md). Fusion is weighted reciprocal rank fusion with one ``k``.
"""

from __future__ import annotations

from collections.abc import Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field

import numpy as np

from lastline.embedding import Embedder

from ._config import DEFAULT_RRF_K, KBConfig, Mode
from ._filters import Filters
from ._segment import query_terms
from ._spaces import ENGLISH, PRIMARY
from ._store import KeywordSearch, Ranked, VectorIndex

__all__ = ["KEYWORD", "VECTOR_LISTS", "Rankings", "rank_lists", "rrf"]

KEYWORD = "keyword"
#: Where a query's further vector spaces are encoded and searched while its thread ranks the keyword
#: list and the first space (``KBConfig.overlap_spaces``). The model runs (onnxruntime, numpy's
#: matrix products) and FAISS release the GIL, so on a second core the English space's ≈17 ms MiniLM
#: encode overlaps the rest of the search. Two workers: a busy pool never delays a query, since a
#: space no worker has started yet is taken back and run in the query's own thread.
_SPACES = ThreadPoolExecutor(max_workers=2, thread_name_prefix="kb-space")
#: Lists that come from a vector space (named like the space, see ``VectorSpace.name``).
VECTOR_LISTS = (PRIMARY.name, ENGLISH.name)


def rrf(lists: Sequence[Sequence[Ranked]], weights: Sequence[float], k: float = DEFAULT_RRF_K) -> dict[int, float]:
    """Reciprocal rank fusion: ``sum(w / (k + rank))`` over the lists a chunk appears in (rank from 1)."""
    fused: dict[int, float] = {}
    for ranked, weight in zip(lists, weights, strict=True):
        for rank, item in enumerate(ranked, start=1):
            fused[item.rowid] = fused.get(item.rowid, 0.0) + weight / (k + rank)
    return fused


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


def _space_list(query: str, index: VectorIndex, embedder: Embedder, tenant: str, filters: Filters,
                depth: int) -> tuple[np.ndarray, list[Ranked]]:
    """The query's vector in one space and that space's ``depth`` nearest chunks."""
    vector = embedder.encode([query])[0]
    return vector, index.search(vector, tenant=tenant, filters=filters, limit=depth)


def rank_lists(
    query: str, *, keywords: KeywordSearch, spaces: Sequence[tuple[VectorIndex, Embedder]], config: KBConfig,
    tenant: str, filters: Filters, mode: Mode, depth: int,
) -> Rankings:
    """Run the lists ``mode`` asks for: keyword unless ``vector``, each space holding the query unless ``keyword``.

    A space "holds" a query by the same rule as a chunk (the English space: not CJK-dominant), so an
    English query meets English chunks in the English space and every chunk in the primary one.
    ``spaces`` are the searchable ones (a space still being filled is left out by the caller).
    """
    held = [(index, embedder) for index, embedder in spaces if index.space.holds(query)]
    searched = [] if mode == "keyword" else held
    later: list[Future[tuple[np.ndarray, list[Ranked]]] | None] = [None] * len(searched)
    if config.overlap_spaces:
        for i, (index, embedder) in enumerate(searched[1:], start=1):
            later[i] = _SPACES.submit(_space_list, query, index, embedder, tenant, filters, depth)
    lists: dict[str, list[Ranked]] = {}
    if mode != "vector":
        terms = query_terms(query, config.segmenter)
        lists[KEYWORD] = [] if not terms else keywords.keyword_search(
            terms, tenant=tenant, filters=filters, limit=depth)
    vectors: dict[str, np.ndarray] = {}
    for (index, embedder), pending in zip(searched, later, strict=True):
        if pending is None or pending.cancel():  # not overlapped, or no worker has started it: run it here
            vectors[index.space.name], lists[index.space.name] = _space_list(
                query, index, embedder, tenant, filters, depth)
        else:
            vectors[index.space.name], lists[index.space.name] = pending.result()
    english = any(index.space is ENGLISH for index, _ in held)
    weights = {
        KEYWORD: config.keyword_weight,
        PRIMARY.name: config.english_vector_weight if english else config.vector_weight,
        ENGLISH.name: config.english_weight,
    }
    return Rankings(lists, weights, config.rrf_k, vectors)
