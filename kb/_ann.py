"""Approximate kNN for a large tenant: one FAISS HNSW graph per (vector space, tenant), derived from the store.

Why: exact kNN (sqlite-vec brute force) over 100k × 512 floats costs ≈ 200 ms a query on this
machine kind; an HNSW graph answers in a few milliseconds at recall@10 ≥ 0.95 against the exact
list (bench/kb_scale.py). And sqlite-vec reads every vector through SQLite for each query, so even a
tenant of a few thousand is searched faster by scoring the graph's in-memory copy of its vectors
whole, exactly (``AnnConfig.exact_limit``). Below ``AnnConfig.threshold`` vectors a tenant keeps
sqlite-vec's exact search.

What a graph is: a snapshot of the tenant's vectors in one space (read from the store, built aside —
in a background thread in the service — and swapped in whole), the chunk id and collection of every
graph position, the model the vectors came from, and the *watermark*: the highest chunk id the
store had handed out before the snapshot was read. The store stays the truth; losing a graph loses
nothing, and it is never written to:

- Chunks written since (ids above the watermark — the store never hands out an id twice) are
  searched exactly by the store and merged by cosine, so a write is searchable at once, in this
  process or another (a CLI ingest beside a running server). Once they pass ``rebuild_fraction`` of
  the graph, a rebuild starts.
- Every id a graph returns is checked alive in the store (one primary-key read for the list); a
  deleted chunk is dropped and its position masked out of later walks, and once masked positions
  pass ``rebuild_fraction`` of the graph, a rebuild starts.
- A graph holds one tenant, so no search can meet another tenant's vector, whatever ``k`` is.
- Filters run inside the search, never as a post-filter that could come back short: collection from
  an array per position, tags / document ids / metadata as the allowed chunk ids the store reads.
  A search that leaves at most ``exact_limit`` live positions, after any filter, scores them all on the
  graph's stored vectors (no walk: exact recall, and cheaper than a walk at that size); a wider one
  walks the graph with a bitmap of the allowed positions checked inside the walk, ``ef_search``
  raised in proportion to how much the filter removes.
- A tenant of at most ``exact_limit`` vectors is only ever scored whole, so its snapshot is a flat
  copy of the vectors with no graph links: linking them would cost 0.25 s of CPU for 2,000 and
  2.29 s for 10,000 against 0.001 and 0.011 s for the copy (bench/kb_search_paths.py), longer at
  the background's low priority beside a flood of searches that meanwhile paid for sqlite-vec, and
  no search would walk them.
- A space with chunks still waiting for vectors (the English space while its background worker
  fills it) gets no graph: the snapshot would miss them for good. The store's exact search answers.

PostgreSQL does not use this: pgvector's own HNSW index answers kNN inside the database, which all
replicas share (:mod:`lastline.kb._pg_store`).
"""

from __future__ import annotations

import math
import threading
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Protocol

import faiss
import numpy as np

from lastline.hnsw import allow_positions, flat_copy, hnsw_graph, one_openmp_thread, scan_stored, stored_vectors

from ._derived import TenantStructures
from ._filters import Filters
from ._spaces import VectorSpace
from ._store import Ranked

__all__ = ["AnnConfig", "AnnSource", "ApproximateIndex", "Graph"]

_STREAM_BATCH = 20_000


@dataclass(frozen=True)
class AnnConfig:
    """When a tenant's vectors get an HNSW graph, and how it is built and searched.

    ``threshold``: vectors per tenant and space from which a graph is built (sqlite-vec's exact search
    below). sqlite-vec reads every vector through SQLite for each query, so its cost grows with the
    tenant from the first vector; the graph's in-memory copy, scored whole, barely does. A whole
    hybrid KB search of BQ questions, CPU per search, sqlite-vec against the copy: 3.4 against
    2.6 ms at 500 vectors, 4.6 against 2.6 at 2,000, 6.8 against 3.0 at 5,000, with the same result
    lists (bench/kb_search_paths.py). So a tenant gets a graph at 500 vectors (1 MB of RAM at 512
    dimensions), where a build takes milliseconds.
    ``m`` / ``ef_construction`` / ``ef_search``: FAISS HNSW parameters (``ef_search`` is raised to
    the depth asked for). ``exact_limit``: a search leaving at most this many live positions (after
    any filter) scores them all on the graph's vectors instead of walking: exact, and about as dear as
    a walk at that size (0.76 against 0.69 ms at 10,000 random vectors); by 20,000 the walk wins
    (1.51 against 0.80 ms; bench/kb_search_paths.py, random vectors).
    ``rebuild_fraction``: new plus deleted chunks, as a share of the graph, that start a
    rebuild. ``recheck_s``: how often a tenant without a graph has its size read again.
    ``background``: build in a thread (the service) or inline.
    """

    enabled: bool = True
    threshold: int = 500
    m: int = 16
    ef_construction: int = 64
    ef_search: int = 256
    exact_limit: int = 10_000
    rebuild_fraction: float = 0.1
    recheck_s: float = 30.0
    background: bool = True


class AnnSource(Protocol):
    """What a graph is built from and checked against: one vector space of the store."""

    space: VectorSpace

    def model(self) -> tuple[str, int] | None: ...

    def pending(self) -> int: ...

    def tenant_size(self, tenant: str) -> int:
        """How many vectors of ``tenant`` the space holds (at most; an upper bound is fine)."""
        ...

    def watermark(self) -> int:
        """The highest chunk id handed out so far (ids above it are written later)."""
        ...

    def stream(self, tenant: str, batch: int) -> Iterator[tuple[np.ndarray, list[str], np.ndarray]]:
        """The tenant's vectors in batches: (chunk ids, collections, unit vectors)."""
        ...

    def newer(self, tenant: str, after: int) -> list[int]:
        """The tenant's chunk ids above ``after``."""
        ...

    def live(self, rowids: Sequence[int]) -> set[int]:
        """Those of ``rowids`` still stored."""
        ...

    def allowed(self, tenant: str, filters: Filters) -> list[int]:
        """Chunk ids of ``tenant`` passing ``filters`` (for filters beyond collection)."""
        ...

    def exact(
        self, vector: np.ndarray, *, tenant: str, filters: Filters, limit: int, within: Sequence[int] | None = None
    ) -> list[Ranked]:
        """The store's exact kNN, optionally only among the chunk ids ``within``."""
        ...


@dataclass
class Graph:
    """One tenant's vectors in memory: positions → chunk ids and collections, and which positions are dead.

    ``index`` is an HNSW graph, or a flat copy for a tenant of at most ``exact_limit`` vectors, which
    every search scores whole.
    """

    index: faiss.IndexHNSWFlat | faiss.IndexFlatIP
    ids: np.ndarray  # int64 chunk id per position
    collections: np.ndarray  # int32 code per position, into ``names``
    names: dict[str, int]
    watermark: int
    model: tuple[str, int]
    alive: np.ndarray = field(init=False)  # bool per position: False once found deleted
    dead: int = field(init=False, default=0)
    _sorted: np.ndarray = field(init=False, repr=False)
    _order: np.ndarray = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self.alive = np.ones(len(self.ids), dtype=bool)
        self._order = np.argsort(self.ids, kind="stable")
        self._sorted = self.ids[self._order]

    def __len__(self) -> int:
        return len(self.ids)

    def positions(self, rowids: Sequence[int]) -> np.ndarray:
        """Graph positions of those ``rowids`` it holds."""
        wanted = np.asarray(rowids, dtype=np.int64)
        at = np.searchsorted(self._sorted, wanted)
        at = np.minimum(at, max(len(self._sorted) - 1, 0))
        hit = self._sorted[at] == wanted if len(self._sorted) else np.zeros(len(wanted), dtype=bool)
        return np.asarray(self._order[at[hit]], dtype=np.int64)

    def kill(self, rowids: Sequence[int]) -> None:
        positions = self.positions(rowids)
        newly = positions[self.alive[positions]]
        self.alive[newly] = False
        self.dead += len(newly)

    def search(self, query: np.ndarray, want: int, mask: np.ndarray | None, *, ef_search: int,
               exact_limit: int) -> list[tuple[int, float]]:
        """Up to ``want`` (chunk id, cosine) among the live positions ``mask`` allows, best first."""
        allowed = self.alive if mask is None else (mask & self.alive)
        count = len(self) - self.dead if mask is None else int(allowed.sum())
        if count == 0:
            return []
        want = min(want, count)
        only = allowed if count < len(self) else None  # the positions it may return (None: all)
        if count <= exact_limit or not isinstance(self.index, faiss.IndexHNSW):
            # scoring them all costs less than a walk here, and misses nothing
            scores, positions = scan_stored(self.index, query, want, only)
        else:
            # A walk that must skip positions explores more of the graph for the same depth.
            ef = max(ef_search, want) * min(8, math.ceil(len(self) / count))
            one_openmp_thread()  # per thread in OpenMP: a request thread must not spin up workers
            selection = allow_positions(only, ef)  # held: the parameters point into it
            found, labels = self.index.search(query.reshape(1, -1), want, params=selection.params)
            scores, positions = found[0], labels[0]
        return [(int(self.ids[p]), float(s)) for p, s in zip(positions.tolist(), scores.tolist(), strict=True)
                if p >= 0]


def build_graph(source: AnnSource, tenant: str, config: AnnConfig,
                stop: threading.Event | None = None) -> Graph | None:
    """``tenant``'s vectors in ``source`` as they are now (None without a complete model, or when
    ``stop`` is set between two batches): an HNSW graph past ``config.exact_limit`` vectors, a flat
    copy up to it."""
    model = source.model()
    if model is None:
        return None
    watermark = source.watermark()  # first: every id at or below it is committed before the read below
    index = (flat_copy(model[1]) if source.tenant_size(tenant) <= config.exact_limit
             else hnsw_graph(model[1], m=config.m, ef_construction=config.ef_construction, ef_search=config.ef_search))
    ids: list[np.ndarray] = []
    codes: list[np.ndarray] = []
    names: dict[str, int] = {}
    for batch_ids, collections, vectors in source.stream(tenant, _STREAM_BATCH):
        if stop is not None and stop.is_set():
            return None
        index.add(np.ascontiguousarray(vectors, dtype=np.float32))
        ids.append(np.asarray(batch_ids, dtype=np.int64))
        codes.append(np.fromiter((names.setdefault(c, len(names)) for c in collections), dtype=np.int32,
                                 count=len(collections)))
    return Graph(index, np.concatenate(ids) if ids else np.zeros(0, np.int64),
                 np.concatenate(codes) if codes else np.zeros(0, np.int32), names, watermark, model)


class ApproximateIndex:
    """The graphs of one vector space, one per large tenant, and the search that merges them with the store."""

    def __init__(self, source: AnnSource, config: AnnConfig) -> None:
        self.source = source
        self.config = config
        #: The tenants' graphs (built past ``config.threshold`` vectors, rebuilt when stale).
        self.graphs: TenantStructures[Graph] = TenantStructures(
            "ann", config, size=source.tenant_size, make=self._make)

    def _make(self, tenant: str) -> Graph | None:
        # A space with chunks still waiting for vectors gets no graph: the snapshot would miss them for good.
        if self.source.pending():
            return None
        return build_graph(self.source, tenant, self.config, stop=self.graphs.stopping)

    def stop_builds(self) -> None:
        """Stop and wait for the graph builds in flight (before the store closes)."""
        self.graphs.stop_builds()

    def warm(self, tenant: str) -> bool:
        """Build ``tenant``'s graph (or flat copy) now unless it has one; True when it has one after."""
        return self.graphs.warm(tenant) is not None

    def clear(self) -> None:
        """Forget every graph (the space was reset or dropped)."""
        self.graphs.clear()

    def graph(self, tenant: str) -> Graph | None:
        """The tenant's graph when it has one that matches the space's model; may start a build."""
        graph = self.graphs.current(tenant)
        if graph is not None and graph.model != self.source.model():
            self.graphs.drop(tenant, graph)
        elif graph is not None:
            self.graphs.stale(tenant, graph.dead, len(graph))
        return self.graphs.get(tenant)

    def search(self, vector: np.ndarray, *, tenant: str, filters: Filters, limit: int) -> list[Ranked]:
        """Top ``limit`` (chunk id, cosine) for ``vector`` in ``tenant`` passing ``filters``."""
        graph = self.graph(tenant)
        if graph is None:
            return self.source.exact(vector, tenant=tenant, filters=filters, limit=limit)
        query = np.ascontiguousarray(vector, dtype=np.float32).ravel()
        mask = self._mask(graph, tenant, filters)
        if mask is not None and not mask.any():
            found: list[tuple[int, float]] = []
        else:
            found = self._walk(graph, query, mask, limit)
        newer = self.source.newer(tenant, graph.watermark)
        if newer:
            self.graphs.stale(tenant, graph.dead + len(newer), len(graph))
            seen = {rowid for rowid, _ in found}
            found += [(r.rowid, r.score) for r in self.source.exact(
                vector, tenant=tenant, filters=filters, limit=limit, within=newer) if r.rowid not in seen]
            found.sort(key=lambda item: -item[1])
        return [Ranked(rowid, score) for rowid, score in found[:limit]]

    def cosines(self, vector: np.ndarray, rowids: Sequence[int], *, tenant: str) -> dict[int, float]:
        """Cosines of ``vector`` with the chunks of ``rowids`` that ``tenant``'s graph holds (its own copies)."""
        graph = self.graphs.current(tenant)
        if graph is None or graph.model != self.source.model() or not rowids:
            return {}
        positions = graph.positions(rowids)
        scores = stored_vectors(graph.index)[positions] @ np.ascontiguousarray(vector, dtype=np.float32).ravel()
        return {int(rowid): float(score) for rowid, score in zip(graph.ids[positions].tolist(), scores.tolist(),
                                                                  strict=True)}

    def _mask(self, graph: Graph, tenant: str, filters: Filters) -> np.ndarray | None:
        mask: np.ndarray | None = None
        if filters.collections is not None:
            codes = [graph.names[c] for c in filters.collections if c in graph.names]
            mask = np.isin(graph.collections, np.asarray(codes, dtype=np.int32))
        if filters.needs_candidates:
            allowed = np.zeros(len(graph), dtype=bool)
            allowed[graph.positions(self.source.allowed(tenant, filters))] = True
            mask = allowed if mask is None else (mask & allowed)
        return mask

    def _walk(self, graph: Graph, query: np.ndarray, mask: np.ndarray | None, limit: int) -> list[tuple[int, float]]:
        """Search the graph, drop what the store no longer has (masking it for later walks), refill."""
        config = self.config
        while True:
            found = graph.search(query, limit, mask, ef_search=config.ef_search, exact_limit=config.exact_limit)
            live = self.source.live([rowid for rowid, _ in found])
            gone = [rowid for rowid, _ in found if rowid not in live]
            if not gone:
                return found
            graph.kill(gone)  # masked from now on; the next pass refills the list from live positions
