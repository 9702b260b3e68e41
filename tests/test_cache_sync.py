"""Two caches on one database (as two processes or replicas have): each sees the other's writes without a restart.

Each instance has its own storage (own connections) and its own FAISS index, which is exactly the
multi-process situation on one SQLite file and the multi-replica one on PostgreSQL; the CLI test
runs a real second process. On PostgreSQL the pair polls on every lookup (``replica_sync_s=0``) so
these tests see the catch-up itself; the lag bound is tested in ``test_cache_replicas.py``.
"""

from __future__ import annotations

import subprocess
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from lastline import Embedder, PostgresStorage, SQLiteStorage, open_storage
from lastline.cache import CacheConfig, SemanticCache, SyncReport

pytest_plugins = ["_storages"]  # the reopen fixture
pytestmark = pytest.mark.backends("sqlite", "postgresql")

Storage = SQLiteStorage | PostgresStorage

VICTIM = "What is the refund window?"
VICTIM_PARA = "What is the time window for refunds?"
KEEPER = "How do I reset my password?"
KEEPER_PARA = "I forgot my password, how can I reset it?"
TOPICS = ["bake sourdough bread", "learn Python", "fix a flat tyre", "train a puppy", "grow tomatoes",
          "write a cover letter", "save for retirement", "tie a bowline knot", "clean a cast iron pan",
          "start running", "meditate", "paint a wall", "install Linux", "brew coffee", "knit a scarf",
          "change a car battery", "plant a hedge", "learn the guitar", "make kimchi", "repair a bike chain"]
#: Poll on every lookup on PostgreSQL too (SQLite ignores it): these tests watch the catch-up itself.
CONFIG = CacheConfig(replica_sync_s=0)


@dataclass
class Instance:
    storage: Storage
    cache: SemanticCache


@pytest.fixture
def pair(reopen: Callable[[], Storage], embedder: Embedder) -> tuple[Instance, Instance]:
    """Two instances over one database, both built (index loaded) before either writes."""
    made = [reopen(), reopen()]
    a, b = (Instance(s, SemanticCache(s, embedder, CONFIG)) for s in made)
    return a, b


def _seq(cache: SemanticCache, entry_id: str) -> int:
    row = cache.store.by_id("default", entry_id)
    assert row is not None
    return row.seq


def _vector_seqs(cache: SemanticCache) -> set[int]:
    """Seqs of every stored vector of the cache's model (the database's truth, every tenant)."""
    return {r.seq for batch in cache.store.vectors(cache.model_id) for r in batch}


def _index_seqs(cache: SemanticCache) -> set[int]:
    return set(cache.index._where)


def test_an_insert_in_one_instance_is_found_by_meaning_in_the_other(pair: tuple[Instance, Instance]) -> None:
    a, b = pair
    assert not b.cache.lookup(KEEPER_PARA, threshold=0.8).hit  # b's index is built and empty
    entry = a.cache.put(KEEPER, "Use the reset link")
    res = b.cache.lookup(KEEPER_PARA, threshold=0.8)
    assert res.hit and res.layer == "semantic" and res.entry_id == entry and res.answer == "Use the reset link"
    assert len(b.cache.index) == 1


def _delete(a: SemanticCache, victim: str) -> None:
    assert a.delete(victim)


def _by_tag(a: SemanticCache, victim: str) -> None:
    assert a.invalidate(tags=["refunds"]) == 1


def _by_context(a: SemanticCache, victim: str) -> None:
    assert a.invalidate(context=None) == 1


def _by_age(a: SemanticCache, victim: str) -> None:
    assert a.invalidate(older_than_s=0) == 2  # everything is older than now: the keeper goes too


def _evict(a: SemanticCache, victim: str) -> None:
    capped = SemanticCache(a.storage, a.embedder, CacheConfig(max_entries=2, replica_sync_s=0))
    assert capped.lookup(KEEPER, context="support").layer == "exact"  # the keeper is now used more recently
    capped.put("Where is my parcel?", "Track it online", context="support")  # over the cap: LRU goes


@pytest.mark.parametrize("remove", [_delete, _by_tag, _by_context, _by_age, _evict],
                         ids=["delete", "invalidate-tags", "invalidate-context", "invalidate-age", "evict"])
def test_a_removal_in_one_instance_stops_the_other_serving_it_and_drops_the_ghost(
        pair: tuple[Instance, Instance], remove: Callable[[SemanticCache, str], None]) -> None:
    a, b = pair
    victim = a.cache.put(VICTIM, "30 days", tags=["refunds"])
    keeper = a.cache.put(KEEPER, "Use the reset link", context="support")
    victim_seq = _seq(a.cache, victim)
    assert b.cache.lookup(VICTIM_PARA, threshold=0.7).entry_id == victim
    assert len(b.cache.index) == 2

    remove(a.cache, victim)
    res = b.cache.lookup(VICTIM_PARA, threshold=0.7)
    assert not res.hit and res.reason == "empty"  # the partition's only vector is gone from b's index
    assert victim_seq not in _index_seqs(b.cache)
    assert _index_seqs(b.cache) == _vector_seqs(b.cache)
    if remove is not _by_age:
        assert b.cache.lookup(KEEPER_PARA, context="support", threshold=0.8).entry_id == keeper


def test_replacing_a_key_in_one_instance_serves_the_new_answer_in_the_other_without_a_ghost(
        pair: tuple[Instance, Instance]) -> None:
    a, b = pair
    entry = a.cache.put(VICTIM, "30 days")
    assert b.cache.lookup(VICTIM_PARA, threshold=0.7).answer == "30 days"
    assert a.cache.put(VICTIM + "  ", "45 days") == entry  # same normalized prompt: replaced, same id
    res = b.cache.lookup(VICTIM_PARA, threshold=0.7)
    assert res.entry_id == entry and res.answer == "45 days"
    assert len(b.cache.index) == 1 and _index_seqs(b.cache) == _vector_seqs(b.cache)


def test_interleaved_writers_are_all_visible_to_both(pair: tuple[Instance, Instance]) -> None:
    a, b = pair
    # b's write takes a lower seq than a's, and a writes again before it looks anything up
    b.cache.put(f"How do I {TOPICS[0]}?", "b0")
    a.cache.put(f"How do I {TOPICS[1]}?", "a1")
    assert a.cache.lookup(f"What is the best way to {TOPICS[0]}?", threshold=0.7).answer == "b0"

    def writer(inst: Instance, topics: list[str], tag: str) -> None:
        for i, topic in enumerate(topics):
            inst.cache.put(f"How do I {topic}?", f"{tag}{i}")
            inst.cache.lookup(f"Tell me how to {topic}", threshold=0.99)  # syncs while the other writes

    threads = [threading.Thread(target=writer, args=(a, TOPICS[2:11], "a")),
               threading.Thread(target=writer, args=(b, TOPICS[11:], "b"))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    expected = _vector_seqs(a.cache)
    assert len(expected) == len(TOPICS)
    for inst in (a, b):
        inst.cache.sync()
        assert _index_seqs(inst.cache) == expected
        for topic in (TOPICS[3], TOPICS[15]):
            res = inst.cache.lookup(f"What is the best way to {topic}?", threshold=0.7)
            assert res.hit and res.layer == "semantic", topic


def test_a_lagging_instance_rebuilds_after_the_deletion_log_was_pruned_with_identical_answers(
        pair: tuple[Instance, Instance], embedder: Embedder, reopen: Callable[[], Storage]) -> None:
    a, b = pair
    ids = a.cache.put_many([{"prompt": f"How do I {t}?", "response": t} for t in TOPICS[:8]])
    a.cache.put_many([{"prompt": f"How do I {t}?", "response": t, "context": "gone"} for t in TOPICS[:3]])
    b.cache.sync()
    generation = b.cache.index.generation
    a.cache.delete(ids[0])
    a.cache.invalidate(context="gone")
    a.cache.put_many([{"prompt": f"How do I {t}?", "response": t} for t in TOPICS[8:12]])
    assert a.cache._sync.prune_log(time.time() + 60) >= 1  # b never read these log rows
    report = b.cache.sync()
    assert report.rebuilt and b.cache.index.generation == generation + 1
    fresh = SemanticCache(reopen(), embedder, CONFIG)
    assert _index_seqs(b.cache) == _index_seqs(fresh) == _vector_seqs(fresh)
    for topic in TOPICS:
        got, want = (c.lookup(f"What is the best way to {topic}?", threshold=0.6) for c in (b.cache, fresh))
        assert (got.entry_id, got.layer) == (want.entry_id, want.layer)
        assert got.best_similarity == pytest.approx(want.best_similarity, abs=1e-6)
    assert not b.cache.sync().rebuilt  # caught up: the pruned rows are behind it now


def test_an_instance_that_read_the_log_does_not_rebuild_when_it_is_pruned(pair: tuple[Instance, Instance]) -> None:
    a, b = pair
    entry = a.cache.put(VICTIM, "30 days")
    b.cache.sync()
    a.cache.delete(entry)
    assert b.cache.sync() == SyncReport(removed=1)
    a.cache._sync.prune_log(time.time() + 60)
    generation = b.cache.index.generation
    report = b.cache.sync()
    assert not report.rebuilt and b.cache.index.generation == generation


def test_two_caches_sharing_one_storage_and_thread_see_each_others_writes(
        storage: Storage, embedder: Embedder) -> None:
    first, second = SemanticCache(storage, embedder, CONFIG), SemanticCache(storage, embedder, CONFIG)
    assert not second.lookup(KEEPER_PARA, threshold=0.8).hit
    entry = first.put(KEEPER, "Use the reset link")  # same connection: data_version cannot tell
    assert second.lookup(KEEPER_PARA, threshold=0.8).entry_id == entry
    assert first.delete(entry)
    assert not second.lookup(KEEPER_PARA, threshold=0.8).hit and len(second.index) == 0


def test_sync_does_nothing_when_nothing_changed(pair: tuple[Instance, Instance]) -> None:
    a, b = pair
    a.cache.put(KEEPER, "Use the reset link")
    assert b.cache.sync() == SyncReport(added=1)
    for _ in range(3):
        b.cache.lookup(KEEPER_PARA, threshold=0.8)  # own bookkeeping writes are not entry changes
        assert b.cache.sync() == SyncReport()


@pytest.mark.backends("sqlite")  # the CLI is given a SQLite file (--db); replicas on PostgreSQL: above
def test_entries_put_by_the_cli_in_another_process_reach_a_running_cache(
        backend: str, db_path: Path, embedder: Embedder, tmp_path: Path) -> None:
    storage = open_storage(db_path)
    cache = SemanticCache(storage, embedder)
    assert not cache.lookup(KEEPER_PARA, threshold=0.8).hit

    def cli_put(response: str) -> str:
        out = subprocess.run(
            [sys.executable, "-m", "lastline.api", "cache", "put", KEEPER, response, "--db", str(db_path), "--json"],
            capture_output=True, text=True, timeout=120, cwd=tmp_path)
        assert out.returncode == 0, out.stderr
        return str(out.stdout)

    assert '"id"' in cli_put("Use the reset link")
    res = cache.lookup(KEEPER_PARA, threshold=0.8)
    assert res.hit and res.layer == "semantic" and res.answer == "Use the reset link"
    cli_put("Click 'forgot password'")  # the other process replaces the key: old vector deleted there
    res = cache.lookup(KEEPER_PARA, threshold=0.8)
    assert res.answer == "Click 'forgot password'" and len(cache.index) == 1
    storage.close()


def test_pruning_the_log_drops_only_rows_older_than_the_cut(pair: tuple[Instance, Instance]) -> None:
    a, _ = pair
    ids = a.cache.put_many([{"prompt": f"How do I {t}?", "response": t} for t in TOPICS[:3]])
    seqs = {entry_id: _seq(a.cache, entry_id) for entry_id in ids}
    a.cache.delete(ids[0])
    time.sleep(0.05)
    cut = time.time()
    time.sleep(0.05)
    a.cache.delete(ids[1])
    a.cache.delete(ids[2])
    assert a.cache._sync.prune_log(cut - 60) == 0
    assert a.cache._sync.prune_log(cut) == 1
    state = a.cache._sync.state()
    assert sorted(a.cache.store.deleted_seqs(0, state.log_head)) == [seqs[ids[1]], seqs[ids[2]]]
    assert state.pruned_through == 1 and state.log_head == 3


@pytest.mark.backends("sqlite")  # two servers on one file; on PostgreSQL the API's two-replica tests
def test_two_servers_on_one_file_serve_each_others_entries_and_drop_each_others_deletions(
        backend: str, tmp_path: Path) -> None:
    from concurrent.futures import ThreadPoolExecutor

    import httpx
    from conftest import start_server, stop_server

    env = {"LASTLINE_DB": str(tmp_path / "shared.db")}
    homes = [tmp_path / "one", tmp_path / "two"]
    for home in homes:
        home.mkdir()
    with ThreadPoolExecutor(2) as pool:  # both load the model at once
        futures = [pool.submit(start_server, home, env) for home in homes]
    started = [f.result() for f in futures if f.exception() is None]
    if len(started) < 2:
        for server in started:
            stop_server(server)
        raise next(f.exception() for f in futures if f.exception() is not None)  # type: ignore[misc]
    first, second = started
    try:
        def lookup(server: object) -> dict[str, object]:
            reply = httpx.post(server.url("/v1/cache/lookup"),  # type: ignore[attr-defined]
                               json={"prompt": KEEPER_PARA, "threshold": 0.8}, timeout=30)
            return dict(reply.json())

        assert lookup(second)["hit"] is False  # the second server's index is built (and empty)
        created = httpx.post(first.url("/v1/cache/entries"), json={"prompt": KEEPER, "response": "Use the link"},
                             timeout=30)
        assert created.status_code == 201
        found = lookup(second)
        assert found["hit"] is True and found["layer"] == "semantic" and found["entry_id"] == created.json()["id"]
        assert httpx.delete(first.url(f"/v1/cache/entries/{created.json()['id']}"), timeout=30).json() == {"deleted": 1}
        gone = lookup(second)
        assert gone["hit"] is False and gone["reason"] == "empty"  # no ghost left in the second server's index
    finally:
        stop_server(first)
        stop_server(second)


def test_a_lookup_does_not_wait_for_a_running_rebuild_and_catches_up_after_it(
        pair: tuple[Instance, Instance]) -> None:
    a, b = pair
    entry = a.cache.put(KEEPER, "Use the reset link")
    with b.cache._write_lock:  # as while a rebuild runs in another thread of b
        b.cache._syncing = True
        started = time.perf_counter()
        res = b.cache.lookup(KEEPER_PARA, threshold=0.8)
        waited = time.perf_counter() - started
        b.cache._syncing = False
    assert not res.hit and res.reason == "empty"  # answered from the index it had, not a half-built one
    assert waited < 5.0  # did not block on the lock (the bound only guards against a hang)
    assert b.cache.lookup(KEEPER_PARA, threshold=0.8).entry_id == entry


def test_a_catch_up_passes_over_its_own_bulk_put_and_adds_only_the_other_writers_rows(
        pair: tuple[Instance, Instance]) -> None:
    a, b = pair
    b.cache._sync.max_rows = 8  # fewer than b's own rows: reading them would take several calls
    b.cache.put_many([{"prompt": f"How do I {t}?", "response": t} for t in TOPICS[:10]])
    a.cache.put_many([{"prompt": f"How can I {t}?", "response": t} for t in TOPICS[:5]])
    b.cache.put_many([{"prompt": f"Where can I {t}?", "response": t} for t in TOPICS[10:]])
    report = b.cache.sync()
    assert (report.added, report.pending) == (5, False)  # a's five, in one call, past b's own twenty
    assert _index_seqs(b.cache) == _vector_seqs(b.cache)
    assert b.cache.sync() == SyncReport()


def test_a_bulk_import_elsewhere_is_caught_up_over_several_lookups(pair: tuple[Instance, Instance]) -> None:
    a, b = pair
    b.cache._sync.max_rows = 8
    a.cache.put_many([{"prompt": f"How do I {t}?", "response": t} for t in TOPICS])  # 20 rows at once
    reports = [b.cache.sync() for _ in range(3)]
    assert [(r.added, r.pending) for r in reports] == [(8, True), (8, True), (4, False)]
    assert _index_seqs(b.cache) == _vector_seqs(b.cache)
    assert b.cache.sync() == SyncReport()
    a.cache.put_many([{"prompt": f"How can I {t}?", "response": t} for t in TOPICS[:10]])
    for _ in range(2):  # lookups drive it too
        b.cache.lookup(KEEPER_PARA, threshold=0.99)
    assert _index_seqs(b.cache) == _vector_seqs(b.cache)
