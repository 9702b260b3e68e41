"""Keeping this process's FAISS index in step with what other connections commit to SQLite.

Why: several processes share one SQLite file (several ``lastline serve`` processes, a CLI ``cache put``
beside a running server, two services on one file), each with its own derived index. Without
this, a process would see another's new entries semantically only after a restart, and another's
deletions would leave ghost vectors here: never served (every hit is re-read from SQLite) but
still taking top-k slots from live neighbours.

How, cheapest first:

1. ``PRAGMA data_version`` on the calling thread's connection (≈2 µs) changes only when *another*
   connection commits, and the connection's ``total_changes`` when it writes itself (another
   cache object on the same storage and thread shares the connection). The storage opens one
   connection per thread, so this process's other threads (a lookup's counters, a put) change the
   version too, and this cache's own lookup bookkeeping the change count — the latter is forgiven
   right after the write (:meth:`IndexSync.own_write_done`), nothing else is; then
2. one read of two counters (≈4 µs) — ``cache_seq.next`` (the last seq handed out) and the head of the
   deletion log — says whether entries changed at all. Unchanged: done, remember the version.
3. Otherwise catch up, under the cache's write lock (never holding SQLite's): drop the seqs the
   trigger-written ``cache_deletions`` log lists past our deletion watermark, then read the seqs of
   our model past our insert watermark and the vectors of only those not live here yet (our own
   writes are), at most ``CATCH_UP_ROWS`` per call so that no single lookup pays for a bulk import
   elsewhere — nor re-reads a bulk put of its own.

Without a change token (PostgreSQL: replicas on other machines share no file to watch), step 1 is
skipped and step 2 runs at most every ``poll_s`` seconds (``CacheConfig.replica_sync_s``): the
bound on how long a replica's index lags another replica's commits, for up to ``CATCH_UP_ROWS``
new rows per poll (a bulk import beyond that is caught up over the following lookups). The store
hands out seqs and log ids in commit order there too (``_pg_schema.py``), so the watermarks below
hold unchanged.

Watermarks only move here, to counters read *before* the rows: seqs and log ids are handed out
inside SQLite's serialized write transactions, so everything at or below a counter read is
committed (or gone) and everything committed later is above it. Our own writes never move the
insert watermark — another process's seq below ours may commit before ours and must not be
skipped. When pruning has removed log rows past our deletion watermark, deletions were missed:
the caller rebuilds the whole index (built aside, swapped in whole).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

from ._index import VectorIndex
from ._rows import SyncState, VectorRow
from ._store_api import CacheStore

__all__ = ["CATCH_UP_ROWS", "CATCH_UP_SEQS", "IndexSync", "SyncReport", "SyncState", "add_rows"]

#: Inserts one catch-up adds at most: ≈20 ms into flat partitions, ≈1 s into a large HNSW one.
CATCH_UP_ROWS = 2_000
#: Seqs one catch-up reads at most. Only the seqs missing from the index have their vectors read,
#: so a process that bulk-put 100k entries itself passes over them in two lookups, reading no vector.
CATCH_UP_SEQS = 50_000


@dataclass(frozen=True)
class SyncReport:
    """What one :meth:`SemanticCache.sync` did: vectors added and removed, or a full rebuild.

    ``skipped`` means a catch-up was due but the write lock stayed busy (a rebuild or a large
    write in another thread); the lookup went ahead on the current index and the next one retries.
    ``pending`` means more inserts are waiting than one call adds (``IndexSync.max_rows``): a bulk
    import elsewhere is caught up over several lookups instead of stalling one for seconds.
    """

    added: int = 0
    removed: int = 0
    rebuilt: bool = False
    skipped: bool = False
    pending: bool = False


def add_rows(index: VectorIndex, rows: Iterable[VectorRow]) -> int:
    """Add stored vector rows to the index, one call per partition."""
    groups: dict[tuple[str, str], list[VectorRow]] = {}
    for row in rows:
        groups.setdefault((row.tenant, row.context_hash), []).append(row)
    for key, part in groups.items():
        vecs = np.frombuffer(b"".join(r.vector for r in part), dtype=np.float32)
        index.add(key, [r.seq for r in part], vecs, [r.prompt_norm for r in part])
    return sum(len(part) for part in groups.values())


class IndexSync:
    """Change detection and incremental catch-up for one cache's index (see the module docstring).

    The caller serializes :meth:`catch_up` and :meth:`mark` with its own writes (the cache's write
    lock); :meth:`due` takes no lock and is what every lookup pays.
    """

    def __init__(self, store: CacheStore, model_id: str, *, poll_s: float = 0.0) -> None:
        self.store = store
        self.model_id = model_id
        self._local = threading.local()  # per thread: (data_version, total_changes) at its last check
        self._synced = SyncState(-1, -1, 0)  # watermarks: (last seq, log head) the index reflects
        self.max_rows = CATCH_UP_ROWS
        self.max_seqs = CATCH_UP_SEQS
        #: Without a change token (PostgreSQL), the counters are read at most this often.
        self.poll_s = poll_s
        self._next_poll = 0.0  # monotonic time of the next counter read (no change token)

    # -- cheap checks ---------------------------------------------------------------------------
    def state(self) -> SyncState:
        """Read the counters (one small query)."""
        return self.store.sync_state()

    def due(self) -> bool:
        """True when another connection committed entry changes this index has not seen yet."""
        local = self._local
        token = self.store.change_token()
        if token is not None and token == getattr(local, "token", None):
            local.fresh = True
            return False
        if token is None and self.poll_s and time.monotonic() < self._next_poll:
            return False  # polled less than poll_s ago: the replica lag bound allows the wait
        state = self.state()
        synced = self._synced
        if state.last_seq == synced.last_seq and state.log_head == synced.log_head:
            local.token, local.fresh = token, True
            self._polled()
            return False
        local.pending, local.fresh = token, False  # recorded once a catch-up has read past it
        return True

    def seen(self) -> None:
        """This thread's catch-up is complete: remember the token read before it."""
        self._local.token, self._local.fresh = getattr(self._local, "pending", None), True
        self._polled()

    def _polled(self) -> None:
        """The index reflects the counters just read: the next read is due ``poll_s`` from now.

        Not called after a skipped or partial catch-up, so the next lookup retries at once.
        """
        self._next_poll = time.monotonic() + self.poll_s

    def own_write_done(self) -> None:
        """Forgive the lookup bookkeeping this thread just committed, if its check was complete.

        Sound because nothing else runs on this thread's connection between the check at the
        start of a lookup and its bookkeeping write at the end; without this every lookup would
        pay the counter read for its own previous one.
        """
        local = self._local
        token = getattr(local, "token", None)
        if token is not None and getattr(local, "fresh", False):
            now = self.store.change_token()
            local.token, local.fresh = (token[0], now[1] if now else token[1]), False

    # -- under the caller's write lock ------------------------------------------------------------
    def mark(self, state: SyncState) -> None:
        """The index now reflects every commit up to ``state`` (after a full rebuild)."""
        self._synced = state

    def catch_up(self, index: VectorIndex) -> SyncReport | None:
        """Apply deletions then inserts committed past the watermarks; None when a rebuild is needed."""
        state = self.state()
        synced = self._synced
        if state.pruned_through > synced.log_head:
            return None  # log rows we never read are gone: deletions missed
        removed = 0
        if state.log_head > synced.log_head:
            removed = index.remove(self.store.deleted_seqs(synced.log_head, state.log_head))
        added, upto = 0, state.last_seq
        if state.last_seq > synced.last_seq:
            seqs = self.store.vector_seqs(self.model_id, self.max_seqs, after=synced.last_seq, upto=state.last_seq)
            fresh = sorted(index.missing(seqs))
            if len(fresh) > self.max_rows:
                fresh = fresh[:self.max_rows]
                upto = fresh[-1]  # every seq up to here is in the index now; the rest at the next check
            elif len(seqs) == self.max_seqs:
                upto = seqs[-1]
            added = add_rows(index, self.store.vectors_at(self.model_id, fresh))
        self._synced = SyncState(upto, state.log_head, state.pruned_through)
        return SyncReport(added=added, removed=removed, pending=upto < state.last_seq)

    def prune_log(self, before: float) -> int:
        """Drop deletion-log rows older than ``before``; return how many.

        An instance that has not caught up past them rebuilds at its next check instead.
        """
        return self.store.prune_deletions(before)
