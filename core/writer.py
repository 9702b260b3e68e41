"""The background batching writer: telemetry leaves the read path and reaches SQLite in batches.

A lookup that writes its hit count, window counter and lookup record in its own transaction makes
every reader queue behind SQLite's one write lock: exact hits got *slower* as clients were added.
Telemetry (hit bookkeeping, window counters, lookup records, degradation events) goes through
:class:`BatchWriter` instead: ``submit`` appends to a bounded in-memory queue and returns at once;
one thread hands the queued items to their sink every ``interval_s`` or as soon as ``max_items``
are waiting, so a whole batch costs one transaction.

What it promises (docs/reliability.md):

- **Bounded.** The queue holds at most ``max_queue`` items. When it is full the *oldest* item is
  dropped and counted (``dropped``): telemetry is worth less than the memory of the process, and a
  reader never waits for it. Only telemetry goes through here — entries, KB documents, rule packs,
  thresholds and defaults are written in the request and acknowledged once on disk.
- **At most ``interval_s`` of telemetry lost in a crash** (plus what one failed flush was retrying).
- **Errors surface, never swallowed** (house rule 3): a sink that raises has its batch retried on the
  next flush, up to ``max_attempts`` times; after that the batch is counted as ``failed``. Every error
  is counted, the last one kept (``last_error``), and :meth:`stats` / ``/metrics`` expose both.
- **Flushed on shutdown**: :meth:`close` writes what is queued before it returns.
- :meth:`flush` is a barrier: it returns once everything submitted before the call was handed to a
  sink (so a read that must see its own writes — feedback on a lookup id, stats — can have them).

One writer serves several sinks: an item is submitted with the sink that writes it, and a batch is
split by sink (in arrival order) before it is written.
"""

from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

__all__ = [
    "DEFAULT_FLUSH_INTERVAL_S",
    "DEFAULT_MAX_ITEMS",
    "DEFAULT_MAX_QUEUE",
    "BatchWriter",
    "Sink",
    "WriterStats",
]

#: A sink writes a list of its items in one transaction (and raises when it could not).
Sink = Callable[[Sequence[Any]], None]

DEFAULT_FLUSH_INTERVAL_S = 0.5
DEFAULT_MAX_ITEMS = 2_000
#: ≈ a few seconds of telemetry at the highest rates measured here; a few MB at most.
DEFAULT_MAX_QUEUE = 50_000
DEFAULT_MAX_ATTEMPTS = 3


@dataclass
class WriterStats:
    """Counters of one writer since it started (all items, over every sink)."""

    submitted: int = 0
    written: int = 0
    dropped: int = 0  # queue full: oldest item dropped
    failed: int = 0  # sink raised max_attempts times: batch given up
    errors: int = 0  # sink calls that raised
    flushes: int = 0  # sink calls that succeeded
    queued: int = 0
    last_error: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


class BatchWriter:
    """A bounded queue drained by one thread into sinks, in batches (see the module docstring)."""

    def __init__(self, *, interval_s: float = DEFAULT_FLUSH_INTERVAL_S, max_items: int = DEFAULT_MAX_ITEMS,
                 max_queue: int = DEFAULT_MAX_QUEUE, max_attempts: int = DEFAULT_MAX_ATTEMPTS,
                 name: str = "lastline-writer", observer: Callable[[str, int], None] | None = None) -> None:
        """``observer(outcome, n)`` hears every count as it happens — ``written``, ``dropped``, ``failed``,
        ``errors`` — so metrics can sum them across worker processes (a snapshot could not)."""
        if max_queue < max_items or max_items < 1:
            raise ValueError("need 1 <= max_items <= max_queue")
        self.interval_s = interval_s
        self.max_items = max_items
        self.max_queue = max_queue
        self.max_attempts = max_attempts
        self._observer = observer
        self._stats = WriterStats()
        self._queue: deque[tuple[Sink, Any]] = deque()
        self._retry: list[tuple[Sink, list[Any], int]] = []  # (sink, items, attempts so far)
        self._cond = threading.Condition()
        self._submitted_seq = 0  # items ever queued
        self._handled_seq = 0  # items taken off the queue and handed to a sink (or given up)
        self._closed = False
        self._flush_wanted = False
        self._thread = threading.Thread(target=self._loop, name=name, daemon=True)
        self._thread.start()

    # -- producers -----------------------------------------------------------------------------
    def submit(self, sink: Sink, item: Any) -> None:
        """Queue one item for ``sink``; never blocks. A full queue drops its oldest item.

        After :meth:`close` (a request finishing during shutdown) the item is written at once.
        """
        with self._cond:
            self._stats.submitted += 1
            if not self._closed:
                if len(self._queue) >= self.max_queue:
                    self._queue.popleft()
                    self._stats.dropped += 1
                    self._handled_seq += 1
                    self._observe("dropped", 1)
                self._queue.append((sink, item))
                self._submitted_seq += 1
                if len(self._queue) >= self.max_items:
                    self._cond.notify_all()
                return
        self._write([], [(sink, item)], final=True)

    def submit_many(self, sink: Sink, items: Sequence[Any]) -> None:
        """Queue several items for ``sink`` (each counts against the bound on its own)."""
        for item in items:
            self.submit(sink, item)

    def flush(self, timeout_s: float = 10.0) -> bool:
        """Wait until every item submitted before this call was written (or given up); False on timeout."""
        with self._cond:
            target = self._submitted_seq
            self._flush_wanted = True
            self._cond.notify_all()
            deadline = time.monotonic() + timeout_s
            while self._handled_seq < target or (self._retry and not self._closed):
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                self._cond.wait(min(left, 0.05))
                self._flush_wanted = True
                self._cond.notify_all()
            return True

    def stats(self) -> WriterStats:
        with self._cond:
            snapshot = WriterStats(**self._stats.to_dict())
            snapshot.queued = len(self._queue) + sum(len(items) for _, items, _ in self._retry)
            return snapshot

    def close(self, timeout_s: float = 10.0) -> None:
        """Write what is queued, stop the thread. Idempotent."""
        with self._cond:
            if self._closed:
                return
            self._closed = True
            self._cond.notify_all()
        self._thread.join(timeout_s)

    # -- the writer thread ---------------------------------------------------------------------
    def _loop(self) -> None:
        while True:
            with self._cond:
                deadline = time.monotonic() + self.interval_s
                while not (self._closed or self._flush_wanted) and len(self._queue) < self.max_items:
                    left = deadline - time.monotonic()
                    if left <= 0:
                        break
                    self._cond.wait(left)
                closing = self._closed
                self._flush_wanted = False
                taken = [self._queue.popleft() for _ in range(min(len(self._queue), self.max_items))]
                retry, self._retry = self._retry, []
            self._write(retry, taken, final=closing)
            with self._cond:
                self._handled_seq += len(taken)
                self._cond.notify_all()
                if closing and not self._queue:
                    return

    def _write(self, retry: list[tuple[Sink, list[Any], int]], taken: list[tuple[Sink, Any]], *,
               final: bool) -> None:
        batches: dict[Sink, tuple[Sink, list[Any], int]] = {}  # by sink (equal bound methods share a batch)
        for sink, items, attempts in retry:
            batches[sink] = (sink, items, attempts)
        for sink, item in taken:
            entry = batches.setdefault(sink, (sink, [], 0))
            entry[1].append(item)
        for sink, items, attempts in batches.values():
            try:
                sink(items)
            except Exception as exc:  # counted, kept and retried: see the module docstring
                with self._cond:
                    self._stats.errors += 1
                    self._stats.last_error = f"{type(exc).__name__}: {exc}"
                    given_up = attempts + 1 >= self.max_attempts or final
                    if given_up:
                        self._stats.failed += len(items)
                    else:
                        self._retry.append((sink, items, attempts + 1))
                self._observe("errors", 1)
                if given_up:
                    self._observe("failed", len(items))
                continue
            with self._cond:
                self._stats.written += len(items)
                self._stats.flushes += 1
            self._observe("written", len(items))

    def _observe(self, outcome: str, n: int) -> None:
        if self._observer is not None:
            self._observer(outcome, n)
