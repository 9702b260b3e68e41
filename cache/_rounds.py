"""Lookups in rounds on one thread: every lookup queued when a round starts shares its model call
and its kNN search.

Why: a lookup past its exact key is mostly the model's call and a little Python on either side of
it. Run on a thread each, concurrent lookups did share model calls (the embedder's micro-batcher),
but their threads spent the difference passing the interpreter lock and waking one another.
``bench/lookup_rounds.py`` (in process, 2,000 QQP entries, 16 client threads): 1.71 ms of CPU per
lookup on a thread each (model calls of 6.7 texts), 0.97 ms in rounds (14.1 texts per call), with
the same decisions. So a round takes every queued lookup (up to ``max_round``), runs each to
the vector it needs (:data:`~lastline.cache._lookup.LookupSteps`), encodes those texts in one call,
searches each partition once for all of their vectors, and finishes each lookup. The one search
gives each vector the scores a search of its own gives (``PartitionIndex.search``); in process it
costs no less CPU (the same bench, 16 clients, 1.06 → 1.08 ms per lookup at 2,000 entries, 1.57 →
1.58 at 8,000), but a search releases the interpreter lock, and in a server every release lets the event
loop take the lock for up to a switch interval while the round waits. Measured from outside
(``bench/load.py``, three alternating runs per side): semantic lookups at 64 clients 1.31–1.48 ms
of server CPU per answer against 1.44–1.55, and none shed against some in two of three runs; in the
``mixed`` flood at 256 clients the p99 of the new questions' answers 569–664 ms against 697–829.
The lookups that arrive while one round runs form the next, so rounds grow with the load. A round
after a shared one lingers up to ``linger_s`` (1.5 ms) for company before it starts: a round's own
cost — the model's call streaming its weights, the catch-up check, one search per partition — is
≈2 ms whatever its size, and at a few clients per worker the rounds otherwise alternate between the
halves of the clients, each round half as large as it could be. Measured from outside
(``bench/load.py --mixes bare,semantic --levels 1,16,64 --no-burst --no-flood``, four runs per side
alternating): semantic lookups at 16 clients 1.80–1.96 → 1.45–1.56 ms of server CPU per answer and
958–1,017 → 1,099–1,170 answers a second, p99 unchanged (28–30 ms); at 64 clients 1.21–1.27 →
1.12–1.23 ms. A round after a round of one does not wait, so a lone client waits for nothing; at
full load the queue holds ``max_round`` lookups and no round waits either.

What bounds the queue: its callers. ``SemanticCache.submit_lookup`` queues a lookup holding its
``past_exact`` slot (``semantic``, 144 per process by default, ``docs/reliability.md``) and frees it
when the lookup is done, so the slots bound the queue as they bound the work; a lookup queued
without a slot takes one inside its steps, on this thread, and is refused (or served stale) as
:meth:`LookupPath.run` would be.
"""

from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Callable, Sequence
from concurrent.futures import Future
from dataclasses import dataclass
from functools import partial
from typing import Any

import numpy as np

from ._config import LookupResult
from ._lookup import Ask, Encode, LookupSteps, Search
from ._neighbours import Nearest, PartitionKey

__all__ = ["DEFAULT_LINGER_S", "DEFAULT_MAX_ROUND", "LookupRounds", "RoundStats"]

#: Lookups per round at most: the embedder's largest shared call (``DEFAULT_MAX_BATCH``).
DEFAULT_MAX_ROUND = 64
#: How long a round after a shared one waits for company, at most (see the module docstring): the
#: time a few clients' next lookups take to arrive, short against a round (≈2 ms and more). 3 ms
#: measured no better than 1.5 (1.66 ms of CPU per answer at 16 clients, one run).
DEFAULT_LINGER_S = 0.0015


@dataclass
class RoundStats:
    """What the rounds did: ``lookups`` in ``rounds``, ``texts`` encoded in ``encode_calls``,
    ``searched`` vectors in ``search_calls``; ``lingered``: rounds that waited for company."""

    rounds: int = 0
    lingered: int = 0
    lookups: int = 0
    largest: int = 0
    encode_calls: int = 0
    texts: int = 0
    search_calls: int = 0
    searched: int = 0


@dataclass
class _Pending:
    steps: LookupSteps
    future: Future[LookupResult]


class LookupRounds:
    """One thread running queued lookups round by round (see the module docstring).

    ``encode`` makes the vectors of a round's texts (the cache's embedder: its memo answers what it
    encoded before); ``search`` finds the nearest entries of one partition for several vectors (the
    cache's ``Neighbours.nearest_many``); ``before_round`` runs first in each round (the cache's
    catch-up with other processes' writes, once per round instead of once per lookup); a round
    after a shared one waits up to ``linger_s`` for ``max_round`` lookups to be queued. The thread
    starts with the first lookup and stops at :meth:`close`, after the lookups already queued.
    """

    def __init__(self, encode: Callable[[Sequence[str]], np.ndarray],
                 search: Callable[[PartitionKey, np.ndarray, int], list[Nearest]], *,
                 before_round: Callable[[], object] | None = None, max_round: int = DEFAULT_MAX_ROUND,
                 linger_s: float = DEFAULT_LINGER_S) -> None:
        if max_round < 1 or linger_s < 0:
            raise ValueError("max_round must be ≥ 1 and linger_s ≥ 0")
        self.max_round = max_round
        self.linger_s = linger_s
        self._last_round = 0  # lookups the round before took
        self.stats = RoundStats()
        self._encode = encode
        self._search = search
        self._before_round = before_round
        self._queue: deque[_Pending] = deque()
        self._lock = threading.Lock()
        self._arrived = threading.Condition(self._lock)
        self._thread: threading.Thread | None = None
        self._closed = False

    def submit(self, steps: LookupSteps) -> Future[LookupResult]:
        """Queue a lookup's steps; its future gets the result or the error the lookup raised."""
        pending = _Pending(steps, Future())
        with self._lock:
            if self._closed:
                raise RuntimeError("the cache's lookup rounds are closed")
            self._queue.append(pending)
            if self._thread is None:
                self._thread = threading.Thread(target=self._serve, name="lastline-lookup-rounds", daemon=True)
                self._thread.start()
            self._arrived.notify()
        return pending.future

    def close(self) -> None:
        """Finish the lookups already queued, then stop the thread; later submits raise."""
        with self._lock:
            self._closed = True
            thread = self._thread
            self._arrived.notify()
        if thread is not None:
            thread.join()

    def _serve(self) -> None:
        while True:
            with self._lock:
                while not self._queue and not self._closed:
                    self._arrived.wait()
                if not self._queue:
                    return
                if self._last_round > 1 and self.linger_s:
                    self._linger()
                batch = [self._queue.popleft() for _ in range(min(self.max_round, len(self._queue)))]
                self._last_round = len(batch)
            try:
                self._round(batch)
            except BaseException as exc:  # the round itself failed (its catch-up): no lookup waits forever
                for p in batch:
                    if not p.future.done():
                        p.steps.close()
                        p.future.set_exception(exc)

    def _linger(self) -> None:
        """Under the lock: wait up to ``linger_s`` for ``max_round`` lookups (not past a close)."""
        def room() -> bool:
            return len(self._queue) < self.max_round and not self._closed

        if room():
            self.stats.lingered += 1
        deadline = time.monotonic() + self.linger_s
        while room() and (left := deadline - time.monotonic()) > 0:
            self._arrived.wait(left)

    def _round(self, batch: list[_Pending]) -> None:
        live = [p for p in batch if p.future.set_running_or_notify_cancel()]
        self.stats.rounds += 1
        self.stats.lookups += len(live)
        self.stats.largest = max(self.stats.largest, len(live))
        if self._before_round is not None:
            self._before_round()
        asking: list[tuple[_Pending, Ask]] = []
        for p in live:
            _advance(p, partial(next, p.steps), asking)
        while asking:  # each pass answers every ask of its kind at once: the encodes, then the searches
            now, asking = asking, []
            encodes = [(p, ask) for p, ask in now if isinstance(ask, Encode)]
            if encodes:
                self._answer(encodes, [ask.text for _, ask in encodes], self._encoded, self._encode_one, asking)
            searches: dict[tuple[PartitionKey, int], list[tuple[_Pending, Search]]] = {}
            for p, ask in now:
                if isinstance(ask, Search):
                    searches.setdefault((ask.partition, ask.k), []).append((p, ask))
            for (partition, k), group in searches.items():
                self._answer(group, [ask.vector for _, ask in group], partial(self._searched, partition, k),
                             partial(self._search_one, partition, k), asking)

    def _answer(self, group: Sequence[tuple[_Pending, Any]], inputs: list[Any],
                together: Callable[[list[Any]], Sequence[object] | np.ndarray | None], alone: Callable[[Any], object],
                asking: list[tuple[_Pending, Ask]]) -> None:
        """Answer ``group``'s asks from one call over their ``inputs``; if it failed, each alone, so
        one bad input fails only its own lookup."""
        answers = together(inputs)
        for i, (p, _) in enumerate(group):
            if answers is not None:
                _advance(p, partial(p.steps.send, answers[i]), asking)
                continue
            try:
                answer = alone(inputs[i])
            except BaseException as exc:
                _advance(p, partial(p.steps.throw, exc), asking)
            else:
                _advance(p, partial(p.steps.send, answer), asking)

    def _encoded(self, texts: list[str]) -> np.ndarray | None:
        """The rows of ``texts`` from one call, or None when that call failed."""
        self.stats.encode_calls += 1
        self.stats.texts += len(texts)
        try:
            return self._encode(texts)
        except Exception:  # the texts are encoded again one by one, where each error reaches its lookup
            return None

    def _encode_one(self, text: str) -> np.ndarray:
        vector: np.ndarray = self._encode([text])[0]
        return vector

    def _searched(self, partition: PartitionKey, k: int, vectors: list[np.ndarray]) -> list[Nearest] | None:
        """The nearest entries of each vector from one search of ``partition``, or None when it failed."""
        self.stats.search_calls += 1
        self.stats.searched += len(vectors)
        try:
            return self._search(partition, np.stack(vectors), k)
        except Exception:  # searched again one by one, where each error reaches its lookup
            return None

    def _search_one(self, partition: PartitionKey, k: int, vector: np.ndarray) -> Nearest:
        return self._search(partition, vector[None, :], k)[0]


def _advance(p: _Pending, step: Callable[[], Ask], asking: list[tuple[_Pending, Ask]]) -> None:
    """Run one step of ``p``: its result or error goes to its future, what it asks for to ``asking``."""
    try:
        ask = step()
    except StopIteration as done:
        p.future.set_result(done.value)
    except BaseException as exc:
        p.future.set_exception(exc)
    else:
        asking.append((p, ask))
