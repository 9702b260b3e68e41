"""FAISS HNSW graphs over unit vectors, the one way lastline builds, searches and filters them.

The cache (:mod:`lastline.cache._index`) and the knowledge base (:mod:`lastline.kb._ann`) both keep
HNSW graphs as derived accelerators rebuilt from the database; what a graph is, and how a search
skips ids it must not return, is the same for both and lives here.

- Vectors are L2-normalized, so inner product is cosine: graphs use ``METRIC_INNER_PRODUCT``.
- FAISS runs on one OpenMP thread: a lookup searches one query vector, and on a busy 2-core host
  OpenMP's spinning workers turned a 0.15 ms flat search over 2k vectors into 35 ms on average.
  OpenMP's thread count is a per-thread setting (libgomp keeps it in the calling thread's ICV):
  set at import it covers only the importing thread, and request threads searched with one
  OpenMP thread per core (26 ms wall, 8 ms CPU per flat search over 2k vectors on a busy host,
  against 0.6 / 0.14 ms). Every caller that runs FAISS calls :func:`one_openmp_thread` first.
- A graph's stored vectors can also be scored whole (:func:`scan_stored`): exact, and cheaper than a
  walk over a few thousand. FAISS scores them, not numpy: numpy's matrix-vector product of that
  size runs on OpenBLAS's threads, which then spin on the other core for a while after each call.
- A search that must skip ids (tombstones, another filter's rows) passes a selector *inside* the
  graph walk (``SearchParametersHNSW.sel``), not an over-fetch that can come back short. The
  parameters hold raw pointers to the selector and its id set, so :class:`Selection` keeps them
  alive together.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Any

import faiss
import numpy as np

__all__ = ["Selection", "allow_positions", "exclude_ids", "flat_copy", "hnsw_graph", "one_openmp_thread",
           "scan_stored", "stored_vectors"]

_openmp = threading.local()


def one_openmp_thread() -> None:
    """Limit FAISS to one OpenMP thread in the calling thread (once per thread)."""
    if not getattr(_openmp, "limited", False):
        faiss.omp_set_num_threads(1)
        _openmp.limited = True


one_openmp_thread()


def hnsw_graph(dim: int, *, m: int, ef_construction: int, ef_search: int) -> faiss.IndexHNSWFlat:
    """An empty inner-product HNSW graph that stores its vectors (so they can be read back)."""
    graph = faiss.IndexHNSWFlat(dim, m, faiss.METRIC_INNER_PRODUCT)
    graph.hnsw.efConstruction = ef_construction
    graph.hnsw.efSearch = ef_search
    return graph


def flat_copy(dim: int) -> faiss.IndexFlatIP:
    """An empty inner-product store of vectors without a graph: for a set only ever scored whole.

    Linking vectors into a graph (m 16, ef_construction 64, 512 dimensions) costs 0.25 s of CPU for
    2,000 and 2.29 s for 10,000, a flat copy 0.001 and 0.011 s (bench/kb_search_paths.py): work
    thrown away when every search scans the stored vectors anyway.
    """
    return faiss.IndexFlatIP(dim)


def _flat(graph: faiss.IndexHNSWFlat | faiss.IndexFlat) -> Any:
    """The IndexFlat holding the vectors: a graph's storage, or the flat copy itself (the stubs say Index)."""
    return faiss.downcast_index(graph.storage) if isinstance(graph, faiss.IndexHNSW) else graph


def stored_vectors(graph: faiss.IndexHNSWFlat | faiss.IndexFlat) -> np.ndarray:
    """The graph's (or flat copy's) vectors as an ``[ntotal, d]`` view of its own storage (no copy: RAM counts once)."""
    return faiss.rev_swig_ptr(_flat(graph).get_xb(), graph.ntotal * graph.d).reshape(graph.ntotal, graph.d)


def scan_stored(graph: faiss.IndexHNSWFlat | faiss.IndexFlat, query: np.ndarray, k: int,
                mask: np.ndarray | None) -> tuple[np.ndarray, np.ndarray]:
    """The exact top ``k`` of the graph's stored vectors for ``query`` among the positions ``mask`` allows.

    Returns (scores, positions), best first; positions of -1 pad a list that ran out. Scored by FAISS
    on its one OpenMP thread: scored by a numpy product over 2,000 vectors, which left OpenBLAS's
    second thread spinning, a server's KB search cost more CPU than through sqlite-vec, not less
    (`bench/load.py --mixes fallback_kb,kb_search`, 16 clients: 12.6–13.1 against 7.3–8.5 ms of
    server CPU per answered search).
    """
    one_openmp_thread()
    selection = allow_positions(mask, k)  # the walk's parameters; the flat scan reads only the selector
    scores, positions = _flat(graph).search(np.ascontiguousarray(query, dtype=np.float32).reshape(1, -1), k,
                                            params=selection.params)
    return scores[0], positions[0]


@dataclass(frozen=True)
class Selection:
    """HNSW search parameters with a selector, and the objects their raw pointers point into."""

    params: Any  # faiss.SearchParametersHNSW (absent from faiss's type stubs)
    refs: tuple[object, ...]


def _selection(selector: Any, ef_search: int, *refs: object) -> Selection:
    params = faiss.SearchParametersHNSW()  # type: ignore[attr-defined]
    params.efSearch = ef_search
    if selector is not None:
        params.sel = selector
    return Selection(params, (selector, *refs))


def exclude_ids(ids: np.ndarray, ef_search: int) -> Selection:
    """Skip the labels ``ids`` (e.g. tombstones of removed entries) during the walk."""
    batch = faiss.IDSelectorBatch(np.ascontiguousarray(ids, dtype=np.int64))
    return _selection(faiss.IDSelectorNot(batch), ef_search, batch)


def allow_positions(mask: np.ndarray | None, ef_search: int) -> Selection:
    """Only labels ``i`` with ``mask[i]`` true (a bitmap: one bit per graph position); None: all."""
    if mask is None:
        return _selection(None, ef_search)
    bits = np.packbits(np.asarray(mask, dtype=bool), bitorder="little")
    return _selection(faiss.IDSelectorBitmap(len(mask), faiss.swig_ptr(bits)), ef_search, bits)
