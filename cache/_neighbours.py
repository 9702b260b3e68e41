"""Where a lookup gets its candidates: the in-process FAISS index, or kNN inside the database.

:class:`Neighbours` is the four reads the lookup path makes of a vector index. The FAISS
:class:`~lastline.cache._index.VectorIndex` has them (an accelerator derived from the database and
kept in step by ``_sync.py``); :class:`StoreNeighbours` answers the same reads from a store that
can search vectors itself (pgvector), so with ``CacheConfig.vector_index = "store"`` a replica's
lookups depend on no per-process state at all: another replica's write or delete is seen by the
very next lookup. Both return cosines of the same unit vectors, so decisions are the same.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import NamedTuple, Protocol

import numpy as np

from ._fuzzy import length_window

__all__ = ["STORE_EXACT_SCAN_LIMIT", "STORE_FUZZY_SCAN_LIMIT", "FuzzyChoices", "Nearest", "Neighbours",
           "StoreNeighbours", "VectorSearchStore"]

PartitionKey = tuple[str, str]
#: Partitions up to this size are searched exactly in the database, larger ones through the
#: model's HNSW index. An exact scan costs ≈20 µs per 512-d vector there (one partition of 5,000
#: random unit vectors: ≈110 ms exact, ≈14 ms through HNSW, on a 2-core host at load ≈5), not
#: FAISS's ≈0.1 µs, so the switch comes far sooner than FAISS's ``hnsw_threshold``.
STORE_EXACT_SCAN_LIMIT = 2_000
#: The most prompts a lookup reads from the database for its typo scan. The database has no
#: length order to read a window from, so it sends the whole partition (up to this size; larger
#: partitions take fuzzy candidates from the kNN): each lookup reads every row, which is why the
#: cap stays below FAISS's, whose scan reads a length window of prompts kept in memory.
STORE_FUZZY_SCAN_LIMIT = 2_000


class FuzzyChoices(NamedTuple):
    """Prompts a fuzzy scan reads (``texts``) and the entries they belong to (``seqs``), aligned."""

    seqs: list[int]
    texts: list[str]


class Nearest(NamedTuple):
    """One kNN search: up to ``k`` (seq, cosine) best first, and whether it was exhaustive.

    ``exhaustive`` means the search compared every vector of the partition (FAISS flat): no entry
    it left out scores above the last one it returned. The lookup path relies on that to skip work
    for candidates that cannot reach the threshold; an approximate search (HNSW) says False.
    """

    hits: list[tuple[int, float]]
    exhaustive: bool


class Neighbours(Protocol):
    """The lookup path's reads of a vector index, per (tenant, context) partition."""

    def fuzzy_choices(self, key: PartitionKey, text: str, min_ratio: float) -> FuzzyChoices | None:
        """The partition's normalized prompts when small enough to scan, else None; only those whose
        length lets them reach ``min_ratio`` against ``text`` need be returned."""
        ...

    def is_empty(self, key: PartitionKey) -> bool:
        """True when the partition holds no vector: the lookup then skips embedding the prompt."""
        ...

    def search(self, key: PartitionKey, query: np.ndarray, k: int) -> list[tuple[int, float]]:
        """Up to ``k`` (seq, cosine), best first (the hits of :meth:`nearest`)."""
        ...

    def nearest(self, key: PartitionKey, query: np.ndarray, k: int) -> Nearest:
        """:meth:`search`, saying whether it was exhaustive (read under the same lock as the search)."""
        ...

    def nearest_many(self, key: PartitionKey, queries: np.ndarray, k: int) -> list[Nearest]:
        """:meth:`nearest` for each row of ``queries`` (a round of lookups: ``_rounds.py``)."""
        ...

    def cosines(self, key: PartitionKey, query: np.ndarray, seqs: Iterable[int]) -> list[tuple[int, float]]:
        """(seq, cosine) of those ``seqs`` that are vectors of the partition, best first."""
        ...


class VectorSearchStore(Protocol):
    """A store that searches its own vectors (the PostgreSQL cache store)."""

    def has_vectors(self, tenant: str, ctx: str, model_id: str) -> bool: ...

    def partition_prompts(self, tenant: str, ctx: str, model_id: str, limit: int) -> dict[int, str] | None: ...

    def nearest(self, tenant: str, ctx: str, model_id: str, vector: np.ndarray, k: int, *,
                exact_scan_limit: int, ef_search: int) -> list[tuple[int, float]]: ...

    def cosines(self, tenant: str, ctx: str, model_id: str, vector: np.ndarray, seqs: Iterable[int]
                ) -> list[tuple[int, float]]: ...


class StoreNeighbours:
    """:class:`Neighbours` answered by the database: vectors of one model id, as FAISS holds them."""

    def __init__(self, store: VectorSearchStore, model_id: str, *, fuzzy_scan_limit: int, exact_scan_limit: int,
                 ef_search: int) -> None:
        self.store = store
        self.model_id = model_id
        self.fuzzy_scan_limit = fuzzy_scan_limit
        #: Partitions up to this size are searched exactly (see ``STORE_EXACT_SCAN_LIMIT``).
        self.exact_scan_limit = exact_scan_limit
        self.ef_search = ef_search

    def fuzzy_choices(self, key: PartitionKey, text: str, min_ratio: float) -> FuzzyChoices | None:
        prompts = self.store.partition_prompts(key[0], key[1], self.model_id, self.fuzzy_scan_limit)
        if prompts is None:
            return None
        lo, hi = length_window(len(text), min_ratio)
        window = [(seq, p) for seq, p in prompts.items() if lo <= len(p) <= hi]
        return FuzzyChoices([seq for seq, _ in window], [p for _, p in window])

    def is_empty(self, key: PartitionKey) -> bool:
        return not self.store.has_vectors(key[0], key[1], self.model_id)

    def search(self, key: PartitionKey, query: np.ndarray, k: int) -> list[tuple[int, float]]:
        return self.store.nearest(key[0], key[1], self.model_id, query, k, exact_scan_limit=self.exact_scan_limit,
                                  ef_search=self.ef_search)

    def nearest(self, key: PartitionKey, query: np.ndarray, k: int) -> Nearest:
        # The store picks exact or HNSW search by the partition's size itself; never claiming
        # exhaustive keeps every lookup over the database on the full candidate path.
        return Nearest(self.search(key, query, k), exhaustive=False)

    def nearest_many(self, key: PartitionKey, queries: np.ndarray, k: int) -> list[Nearest]:
        # One query per round trip: the server runs lookups over the database on threads of their
        # own, not in rounds (``SemanticCache.reads_locally``), so this serves other callers only.
        return [self.nearest(key, query, k) for query in queries]

    def cosines(self, key: PartitionKey, query: np.ndarray, seqs: Iterable[int]) -> list[tuple[int, float]]:
        return self.store.cosines(key[0], key[1], self.model_id, query, seqs)
