"""The one embedder: every vector in lastline comes from here.

The model loads lazily on first use and once per process (``get_embedder`` caches by name), so
tests, the API and the CLI share it. Output is always float32, L2-normalized, shape ``[n, dim]``,
which makes inner product equal to cosine for FAISS and sqlite-vec alike. One model call runs at a
time (the backends are not all thread-safe, and on two cores parallel encodes only fight over the
same CPU); concurrent requests share calls instead (micro-batching, see :class:`Embedder`), so
throughput rises with load: one USE call over 16 short texts costs little more than over one.
"""

from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

import numpy as np

from .embedders import Backend, make_backend

__all__ = [
    "DEFAULT_MAX_BATCH",
    "DEFAULT_MAX_WAIT_S",
    "Embedder",
    "EncodeStats",
    "encode_distinct",
    "get_embedder",
    "normalize_rows",
]


class Encoder(Protocol):
    def encode(self, texts: Sequence[str]) -> np.ndarray: ...


def encode_distinct(embedder: Encoder, texts: Sequence[str], batch: int = 256) -> np.ndarray:
    """Rows aligned with ``texts``, each distinct text encoded once, ``batch`` texts per call.

    Why: what gets embedded in bulk repeats itself (boilerplate chunks and FAQ questions on ingest,
    the same question in many labelled pairs), and encoding is the slow part.
    """
    unique = list(dict.fromkeys(texts))
    if not unique:
        return embedder.encode([])
    encoded = np.concatenate([embedder.encode(unique[i : i + batch]) for i in range(0, len(unique), batch)])
    if len(unique) == len(texts):
        return encoded
    row = {text: i for i, text in enumerate(unique)}
    return encoded[[row[t] for t in texts]]


def normalize_rows(vectors: np.ndarray) -> np.ndarray:
    """L2-normalize each row (zero rows stay zero) as contiguous float32."""
    vectors = np.ascontiguousarray(vectors, dtype=np.float32)
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    return np.ascontiguousarray(vectors / np.maximum(norms, 1e-12), dtype=np.float32)


@dataclass
class EncodeStats:
    """What the micro-batcher did: ``calls`` to the model for ``requests`` encode requests."""

    requests: int = 0
    calls: int = 0
    texts: int = 0
    shared_calls: int = 0  # calls that served more than one request
    largest: int = 0  # most texts in one call


@dataclass
class _Request:
    texts: Sequence[str]
    done: bool = False
    rows: np.ndarray | None = None
    error: BaseException | None = None


#: How long the thread about to run the model lingers for company, at most, when the previous call
#: was shared (so a lone caller never waits): long enough for a few lookups to arrive at 16 clients,
#: short against one encode (≈1.5 ms for a short USE query).
DEFAULT_MAX_WAIT_S = 0.002
#: Texts per shared model call: past this a waiting request goes in the next call.
DEFAULT_MAX_BATCH = 64


class Embedder:
    """A named model, loaded on first use, whose concurrent encode requests share model calls.

    Micro-batching: a request joins a queue; if no model call is running, its thread becomes the
    leader — it lingers up to ``max_wait_s`` for company when the previous call was shared (not when
    it served one caller: a lone client pays nothing), takes queued requests up to ``max_batch``
    texts, runs one model call outside the lock, and hands each request its rows. Callers that arrive
    meanwhile wait for the next call. One implementation for every caller: async code reaches it
    through a thread (``run_in_threadpool``), so sync and async paths batch together. The backends are
    not all thread-safe, and only one model call runs at a time.
    """

    def __init__(self, name: str, threads: int = 1, *, max_wait_s: float = DEFAULT_MAX_WAIT_S,
                 max_batch: int = DEFAULT_MAX_BATCH) -> None:
        self.name = name
        self.threads = threads
        self.max_wait_s = max_wait_s
        self.max_batch = max_batch
        self.stats = EncodeStats()
        self._backend: Backend | None = None
        self._load_lock = threading.Lock()
        self._cond = threading.Condition()
        self._queue: deque[_Request] = deque()
        self._busy = False
        self._last_shared = False

    @property
    def loaded(self) -> bool:
        return self._backend is not None

    def load(self) -> Backend:
        if self._backend is None:
            with self._load_lock:
                if self._backend is None:
                    self._backend = make_backend(self.name, self.threads)
        return self._backend

    @property
    def model_id(self) -> str:
        return self.load().model_id

    @property
    def dim(self) -> int:
        return self.load().dim

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """Encode a batch; ``[n, dim]`` float32 with unit-length rows (shares a model call when busy)."""
        backend = self.load()
        if isinstance(texts, str):
            raise TypeError("encode() takes a sequence of strings, not one string")
        if not texts:
            return np.zeros((0, backend.dim), dtype=np.float32)
        request = _Request(list(texts))
        with self._cond:
            self.stats.requests += 1
            self._queue.append(request)
            self._cond.notify_all()  # a lingering leader may now have enough
            while True:
                if request.done:
                    break
                if self._busy:
                    self._cond.wait()
                    continue
                batch = self._lead()
                self._cond.release()
                try:
                    self._run(backend, batch)
                finally:
                    self._cond.acquire()
                    self._busy = False
                    self._cond.notify_all()
        if request.error is not None:
            raise request.error
        assert request.rows is not None
        return request.rows

    def _lead(self) -> list[_Request]:
        """Under the lock: become the one model caller and take the next batch off the queue."""
        self._busy = True
        if self._last_shared and self.max_wait_s > 0:
            deadline = time.monotonic() + self.max_wait_s
            while sum(len(r.texts) for r in self._queue) < self.max_batch:
                left = deadline - time.monotonic()
                if left <= 0:
                    break
                self._cond.wait(left)
        batch = [self._queue.popleft()]
        size = len(batch[0].texts)
        while self._queue and size + len(self._queue[0].texts) <= self.max_batch:
            size += len(self._queue[0].texts)
            batch.append(self._queue.popleft())
        self._last_shared = len(batch) > 1
        self.stats.calls += 1
        self.stats.texts += size
        self.stats.shared_calls += len(batch) > 1
        self.stats.largest = max(self.stats.largest, size)
        return batch

    @classmethod
    def _run(cls, backend: Backend, batch: list[_Request]) -> None:
        """One model call for the whole batch (outside the lock); every request gets rows or an error.

        When a shared call fails, each request is retried alone, so one bad input fails only its
        own caller. Errors are handed to the callers, who raise them: nothing is swallowed.
        """
        try:
            rows = normalize_rows(backend.encode([t for r in batch for t in r.texts]))
        except BaseException as exc:
            if len(batch) == 1:
                batch[0].error, batch[0].done = exc, True
                return
            for r in batch:
                cls._run(backend, [r])
            return
        start = 0
        for r in batch:
            r.rows, r.done = rows[start : start + len(r.texts)], True
            start += len(r.texts)

    def encode_one(self, text: str) -> np.ndarray:
        row: np.ndarray = self.encode([text])[0]
        return row


_instances: dict[tuple[str, int], Embedder] = {}
_instances_lock = threading.Lock()


def get_embedder(name: str = "use", threads: int = 1) -> Embedder:
    """The process-wide embedder for ``name``; the same object on every call."""
    with _instances_lock:
        key = (name, threads)
        if key not in _instances:
            _instances[key] = Embedder(name, threads)
        return _instances[key]
