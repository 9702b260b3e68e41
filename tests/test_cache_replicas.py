"""Replicas on one PostgreSQL database: correct without talking to each other.

Each replica is its own ``PostgresStorage`` (own pools) and ``SemanticCache`` (own FAISS index and
threshold memo) on one database, as two ``lastline serve`` processes on two machines are. The lag
bound is ``CacheConfig.replica_sync_s``: after it has passed, the next lookup of the other replica
sees a write, a deletion or a threshold change (see ``cache/_sync.py``); with the vector index in
the database (``vector_index="store"``) there is no lag at all.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

import psycopg
import pytest
from _cache_questions import PARAPHRASES, QUESTIONS

from lastline import ConfigError, Embedder, PostgresStorage, SQLiteStorage
from lastline.cache import CacheConfig, SemanticCache, Threshold
from lastline.cache._pg_schema import TENANT_TABLES, hnsw_index_name

pytest_plugins = ["_storages"]  # the reopen fixture
pytestmark = pytest.mark.backends("postgresql")

Storage = SQLiteStorage | PostgresStorage

BOUND = CacheConfig().replica_sync_s
KEEPER = "How do I reset my password?"
KEEPER_PARA = "I forgot my password, how can I reset it?"
PROBES = [
    *PARAPHRASES,
    "借五千元怎么操作", "手机号怎么改绑", "How long is shipping to Canada?", "Are there discounts for students?",
    "Refund order 123 please", "What is the capital of France?", "完全无关的问题", "Something else entirely",
    "I forgot my password, how can I reset it?", "When can I get my money back?",
]


@pytest.fixture
def replicas(reopen: Callable[[], Storage], embedder: Embedder) -> tuple[SemanticCache, SemanticCache]:
    """Two replicas with the default lag bound, both started (index built) before either writes."""
    return SemanticCache(reopen(), embedder), SemanticCache(reopen(), embedder)


def test_a_replica_sees_anothers_writes_deletions_and_thresholds_once_the_bound_has_passed(
        replicas: tuple[SemanticCache, SemanticCache]) -> None:
    a, b = replicas
    assert not b.lookup(KEEPER_PARA, threshold=0.8).hit  # b has polled: its next poll is due in BOUND
    entry = a.put(KEEPER, "Use the reset link")
    assert b.lookup(KEEPER).entry_id == entry  # exact lookups read the database: no lag at all
    time.sleep(BOUND)
    res = b.lookup(KEEPER_PARA, threshold=0.8)
    assert res.hit and res.layer == "semantic" and res.entry_id == entry

    assert a.delete(entry)
    assert not b.lookup(KEEPER_PARA, threshold=0.8).hit  # before the bound: the ghost vector is never served
    time.sleep(BOUND)
    assert b.lookup(KEEPER_PARA, threshold=0.8).reason == "empty" and len(b.index) == 0  # ghost dropped

    assert b.get_threshold().source == "shipped"
    a.set_threshold(threshold=Threshold(0.5))
    time.sleep(BOUND)
    assert b.get_threshold().value == 0.5 and b.get_threshold().source == "manual"
    a.reset_threshold()
    time.sleep(BOUND)
    assert b.get_threshold().source == "shipped"


def test_with_the_index_in_the_database_a_replica_sees_anothers_writes_at_once(
        reopen: Callable[[], Storage], embedder: Embedder) -> None:
    config = CacheConfig(vector_index="store")
    a, b = SemanticCache(reopen(), embedder, config), SemanticCache(reopen(), embedder, config)
    assert not b.lookup(KEEPER_PARA, threshold=0.8).hit
    entry = a.put(KEEPER, "Use the reset link")
    res = b.lookup(KEEPER_PARA, threshold=0.8)
    assert res.hit and res.layer == "semantic" and res.entry_id == entry
    assert b.score(KEEPER_PARA) == (entry, pytest.approx(res.similarity, abs=1e-6))
    assert a.delete(entry)
    assert b.lookup(KEEPER_PARA, threshold=0.8).reason == "empty"
    assert len(a.index) == len(b.index) == 0  # nothing kept in process


def test_replicas_storing_the_same_prompts_at_once_leave_one_entry_each(
        replicas: tuple[SemanticCache, SemanticCache]) -> None:
    rounds = 15
    barrier = threading.Barrier(2)

    def writer(cache: SemanticCache, name: str) -> list[str]:
        ids = []
        for r in range(rounds):
            barrier.wait()  # both replicas put prompt r at the same moment
            ids.append(cache.put(f"How do I {QUESTIONS[r % len(QUESTIONS)]} (case {r})?", f"{name} {r}"))
        return ids

    with ThreadPoolExecutor(2) as pool:
        first, second = pool.map(writer, replicas, ["a", "b"])
    assert first == second  # one public id per prompt, whichever replica stored it
    a, b = replicas
    assert a.count() == b.count() == rounds
    stored = [r.seq for batch in a.store.vectors(a.model_id) for r in batch]
    assert len(stored) == rounds
    time.sleep(BOUND)
    for cache in replicas:
        cache.lookup(KEEPER_PARA, threshold=0.99)  # the poll: replaced seqs go, the winners' come
        assert set(cache.index._where) == set(stored)
    for r in range(rounds):
        got = a.get(first[r])
        assert got["response"] in (f"a {r}", f"b {r}")


@pytest.mark.parametrize("hnsw_threshold", [1_000_000, 4], ids=["exact", "hnsw"])
def test_without_faiss_lookups_answer_from_pgvector_as_they_do_from_faiss(
        storage: PostgresStorage, embedder: Embedder, hnsw_threshold: int) -> None:
    faiss = SemanticCache(storage, embedder, CacheConfig(hnsw_threshold=hnsw_threshold, replica_sync_s=0))
    store = SemanticCache(storage, embedder, CacheConfig(hnsw_threshold=hnsw_threshold, vector_index="store"))
    faiss.put_many([{"prompt": q, "response": f"answer {i}", "context": "c" if i % 3 == 0 else None}
                    for i, q in enumerate(QUESTIONS)])
    assert faiss.delete(faiss.lookup(QUESTIONS[4]).entry_id)  # type: ignore[arg-type]
    rows = storage.query("SELECT indexname FROM pg_indexes WHERE tablename = 'cache_entries'")
    assert (hnsw_index_name(embedder.model_id, embedder.dim),) in rows  # the model's HNSW index
    decided = 0
    for probe in PROBES:
        for context in (None, "c"):
            for mode in ("intercept", "fallback"):
                for threshold in (None, 0.6, 0.8):
                    got, want = (c.lookup(probe, context=context, mode=mode, threshold=threshold)  # type: ignore[arg-type]
                                 for c in (store, faiss))
                    assert (got.hit, got.entry_id, got.layer, got.reason) == \
                        (want.hit, want.entry_id, want.layer, want.reason), (probe, context, mode, threshold)
                    assert got.best_similarity == pytest.approx(want.best_similarity, abs=1e-5)
                    decided += got.hit
        assert store.score(probe)[0] == faiss.score(probe)[0]
    assert decided > 20  # the set has hits of every layer, not only misses


def test_only_a_replica_searching_in_the_database_builds_the_models_hnsw_index(
        storage: PostgresStorage, embedder: Embedder) -> None:
    def indexed() -> bool:
        rows = storage.query("SELECT indexname FROM pg_indexes WHERE tablename = 'cache_entries'")
        return (hnsw_index_name(embedder.model_id, embedder.dim),) in rows

    faiss = SemanticCache(storage, embedder)
    faiss.put_many([{"prompt": q, "response": f"answer {i}"} for i, q in enumerate(QUESTIONS)])
    assert not indexed()  # writes of FAISS replicas never pay for a graph nobody reads
    store = SemanticCache(storage, embedder, CacheConfig(vector_index="store", hnsw_threshold=4))
    assert indexed()  # built over the rows already there when it starts
    faiss.put("Do you ship to Norway?", "Yes.")  # later writes keep it current
    assert store.lookup("Do you ship to Norway?").answer == "Yes."
    hit = store.lookup("Can you ship to Norway?", threshold=0.9)  # through the graph: the partition is above 4
    assert hit.layer == "semantic" and hit.entry_id == faiss.lookup("Do you ship to Norway?").entry_id


def test_building_the_hnsw_index_after_a_bulk_load_leaves_the_planner_knowing_the_rows(
        storage: PostgresStorage, embedder: Embedder) -> None:
    """Statistics of an empty table make the planner sort the partition instead of walking the graph."""
    loader = SemanticCache(storage, embedder)
    loader.put_many([{"prompt": q, "response": f"answer {i}"} for i, q in enumerate(QUESTIONS)])
    def known_and_stored() -> tuple[float, int]:
        with storage.maintenance() as conn:  # the owner: every tenant's rows
            return (conn.execute("SELECT reltuples FROM pg_class WHERE relname = 'cache_entries'").fetchone()[0],
                    conn.execute("SELECT count(*) FROM cache_entries").fetchone()[0])

    known, stored = known_and_stored()
    assert stored == len(QUESTIONS) and known < stored  # never analyzed (-1): autovacuum's job, up to a minute on
    SemanticCache(storage, embedder, CacheConfig(vector_index="store"))
    assert known_and_stored() == (stored, stored)


def test_a_hits_bookkeeping_leaves_the_entrys_vector_row_and_its_hnsw_graph_untouched(
        storage: PostgresStorage, embedder: Embedder) -> None:
    cache = SemanticCache(storage, embedder, CacheConfig(vector_index="store"))
    entry = cache.put(KEEPER, "Settings, then Security.")

    def row_version() -> list[tuple[str, str]]:  # a new tuple version means every index got a new entry
        return [tuple(r) for r in storage.query(
            "SELECT ctid::text, xmin::text FROM cache_entries WHERE id = %s", (entry,), tenant="default")]

    before = row_version()
    for _ in range(3):
        assert cache.lookup(KEEPER).layer == "exact"
    assert row_version() == before
    assert cache.get(entry)["hit_count"] == 3 and cache.get(entry)["last_hit_at"] is not None
    again = cache.put(KEEPER, "Settings, then Security, then Reset.")  # a new answer under the key: no old hits
    assert again == entry and cache.get(entry)["hit_count"] == 0 and cache.get(entry)["last_hit_at"] is None


def test_the_vector_index_in_the_database_needs_postgresql(tmp_path: object, embedder: Embedder) -> None:
    from pathlib import Path

    from lastline import SQLiteStorage

    storage = SQLiteStorage(Path(str(tmp_path)) / "x.db")
    try:
        with pytest.raises(ConfigError, match="vector_index='store' needs PostgreSQL"):
            SemanticCache(storage, embedder, CacheConfig(vector_index="store"))
    finally:
        storage.close()
    with pytest.raises(ValueError, match="vector_index"):
        CacheConfig(vector_index="annoy")  # type: ignore[arg-type]


def test_raw_sql_as_the_application_role_with_tenant_a_reads_no_cache_row_of_tenant_b(
        storage: PostgresStorage, embedder: Embedder) -> None:
    assert storage.rls_enforced
    cache = SemanticCache(storage, embedder)
    for tenant in ("acme", "globex"):
        entry = cache.put(KEEPER, f"{tenant} secret", tenant=tenant, tags=["t"])
        res = cache.lookup(KEEPER_PARA, tenant=tenant, threshold=0.5)
        cache.feedback(tenant=tenant, correct=True, lookup_id=res.lookup_id)
        cache.set_threshold(tenant=tenant, threshold=Threshold(0.9))
        cache.delete(entry, tenant=tenant)  # a deletion-log row
        cache.put(KEEPER, f"{tenant} secret", tenant=tenant, tags=["t"])
    with psycopg.connect(storage.url, autocommit=False) as conn:  # the application role, no lastline code
        conn.execute("SELECT set_config('lastline.tenant', 'acme', true)")
        for table in TENANT_TABLES:
            tenants = {r[0] for r in conn.execute(f"SELECT tenant FROM {table}")}
            assert tenants == {"acme"}, table  # every table holds rows of both; acme sees its own only
        assert conn.execute("SELECT count(*) FROM cache_entries WHERE response LIKE 'globex%'").fetchone() == (0,)
        assert conn.execute("UPDATE cache_entries SET response = 'x' WHERE tenant = 'globex'").rowcount == 0
        assert conn.execute("DELETE FROM cache_thresholds WHERE tenant = 'globex'").rowcount == 0
        with pytest.raises(psycopg.errors.InsufficientPrivilege):  # the policy's WITH CHECK
            conn.execute("INSERT INTO cache_counters (tenant, bucket, outcome, n) VALUES ('globex', 0, 'exact', 1)")
    with psycopg.connect(storage.url, autocommit=True) as conn:  # no tenant set: no tenant rows at all
        for table in TENANT_TABLES:
            assert conn.execute(f"SELECT count(*) FROM {table}").fetchone() == (0,), table
    assert cache.lookup(KEEPER, tenant="globex").answer == "globex secret"


@pytest.mark.backends("sqlite", "postgresql")
def test_expired_entries_are_pruned_in_bounded_batches_by_several_replicas_at_once(
        backend: str, reopen: Callable[[], Storage], embedder: Embedder) -> None:
    config = CacheConfig(default_ttl_s=None, replica_sync_s=0)
    a, b = SemanticCache(reopen(), embedder, config), SemanticCache(reopen(), embedder, config)
    expiring = a.put_many([{"prompt": f"question {i} about {q}", "response": str(i), "ttl_s": 60}
                           for i, q in enumerate(QUESTIONS * 2)])
    keep = a.put_many([{"prompt": f"kept {q}", "response": "kept"} for q in QUESTIONS[:3]])
    b.sync()
    assert len(b.index) == len(expiring) + len(keep)
    cut = time.time() + 3600  # an hour from now: every 60 s entry has expired by then
    with ThreadPoolExecutor(2) as pool:  # both replicas prune at once, 5 rows per transaction
        pruned = list(pool.map(lambda c: c.store.prune_expired(cut, batch=5), (a, b)))
    both = [seq for seqs in pruned for seq in seqs]
    assert len(both) == len(set(both)) == len(expiring)  # every expired row deleted once, by one of them
    assert a.count() == len(keep) and {e for e in keep if a.get(e)} == set(keep)
    assert a.store.prune_expired(cut, batch=5) == []
    for cache in (a, b):
        cache.sync()  # the deletion log tells every index
        assert set(cache.index._where) == {r.seq for batch in cache.store.vectors(cache.model_id) for r in batch}
        assert len(cache.index) == len(keep)
    for i, q in enumerate(QUESTIONS):
        assert b.lookup(f"question {i} about {q}", threshold=0.5).entry_id not in expiring


def test_the_setting_puts_the_vector_index_in_the_database(pg_urls: tuple[str, str], embedder: Embedder) -> None:
    from lastline import load_settings
    from lastline.api.ladder.runtime import Runtime

    app, owner = pg_urls
    with pytest.raises(ConfigError, match="LASTLINE_CACHE_VECTOR_INDEX"):
        load_settings(cache_vector_index="annoy")
    runtime = Runtime.open(load_settings(database_url=app, database_owner_url=owner, cache_vector_index="store"))
    try:
        runtime.embedder = embedder  # the session's loaded model
        entry = runtime.cache.put(KEEPER, "Use the reset link")
        res = runtime.cache.lookup(KEEPER_PARA, threshold=0.8)
        assert runtime.cache.config.vector_index == "store" and len(runtime.cache.index) == 0
        assert res.hit and res.layer == "semantic" and res.entry_id == entry
    finally:
        runtime.storage.close()
