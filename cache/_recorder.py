"""The one narrow interface a lookup writes its bookkeeping through, and its synchronous implementation.

A lookup leaves three traces: the served entry's hit count and last-hit time (its LRU age), the
window counter of its outcome, and — when lookup records are on — a lookup record that feedback
can later name. They go through :class:`LookupRecorder` as a batch of
:class:`~lastline.cache._rows.LookupRecord`, whose ``lookup_id`` is made *before* the write, so a
lookup can return its id without waiting for the write to land. That is what lets a batching
background writer stand in front of this interface (the design's "no write on the read path")
without changing the lookup.

:class:`StoreRecorder` is today's implementation: it writes each batch at once, in one store
transaction, on the calling thread.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import Protocol

from lastline.ids import random_hex_id
from lastline.writer import BatchWriter

from ._config import CacheConfig
from ._rows import LookupRecord
from ._store_api import CacheStore
from ._sync import IndexSync

__all__ = ["PRUNE_EVERY", "LookupRecorder", "QueuedRecorder", "StoreRecorder", "new_lookup_id"]

#: Retention pruning (lookup records, counter buckets, expired entries, deletion log) runs once per this many records.
PRUNE_EVERY = 10_000


def new_lookup_id() -> str:
    """A fresh lookup id, made before its record is written."""
    return random_hex_id()


class LookupRecorder(Protocol):
    """Where lookups send their bookkeeping."""

    def record(self, records: Sequence[LookupRecord]) -> None:
        """Accept a batch of lookup records (written now, or later by a background writer)."""
        ...

    def flush(self) -> None:
        """Return once every record accepted so far is in the store (reads of one's own lookups)."""
        ...


class StoreRecorder:
    """Writes each batch synchronously through the store, and keeps retention in check.

    After its own write it tells the index sync (``own_write_done``), so this thread's next
    lookup does not mistake its own bookkeeping commit for another connection's entry change.
    Every ``PRUNE_EVERY`` records it prunes lookup records, counter buckets, entries expired longer
    than ``expired_retention_s`` (when set) and the deletion log past their retention — on the
    background writer's thread when one is in front of it.
    """

    def __init__(self, store: CacheStore, sync: IndexSync, config: CacheConfig) -> None:
        self.store = store
        self.sync = sync
        self.config = config
        self._count = 0
        self._lock = threading.Lock()

    def record(self, records: Sequence[LookupRecord]) -> None:
        if not records:
            return
        self.store.record_lookups(records)
        self.sync.own_write_done()
        with self._lock:
            before = self._count
            self._count += len(records)
            due = self._count // PRUNE_EVERY > before // PRUNE_EVERY
        if due:
            now = max(r.at for r in records)
            c = self.config
            self.store.prune(now - c.lookup_retention_s, int((now - c.counter_retention_s) // c.stats_bucket_s))
            if c.expired_retention_s is not None:  # every index drops them through the deletion log
                self.store.prune_expired(now - c.expired_retention_s)
            self.sync.prune_log(now - c.sync_log_retention_s)

    def flush(self) -> None:
        """Nothing to do: ``record`` has written before it returned."""


class QueuedRecorder:
    """Puts the background writer in front of another recorder: no write on the read path.

    ``record`` queues each record and returns at once; the writer hands them to ``inner`` in
    batches (one transaction per flush). The cache's reads of its own bookkeeping (feedback on a
    lookup id, an entry's hit count, stats) call ``flush`` first, so a caller always sees its own lookups.
    """

    def __init__(self, writer: BatchWriter, inner: LookupRecorder) -> None:
        self.writer = writer
        self.inner = inner
        self._sink = inner.record  # one sink object, so the writer batches every record together

    def record(self, records: Sequence[LookupRecord]) -> None:
        self.writer.submit_many(self._sink, records)

    def flush(self) -> None:
        self.writer.flush()
