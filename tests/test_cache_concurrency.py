"""Many threads putting and looking up at once: no errors, no lost writes, index and database agree."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor

import pytest

from lastline import Embedder, PostgresStorage, SQLiteStorage
from lastline.cache import CacheConfig, SemanticCache

pytestmark = pytest.mark.backends("sqlite", "postgresql")


def test_concurrent_puts_lookups_and_deletes_from_many_threads(
        storage: SQLiteStorage | PostgresStorage, embedder: Embedder) -> None:
    cache = SemanticCache(storage, embedder, CacheConfig(hnsw_threshold=60))
    n_threads, per_thread = 8, 25
    barrier = threading.Barrier(n_threads)

    def worker(t: int) -> list[str]:
        barrier.wait()
        ids = []
        for i in range(per_thread):
            tenant = f"tenant{t % 2}"
            ids.append(cache.put(f"thread {t} question {i} about topic {i * 7 + t}", f"answer {t}-{i}", tenant=tenant))
            res = cache.lookup(f"thread {t} question {i} about topic {i * 7 + t}", tenant=tenant)
            assert res.hit and res.answer == f"answer {t}-{i}"
            cache.lookup(f"something else {i}", tenant=tenant, mode="fallback")
            if i % 5 == 0:
                assert cache.delete(ids[-1], tenant=tenant)
        return ids

    with ThreadPoolExecutor(n_threads) as pool:
        results = list(pool.map(worker, range(n_threads)))
    expected = n_threads * per_thread - n_threads * (per_thread // 5)
    assert cache.count(tenant="tenant0") + cache.count(tenant="tenant1") == expected
    assert len(cache.index) == expected
    assert cache.index.stats()["hnsw_partitions"] == 2
    assert sum(len(r) for r in results) == n_threads * per_thread
    stats = cache.stats(tenant="tenant0")
    assert stats["hits"]["exact"] == n_threads // 2 * per_thread
    reopened = SemanticCache(storage, embedder, CacheConfig(hnsw_threshold=60))
    assert len(reopened.index) == expected
