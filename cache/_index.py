"""FAISS, partitioned: one small index per (tenant, context fingerprint), derived from SQLite.

Why one index per partition rather than one per tenant with a context filter: a query can then
never see another tenant's or another context's vectors, whatever k is, and a tenant with many
conversations does not push the right neighbour out of the top-k. Partitions start as exact
flat inner-product search (vectors are unit length, so inner product is cosine) and switch to
HNSW once they pass ``hnsw_threshold`` vectors.

Deletion: the flat index removes ids in place (``IndexIDMap2.remove_ids``); HNSW cannot, so
removed ids become tombstones that searches skip, and the partition is rebuilt from its live
vectors once tombstones pass a quarter of it. Every id a search returns is still checked against
SQLite by the caller, so a race between a delete and an add can never serve a deleted row.

Only vectors of the cache's own model id ever enter an index; rows of another model are
re-embedded at start-up, never mixed. The graphs and the tombstone selector come from
:mod:`lastline.hnsw` (shared with the KB's index), which also pins FAISS to one OpenMP thread
(in every thread that runs it: :func:`lastline.hnsw.one_openmp_thread`).
"""

from __future__ import annotations

import bisect
import threading
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import faiss
import numpy as np

from lastline.hnsw import Selection, exclude_ids, hnsw_graph, one_openmp_thread

from ._config import DEFAULT_FUZZY_SCAN_LIMIT
from ._fuzzy import length_window, typo_key
from ._neighbours import FuzzyChoices, Nearest

__all__ = ["PartitionIndex", "VectorIndex"]

PartitionKey = tuple[str, str]
#: A partition keeps its prompts (for the typo scan) up to this many times ``fuzzy_scan_limit``.
#: A query's length window holds a third (QQP questions) to four fifths (LCQMC's short Chinese
#: ones) of a partition's prompts, so past this size nearly every window passes the limit too,
#: and the prompts would cost memory (a tenth of their vectors') and sorted inserts for nothing.
_PROMPTS_KEPT_PER_SCAN = 4


@dataclass
class PartitionIndex:
    """The vectors of one (tenant, context) partition, plus their normalized prompts while a scan
    may read them (``_PROMPTS_KEPT_PER_SCAN``).

    Vectors live only inside FAISS (flat and HNSW-flat both store them and can reconstruct
    them), so a switch to HNSW or a tombstone purge rebuilds from the index itself. Rebuilds are
    not done here but by :class:`VectorIndex` outside its lock (``needs_rebuild`` says when).
    """

    dim: int
    hnsw_threshold: int
    hnsw_m: int
    ef_search: int
    ef_construction: int
    fuzzy_scan_limit: int
    index: faiss.Index = field(init=False)
    hnsw: bool = field(init=False, default=False)
    live: set[int] = field(init=False, default_factory=set)
    prompts: dict[int, str] | None = field(init=False, default_factory=dict)
    #: ``prompts`` in order of length as three aligned lists (lengths, seqs, texts), so a fuzzy scan
    #: reads one length window as list slices.
    by_length: tuple[list[int], list[int], list[str]] = field(init=False, default_factory=lambda: ([], [], []))
    #: The ids of ``prompts`` filed under their ``_fuzzy.typo_key`` (those without a Latin word of
    #: ≥ 4 letters), so a query without one gets its only possible typo-level matches in one read.
    by_typo_key: dict[str, list[int]] = field(init=False, default_factory=dict)
    tombstones: set[int] = field(init=False, default_factory=set)
    rebuilding: bool = field(init=False, default=False)

    def __post_init__(self) -> None:
        self._inners: dict[int, faiss.Index] = {}
        self._params: Selection | None = None
        self.index = self.new_index(hnsw=False)

    def new_index(self, *, hnsw: bool) -> faiss.Index:
        inner: faiss.Index
        if hnsw:
            inner = hnsw_graph(self.dim, m=self.hnsw_m, ef_construction=self.ef_construction,
                               ef_search=self.ef_search)
        else:
            inner = faiss.IndexFlatIP(self.dim)
        index = faiss.IndexIDMap2(inner)
        self._inners[id(index)] = inner  # the map needs its inner index alive; reconstruct uses it
        return index

    def __len__(self) -> int:
        return len(self.live)

    @property
    def needs_rebuild(self) -> bool:
        """Flat past the HNSW threshold, or HNSW with tombstones over a quarter of it."""
        if self.rebuilding:
            return False
        if not self.hnsw:
            return len(self.live) > self.hnsw_threshold
        return len(self.tombstones) > max(64, len(self.live) // 4)

    def add(self, ids: np.ndarray, vecs: np.ndarray, prompts: list[str]) -> None:
        seqs = ids.tolist()
        stale = [seq for seq in seqs if seq in self.live]
        if stale:
            self.remove(stale)
        if self.tombstones.intersection(seqs):  # ids are never reused by the store; be safe anyway
            self.install(*self.snapshot(), hnsw=self.hnsw)
        self.index.add_with_ids(vecs, ids)
        self.live.update(seqs)
        if self.prompts is not None:
            lengths, ordered, texts = self.by_length
            for seq, prompt in zip(seqs, prompts, strict=True):
                self.prompts[seq] = prompt
                at = bisect.bisect_right(lengths, len(prompt))
                lengths.insert(at, len(prompt))
                ordered.insert(at, seq)
                texts.insert(at, prompt)
                key = typo_key(prompt)
                if key is not None:
                    self.by_typo_key.setdefault(key, []).append(seq)
            if len(self.prompts) > _PROMPTS_KEPT_PER_SCAN * self.fuzzy_scan_limit:
                self.prompts = None  # fuzzy candidates now come from the kNN
                self.by_length = ([], [], [])
                self.by_typo_key = {}

    def remove(self, seqs: list[int]) -> int:
        gone = [seq for seq in seqs if seq in self.live]
        for seq in gone:
            self.live.discard(seq)
            if self.prompts is not None:
                prompt = self.prompts.pop(seq, None)
                if prompt is not None:
                    lengths, ordered, texts = self.by_length
                    at = ordered.index(seq, bisect.bisect_left(lengths, len(prompt)))
                    del lengths[at], ordered[at], texts[at]
                    filed_under = typo_key(prompt)
                    if filed_under is not None:
                        filed = self.by_typo_key[filed_under]
                        filed.remove(seq)
                        if not filed:
                            del self.by_typo_key[filed_under]
        if not gone:
            return 0
        if self.hnsw:
            self.tombstones.update(gone)
            self._params = None  # the selector changes
        else:
            self.index.remove_ids(np.asarray(gone, dtype=np.int64))  # type: ignore[arg-type]
        return len(gone)

    def snapshot(self) -> tuple[np.ndarray, np.ndarray]:
        """(ids, vectors) of the live entries, copied out of FAISS."""
        ntotal = self.index.ntotal
        if not ntotal:
            return np.zeros(0, dtype=np.int64), np.zeros((0, self.dim), dtype=np.float32)
        ids = faiss.vector_to_array(self.index.id_map).astype(np.int64)  # type: ignore[attr-defined]
        vecs = self._inners[id(self.index)].reconstruct_n(0, ntotal)
        keep = np.fromiter((seq in self.live for seq in ids.tolist()), dtype=bool, count=ntotal)
        return ids[keep], np.ascontiguousarray(vecs[keep], dtype=np.float32)

    def build(self, ids: np.ndarray, vecs: np.ndarray, *, hnsw: bool) -> faiss.Index:
        """A new index over ``ids``/``vecs``; touches no shared state (runs outside the lock)."""
        index = self.new_index(hnsw=hnsw)
        if len(ids):
            index.add_with_ids(vecs, ids)
        return index

    def install(self, ids: np.ndarray, vecs: np.ndarray, *, hnsw: bool, built: faiss.Index | None = None) -> None:
        """Swap in an index built from a snapshot, replaying what changed since the snapshot."""
        new = built if built is not None else self.build(ids, vecs, hnsw=hnsw)
        snap = set(ids.tolist())
        added = [seq for seq in self.live if seq not in snap]
        if added:
            more = np.stack([self.index.reconstruct(int(seq)) for seq in added]).astype(np.float32)
            new.add_with_ids(more, np.asarray(added, dtype=np.int64))
        removed = [seq for seq in snap if seq not in self.live]
        self._inners = {id(new): self._inners[id(new)]}  # drop the old index's inner with it
        self.index, self.hnsw, self.tombstones, self._params = new, hnsw, set(), None
        if removed:
            if hnsw:
                self.tombstones.update(removed)
            else:
                self.index.remove_ids(np.asarray(removed, dtype=np.int64))  # type: ignore[arg-type]

    def _search_params(self) -> Any:
        """HNSW search that skips tombstones inside the graph walk (not by over-fetching)."""
        if not (self.hnsw and self.tombstones):
            return None
        if self._params is None:
            self._params = exclude_ids(np.fromiter(self.tombstones, dtype=np.int64), self.ef_search)
        return self._params.params

    def search(self, queries: np.ndarray, k: int) -> list[list[tuple[int, float]]]:
        """For each row of ``queries``, up to ``k`` live (id, cosine) pairs, best first.

        Several queries per FAISS call, fewer than its BLAS threshold in each: a flat search then
        compares each query with the vectors exactly as a search of that query alone does (the same
        scores, so the same decisions), while the call's fixed cost is paid once.
        """
        if not self.live:
            return [[] for _ in range(len(queries))]
        params = self._search_params()
        want = min(self.index.ntotal, k)
        step = max(1, faiss.cvar.distance_compute_blas_threshold - 1)
        found: list[list[tuple[int, float]]] = []
        for start in range(0, len(queries), step):
            scores, ids = self.index.search(queries[start : start + step], want, params=params)
            found += [[(seq, float(score)) for seq, score in zip(row_ids, row_scores, strict=True)
                       if seq >= 0 and seq in self.live]
                      for row_ids, row_scores in zip(ids.tolist(), scores.tolist(), strict=True)]
        return found


class VectorIndex:
    """All partitions of one model id, behind one lock (FAISS mutation is not thread-safe)."""

    def __init__(self, dim: int, *, hnsw_threshold: int, hnsw_m: int = 32, ef_search: int = 64,
                 ef_construction: int = 80, fuzzy_scan_limit: int = DEFAULT_FUZZY_SCAN_LIMIT) -> None:
        self.dim = dim
        self._params = dict(
            dim=dim, hnsw_threshold=hnsw_threshold, hnsw_m=hnsw_m, ef_search=ef_search,
            ef_construction=ef_construction, fuzzy_scan_limit=fuzzy_scan_limit,
        )
        self._parts: dict[PartitionKey, PartitionIndex] = {}
        self._where: dict[int, PartitionKey] = {}
        self.lock = threading.RLock()
        #: How many times the contents were swapped for a rebuilt index (see :meth:`replace_with`).
        self.generation = 0

    def replace_with(self, other: VectorIndex) -> None:
        """Take over ``other``'s partitions in one step (a full rebuild, built aside, swapped in).

        In place, so that every holder of this index (the lookup path, the sync) sees the new
        contents without being handed a new object.
        """
        with self.lock, other.lock:
            self._parts, self._where = other._parts, other._where
            other._parts, other._where = {}, {}
            self.generation += 1

    def add(self, key: PartitionKey, ids: list[int], vecs: np.ndarray, prompts: list[str]) -> None:
        if not ids:
            return
        one_openmp_thread()
        arr = np.asarray(ids, dtype=np.int64)
        vecs = np.ascontiguousarray(vecs, dtype=np.float32).reshape(len(ids), self.dim)
        with self.lock:
            part = self._parts.get(key)
            if part is None:
                part = self._parts[key] = PartitionIndex(**self._params)
            part.add(arr, vecs, prompts)
            for seq in ids:
                self._where[seq] = key
            rebuild = part.needs_rebuild
        if rebuild:
            self._rebuild(key)

    def remove(self, seqs: list[int]) -> int:
        one_openmp_thread()
        removed = 0
        with self.lock:
            by_part: dict[PartitionKey, list[int]] = {}
            for seq in seqs:
                key = self._where.pop(seq, None)
                if key is not None:
                    by_part.setdefault(key, []).append(seq)
            stale: list[PartitionKey] = []
            for key, part_seqs in by_part.items():
                part = self._parts[key]
                removed += part.remove(part_seqs)
                if not len(part):
                    del self._parts[key]
                elif part.needs_rebuild:
                    stale.append(key)
        for key in stale:
            self._rebuild(key)
        return removed

    def _rebuild(self, key: PartitionKey) -> None:
        """Switch to HNSW or purge tombstones without holding the lock while FAISS builds.

        The snapshot is taken and the result installed under the lock; the build (seconds for a
        large HNSW) runs outside it, so lookups carry on (``SemanticCache`` writes wait on its own
        write lock). Anything added or removed meanwhile is replayed onto the new index.
        """
        one_openmp_thread()
        with self.lock:
            part = self._parts.get(key)
            if part is None or not part.needs_rebuild:
                return
            part.rebuilding = True
            ids, vecs = part.snapshot()
            hnsw = len(ids) > part.hnsw_threshold
        try:
            built = part.build(ids, vecs, hnsw=hnsw)
            with self.lock:
                if self._parts.get(key) is part:
                    part.install(ids, vecs, hnsw=hnsw, built=built)
        finally:
            part.rebuilding = False

    def search(self, key: PartitionKey, query: np.ndarray, k: int) -> list[tuple[int, float]]:
        return self.nearest(key, query, k).hits

    def nearest(self, key: PartitionKey, query: np.ndarray, k: int) -> Nearest:
        """Up to ``k`` (seq, cosine) best first; exhaustive when the partition is flat (exact search)."""
        return self.nearest_many(key, query, k)[0]

    def nearest_many(self, key: PartitionKey, queries: np.ndarray, k: int) -> list[Nearest]:
        """:meth:`nearest` for each row of ``queries``, in few FAISS calls (``PartitionIndex.search``).

        Asked under the lock of the search itself: a rebuild may switch a partition between flat
        and HNSW at any moment in between.
        """
        one_openmp_thread()
        rows = np.ascontiguousarray(queries, dtype=np.float32).reshape(-1, self.dim)
        with self.lock:
            part = self._parts.get(key)
            if part is None:
                return [Nearest([], exhaustive=True) for _ in range(len(rows))]
            return [Nearest(hits, exhaustive=not part.hnsw) for hits in part.search(rows, k)]

    def cosines(self, key: PartitionKey, query: np.ndarray, seqs: Iterable[int]) -> list[tuple[int, float]]:
        """(id, cosine to ``query``) of those ``seqs`` live in the partition, best first.

        Vectors are read back from FAISS (flat and HNSW-flat both keep them), so candidates found
        by other means than the kNN search are scored on the same vectors.
        """
        one_openmp_thread()
        with self.lock:
            part = self._parts.get(key)
            if part is None:
                return []
            live = [seq for seq in seqs if seq in part.live]
            if not live:
                return []
            vecs = np.stack([part.index.reconstruct(int(seq)) for seq in live])
        scores = vecs @ np.asarray(query, dtype=np.float32).ravel()
        return sorted(zip(live, scores.tolist(), strict=True), key=lambda p: -p[1])

    def fuzzy_choices(self, key: PartitionKey, text: str, min_ratio: float) -> FuzzyChoices | None:
        """The partition's normalized prompts that could reach ``min_ratio`` against ``text`` (by
        length: ``_fuzzy.length_window``), or None when they are more than ``fuzzy_scan_limit``
        (or the partition no longer keeps its prompts): the lookup then takes its fuzzy
        candidates from the kNN neighbours. For a ``text`` without a Latin word of ≥ 4 letters,
        only the prompts filed under its ``_fuzzy.typo_key``: no other can be a typo-level match.

        Why the limit counts the window and not the partition: the scan reads the window only,
        and the other way costs more than a scan of thousands (the query's values extracted and
        its neighbours' rows read on every lookup: ``_lookup.py``).
        """
        lo, hi = length_window(len(text), min_ratio)
        filed_under = typo_key(text)
        with self.lock:
            part = self._parts.get(key)
            if part is None:
                return FuzzyChoices([], [])
            if part.prompts is None:
                return None
            if filed_under is not None:  # only prompts of the same tokens can match (``typo_key``)
                filed = list(part.by_typo_key.get(filed_under, ()))
                return FuzzyChoices(filed, [part.prompts[seq] for seq in filed])
            lengths, seqs, texts = part.by_length
            start, end = bisect.bisect_left(lengths, lo), bisect.bisect_right(lengths, hi)
            if end - start > part.fuzzy_scan_limit:
                return None
            return FuzzyChoices(seqs[start:end], texts[start:end])

    def missing(self, seqs: Iterable[int]) -> set[int]:
        """The ids among ``seqs`` not live in any partition (catch-up skips the others)."""
        with self.lock:
            return {seq for seq in seqs if seq not in self._where}

    def is_empty(self, key: PartitionKey) -> bool:
        with self.lock:
            part = self._parts.get(key)
            return not part

    def kind(self, key: PartitionKey) -> str | None:
        with self.lock:
            part = self._parts.get(key)
            return None if part is None else ("hnsw" if part.hnsw else "flat")

    def __len__(self) -> int:
        with self.lock:
            return len(self._where)

    def stats(self) -> dict[str, int]:
        with self.lock:
            hnsw = sum(1 for p in self._parts.values() if p.hnsw)
            return {"vectors": len(self._where), "partitions": len(self._parts), "hnsw_partitions": hnsw}
