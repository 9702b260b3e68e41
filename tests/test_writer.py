"""The background batching writer: bounded, batched, flushed on close, errors counted and kept."""

from __future__ import annotations

import threading
import time
from collections.abc import Sequence
from typing import Any

import pytest

from lastline import Embedder, SQLiteStorage
from lastline.cache import SemanticCache
from lastline.writer import BatchWriter


class ListSink:
    """A sink that keeps every batch it was handed (and can be told to fail)."""

    def __init__(self, fail_times: int = 0) -> None:
        self.batches: list[list[Any]] = []
        self.fail_times = fail_times
        self.lock = threading.Lock()

    def __call__(self, items: Sequence[Any]) -> None:
        with self.lock:
            if self.fail_times:
                self.fail_times -= 1
                raise OSError("disk I/O error")
            self.batches.append(list(items))

    @property
    def items(self) -> list[Any]:
        return [x for b in self.batches for x in b]


def test_items_reach_the_sink_in_few_batches_in_order() -> None:
    sink = ListSink()
    writer = BatchWriter(interval_s=0.05, max_items=100)
    for i in range(1000):
        writer.submit(sink, i)
    assert writer.flush()
    writer.close()
    assert sink.items == list(range(1000))
    assert len(sink.batches) <= 20
    assert all(len(b) <= 100 for b in sink.batches)
    stats = writer.stats()
    assert (stats.submitted, stats.written, stats.dropped, stats.errors) == (1000, 1000, 0, 0)


def test_submit_does_not_wait_for_the_sink() -> None:
    release = threading.Event()

    def slow(items: Sequence[Any]) -> None:
        release.wait(5)

    writer = BatchWriter(interval_s=0.01, max_items=10, max_queue=100)
    writer.submit(slow, 0)
    time.sleep(0.05)  # the thread is now inside the slow sink
    started = time.perf_counter()
    for i in range(50):
        writer.submit(slow, i)
    assert time.perf_counter() - started < 0.5
    release.set()
    writer.close()


def test_a_full_queue_drops_the_oldest_and_counts_it() -> None:
    release = threading.Event()
    sink = ListSink()

    def blocked(items: Sequence[Any]) -> None:
        release.wait(5)
        sink(items)

    writer = BatchWriter(interval_s=0.01, max_items=10, max_queue=20)
    writer.submit(blocked, "first")
    time.sleep(0.05)
    for i in range(50):
        writer.submit(blocked, i)
    assert writer.stats().queued <= 20
    release.set()
    writer.close()
    stats = writer.stats()
    assert stats.dropped == 30
    assert sink.items == ["first", *range(30, 50)]
    assert stats.written + stats.dropped == stats.submitted


def test_a_failing_sink_is_retried_and_its_errors_are_counted() -> None:
    sink = ListSink(fail_times=2)
    writer = BatchWriter(interval_s=0.01, max_items=10, max_attempts=3)
    for i in range(5):
        writer.submit(sink, i)
    assert writer.flush()
    writer.close()
    stats = writer.stats()
    assert sink.items == list(range(5))
    assert stats.errors == 2
    assert stats.failed == 0
    assert stats.last_error == "OSError: disk I/O error"


def test_a_sink_that_keeps_failing_has_its_batch_counted_as_failed() -> None:
    sink = ListSink(fail_times=100)
    writer = BatchWriter(interval_s=0.01, max_items=10, max_attempts=3)
    for i in range(4):
        writer.submit(sink, i)
    assert writer.flush()
    writer.close()
    stats = writer.stats()
    assert stats.failed == 4
    assert stats.errors >= 3
    assert stats.written == 0


def test_close_writes_what_is_queued() -> None:
    sink = ListSink()
    writer = BatchWriter(interval_s=60.0, max_items=10_000, max_queue=10_000)
    for i in range(500):
        writer.submit(sink, i)
    writer.close()
    assert sink.items == list(range(500))


def test_after_close_a_late_item_is_written_at_once() -> None:
    sink = ListSink()
    writer = BatchWriter(interval_s=60.0)
    writer.close()
    writer.submit(sink, "late")
    assert sink.items == ["late"]
    assert writer.stats().written == 1


def test_items_for_different_sinks_are_batched_per_sink() -> None:
    a, b = ListSink(), ListSink()
    writer = BatchWriter(interval_s=0.05, max_items=1000)
    for i in range(10):
        writer.submit(a if i % 2 else b, i)
    writer.close()
    assert a.items == [1, 3, 5, 7, 9]
    assert b.items == [0, 2, 4, 6, 8]


def test_flush_is_a_barrier_for_earlier_items() -> None:
    sink = ListSink()
    writer = BatchWriter(interval_s=30.0, max_items=1000)
    writer.submit(sink, "x")
    assert writer.flush(timeout_s=5)
    assert sink.items == ["x"]
    writer.close()


def test_limits_must_make_sense() -> None:
    with pytest.raises(ValueError):
        BatchWriter(max_items=10, max_queue=5)


def test_an_observer_hears_every_count() -> None:
    heard: dict[str, int] = {}
    lock = threading.Lock()

    def observe(outcome: str, n: int) -> None:
        with lock:
            heard[outcome] = heard.get(outcome, 0) + n

    sink = ListSink(fail_times=1)
    writer = BatchWriter(interval_s=0.01, max_items=10, observer=observe)
    for i in range(7):
        writer.submit(sink, i)
    assert writer.flush()
    writer.close()
    assert heard == {"errors": 1, "written": 7}


def test_a_cache_behind_a_writer_reads_its_own_lookups(storage: SQLiteStorage, embedder: Embedder) -> None:
    """Feedback on a lookup id just returned, an entry's hit count and stats include queued bookkeeping."""
    writer = BatchWriter(interval_s=60.0, max_items=10_000)  # nothing is written unless flushed
    try:
        cache = SemanticCache(storage, embedder, writer=writer)
        entry_id = cache.put("How do I reset my password?", "Click 'forgot password'.")
        res = cache.lookup("How do I reset my password?")
        assert res.hit and res.lookup_id is not None
        assert cache.get(entry_id)["hit_count"] == 1
        assert cache.stats()["hits"]["exact"] == 1
        cache.feedback(correct=False, lookup_id=res.lookup_id)
        assert cache.stats()["feedback"]["incorrect"] == 1
    finally:
        writer.close()
