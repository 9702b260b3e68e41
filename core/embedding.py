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
from collections import OrderedDict, deque
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Protocol

import numpy as np

from .embedders import Backend, Warmable, make_backend

__all__ = [
    "DEFAULT_MAX_BATCH",
    "DEFAULT_MAX_WAIT_S",
    "DEFAULT_MEMO_TEXTS",
    "MEMO_MAX_CHARS",
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
    texts: int = 0  # texts the model encoded
    shared_calls: int = 0  # calls that served more than one request
    largest: int = 0  # most texts in one call
    memo_hits: int = 0  # texts answered from the vector memo, with no model call


@dataclass
class _Request:
    texts: Sequence[str]
    #: Set once: its rows or error are in (``done``), or else the model was handed to it and it leads.
    ready: threading.Event = field(default_factory=threading.Event)
    done: bool = False
    rows: np.ndarray | None = None
    error: BaseException | None = None


#: How long the thread about to run the model lingers for company, at most, when the previous call
#: was shared (so a lone caller never waits): long enough for a few lookups to arrive at 16 clients,
#: short against one encode (≈1.5 ms for a short USE query).
DEFAULT_MAX_WAIT_S = 0.002
#: Texts per shared model call: past this a waiting request goes in the next call.
DEFAULT_MAX_BATCH = 64
#: Vectors the memo keeps (least recently used first out): ≈2 KB each for a 512-d model.
DEFAULT_MEMO_TEXTS = 10_000
_WARM_SAMPLE = 8  # texts in the one warm-up call of a backend without its own warm-up
#: Longer texts are never memoized: queries and questions repeat, document chunks do not.
MEMO_MAX_CHARS = 1_000


class _VectorMemo:
    """The vectors of the most recently encoded short texts.

    Why: a vector is a pure function of (model, text), and in the minute every provider fails the same
    questions arrive again and again (agents retry whole chains; many users ask the same thing), while
    the model call is most of a semantic lookup's CPU. Rows are stored as copies and handed out as
    copies, so no caller can change what another one gets.
    """

    def __init__(self, capacity: int) -> None:
        self.capacity = capacity
        self._rows: OrderedDict[str, np.ndarray] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, texts: Sequence[str]) -> list[np.ndarray | None]:
        with self._lock:
            out: list[np.ndarray | None] = []
            for text in texts:
                row = self._rows.get(text)
                if row is not None:
                    self._rows.move_to_end(text)
                out.append(row)
            return out

    def put(self, texts: Sequence[str], rows: np.ndarray) -> None:
        with self._lock:
            for text, row in zip(texts, rows, strict=True):
                if len(text) <= MEMO_MAX_CHARS:
                    self._rows[text] = row.copy()
                    self._rows.move_to_end(text)
            while len(self._rows) > self.capacity:
                self._rows.popitem(last=False)

    def __len__(self) -> int:
        return len(self._rows)


class Embedder:
    """A named model, loaded on first use, whose concurrent encode requests share model calls.

    Micro-batching: a request joins a queue; if no model call is running, its thread leads — it
    lingers up to ``max_wait_s`` for company when the previous call was shared (not when it served
    one caller: a lone client pays nothing), takes queued requests up to ``max_batch`` texts, runs
    one model call outside the lock, hands each request its rows, and hands the model to the first
    request still queued. Every waiting thread waits on its own event and is woken once (its rows,
    or its turn to lead): with one shared condition every call would wake every waiter, and at 16
    clients those wake-ups cost more interpreter time than the model call saved. One implementation
    for every caller: async code reaches it through a thread, so sync and async paths batch together.
    The backends are not all thread-safe, and only one model call runs at a time.

    Short texts already encoded are answered from a bounded memo (``memo_texts``; 0 turns it off)
    before they queue at all.
    """

    def __init__(self, name: str, threads: int = 1, *, max_wait_s: float = DEFAULT_MAX_WAIT_S,
                 max_batch: int = DEFAULT_MAX_BATCH, memo_texts: int = DEFAULT_MEMO_TEXTS) -> None:
        self.name = name
        self.threads = threads
        self.max_wait_s = max_wait_s
        self.max_batch = max_batch
        self.stats = EncodeStats()
        self._backend: Backend | None = None
        self._load_lock = threading.Lock()
        self._lock = threading.Lock()
        self._company = threading.Condition(self._lock)  # a lingering leader waits here for arrivals
        self._queue: deque[_Request] = deque()
        self._busy = False
        self._last_shared = False
        self._memo = _VectorMemo(memo_texts) if memo_texts > 0 else None

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
        texts = list(texts)
        if self._memo is None:
            return self._encode_batched(backend, texts)
        known = self._memo.get(texts)
        missing = list(dict.fromkeys(t for t, row in zip(texts, known, strict=True) if row is None))
        with self._lock:
            self.stats.memo_hits += len(texts) - sum(row is None for row in known)
        if not missing:
            return np.stack(known)  # type: ignore[arg-type]
        fresh = self._encode_batched(backend, missing)
        self._memo.put(missing, fresh)
        if len(missing) == len(texts):
            return fresh
        at = {text: i for i, text in enumerate(missing)}
        return np.stack([row if row is not None else fresh[at[text]] for text, row in zip(texts, known, strict=True)])

    def _encode_batched(self, backend: Backend, texts: list[str]) -> np.ndarray:
        """The rows of ``texts`` from a model call, shared with whoever else is waiting."""
        request = _Request(texts)
        with self._lock:
            self.stats.requests += 1
            self._queue.append(request)
            leads = not self._busy
            if leads:
                self._busy = True
            else:
                self._company.notify()  # a lingering leader may now have enough
        if not leads:
            request.ready.wait()
        if not request.done:  # it leads: its own request is first in the queue
            self._lead(backend)
        if request.error is not None:
            raise request.error
        assert request.rows is not None
        return request.rows

    def _lead(self, backend: Backend) -> None:
        """Run one model call for the head of the queue, then hand the model on (or go idle)."""
        batch: list[_Request] = []
        try:
            with self._lock:
                batch = self._take()
            self._run(backend, batch)
        finally:
            with self._lock:
                successor = self._queue[0] if self._queue else None
                self._busy = successor is not None
            for r in batch:
                r.ready.set()
            if successor is not None:
                successor.ready.set()

    def _take(self) -> list[_Request]:
        """Under the lock: linger for company if the last call was shared, then take the next batch."""
        if self._last_shared and self.max_wait_s > 0:
            deadline = time.monotonic() + self.max_wait_s
            while sum(len(r.texts) for r in self._queue) < self.max_batch:
                left = deadline - time.monotonic()
                if left <= 0:
                    break
                self._company.wait(left)
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

    def warm(self, texts: Sequence[str]) -> int:
        """Load the model and do now what its first requests would pay for; the tokens prepared.

        ``texts`` are what requests will resemble: a backend that can prepare for them does
        (:meth:`lastline.use_model.UseModel.warm`), any other runs one call over a few of them (a first
        call's lazy set-up). Not counted in :attr:`stats` and not memoized: a warm-up is not traffic.
        """
        backend = self.load()
        sample = list(texts) or ["warm"]
        if isinstance(backend, Warmable):
            return backend.warm(sample)
        backend.encode(sample[:_WARM_SAMPLE])
        return 0

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
