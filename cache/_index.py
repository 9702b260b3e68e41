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
re-embedded at start-up, never mixed.

FAISS runs on one OpenMP thread: a lookup searches one query vector, and on a busy 2-core host
OpenMP's spinning workers turned a 0.15 ms flat search over 2k vectors into 35 ms on average.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field

import faiss
import numpy as np

__all__ = ["PartitionIndex", "VectorIndex"]

PartitionKey = tuple[str, str]

faiss.omp_set_num_threads(1)


@dataclass
class PartitionIndex:
    """The vectors of one (tenant, context) partition, plus their normalized prompts while small.

    Vectors live only inside FAISS (flat and HNSW-flat both store them and can reconstruct
    them), so a switch to HNSW or a tombstone purge rebuilds from the index itself.
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
    tombstones: set[int] = field(init=False, default_factory=set)

    def __post_init__(self) -> None:
        self.index = self._new(hnsw=False)

    def _new(self, *, hnsw: bool) -> faiss.Index:
        inner: faiss.Index
        if hnsw:
            graph = faiss.IndexHNSWFlat(self.dim, self.hnsw_m, faiss.METRIC_INNER_PRODUCT)
            graph.hnsw.efConstruction = self.ef_construction
            graph.hnsw.efSearch = self.ef_search
            inner = graph
        else:
            inner = faiss.IndexFlatIP(self.dim)
        self.hnsw = hnsw
        index = faiss.IndexIDMap2(inner)
        self._inner = inner  # keep the Python wrapper alive as long as the map
        return index

    def __len__(self) -> int:
        return len(self.live)

    def add(self, ids: np.ndarray, vecs: np.ndarray, prompts: list[str]) -> None:
        seqs = ids.tolist()
        stale = [seq for seq in seqs if seq in self.live]
        if stale:
            self.remove(stale)
        if self.tombstones.intersection(seqs):
            self.rebuild(hnsw=self.hnsw)
        self.index.add_with_ids(vecs, ids)
        self.live.update(seqs)
        if self.prompts is not None:
            self.prompts.update(zip(seqs, prompts, strict=True))
            if len(self.prompts) > self.fuzzy_scan_limit:
                self.prompts = None  # too big to scan: fuzzy candidates now come from the kNN
        if not self.hnsw and len(self.live) > self.hnsw_threshold:
            self.rebuild(hnsw=True)

    def remove(self, seqs: list[int]) -> int:
        gone = [seq for seq in seqs if seq in self.live]
        for seq in gone:
            self.live.discard(seq)
            if self.prompts is not None:
                self.prompts.pop(seq, None)
        if not gone:
            return 0
        if self.hnsw:
            self.tombstones.update(gone)
            if len(self.tombstones) > max(64, len(self.live) // 4):
                self.rebuild(hnsw=len(self.live) > self.hnsw_threshold)
        else:
            self.index.remove_ids(np.asarray(gone, dtype=np.int64))  # type: ignore[arg-type]
        return len(gone)

    def rebuild(self, *, hnsw: bool) -> None:
        """Re-create the FAISS index from its own live vectors (drops tombstones)."""
        ntotal = self.index.ntotal
        if ntotal:
            ids = faiss.vector_to_array(self.index.id_map).astype(np.int64)  # type: ignore[attr-defined]
            vecs = self._inner.reconstruct_n(0, ntotal)
            keep = np.fromiter((seq in self.live for seq in ids.tolist()), dtype=bool, count=ntotal)
            ids, vecs = ids[keep], np.ascontiguousarray(vecs[keep], dtype=np.float32)
        self.index = self._new(hnsw=hnsw)
        self.tombstones.clear()
        if ntotal and len(ids):
            self.index.add_with_ids(vecs, ids)

    def search(self, query: np.ndarray, k: int) -> list[tuple[int, float]]:
        """Up to ``k`` live (id, cosine) pairs, best first."""
        if not self.live:
            return []
        want = min(self.index.ntotal, k + len(self.tombstones))
        scores, ids = self.index.search(query.reshape(1, -1), want)
        out: list[tuple[int, float]] = []
        for seq, score in zip(ids[0].tolist(), scores[0].tolist(), strict=True):
            if seq < 0 or seq not in self.live:
                continue
            out.append((seq, float(score)))
            if len(out) == k:
                break
        return out


class VectorIndex:
    """All partitions of one model id, behind one lock (FAISS mutation is not thread-safe)."""

    def __init__(self, dim: int, *, hnsw_threshold: int, hnsw_m: int = 32, ef_search: int = 64,
                 ef_construction: int = 80, fuzzy_scan_limit: int = 2000) -> None:
        self.dim = dim
        self._params = dict(
            dim=dim, hnsw_threshold=hnsw_threshold, hnsw_m=hnsw_m, ef_search=ef_search,
            ef_construction=ef_construction, fuzzy_scan_limit=fuzzy_scan_limit,
        )
        self._parts: dict[PartitionKey, PartitionIndex] = {}
        self._where: dict[int, PartitionKey] = {}
        self.lock = threading.RLock()

    def add(self, key: PartitionKey, ids: list[int], vecs: np.ndarray, prompts: list[str]) -> None:
        if not ids:
            return
        arr = np.asarray(ids, dtype=np.int64)
        vecs = np.ascontiguousarray(vecs, dtype=np.float32).reshape(len(ids), self.dim)
        with self.lock:
            part = self._parts.get(key)
            if part is None:
                part = self._parts[key] = PartitionIndex(**self._params)
            part.add(arr, vecs, prompts)
            for seq in ids:
                self._where[seq] = key

    def remove(self, seqs: list[int]) -> int:
        removed = 0
        with self.lock:
            by_part: dict[PartitionKey, list[int]] = {}
            for seq in seqs:
                key = self._where.pop(seq, None)
                if key is not None:
                    by_part.setdefault(key, []).append(seq)
            for key, part_seqs in by_part.items():
                part = self._parts[key]
                removed += part.remove(part_seqs)
                if not len(part):
                    del self._parts[key]
        return removed

    def search(self, key: PartitionKey, query: np.ndarray, k: int) -> list[tuple[int, float]]:
        with self.lock:
            part = self._parts.get(key)
            return part.search(np.asarray(query, dtype=np.float32), k) if part else []

    def fuzzy_choices(self, key: PartitionKey) -> dict[int, str] | None:
        """The partition's normalized prompts when small enough to scan (a copy), else None."""
        with self.lock:
            part = self._parts.get(key)
            if part is None:
                return {}
            return None if part.prompts is None else dict(part.prompts)

    def partition_size(self, key: PartitionKey) -> int:
        with self.lock:
            part = self._parts.get(key)
            return len(part) if part else 0

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
