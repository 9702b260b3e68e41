"""Bulk encoding on every core: one copy of a model per worker process.

Why processes: a model call uses one core (one thread per call is the rule, see
:mod:`lastline.embedding`) and only one runs at a time per process, so a bulk job such as a KB
ingest leaves the other cores idle. A pool of worker processes, each with the model loaded once by
name, encodes the slices of one batch at the same time.

How: the batch is sorted by length (a slice of similar lengths pads little and its cost is even)
and dealt round-robin, so every worker gets the same mix of long and short texts and they finish
together. Workers are *spawned*, never forked: the caller may be a server with threads and open
SQLite connections. A worker's rows are L2-normalized like :class:`~lastline.embedding.Embedder`'s,
and the pool refuses to start when the workers' model differs from the caller's, so vectors of two
models never mix.

A pool can start without waiting (``wait=False``): its workers load their models in the background
while the caller keeps encoding in its own process, and :attr:`ready` says when to switch. The two
seconds a spawn and a model load take are then not a pause at the start of every bulk job.
:meth:`submit` returns at once, so the caller can write the previous batch while this one encodes.
"""

from __future__ import annotations

import multiprocessing
import time
from collections.abc import Sequence
from concurrent.futures import Future, ProcessPoolExecutor

import numpy as np

from .embedders import Backend, make_backend
from .embedding import encode_distinct, normalize_rows
from .errors import ModelUnavailable

__all__ = ["EncoderPool", "PendingRows"]

_worker_backend: Backend | None = None


def _load(name: str) -> None:
    global _worker_backend
    _worker_backend = make_backend(name, 1)


def _model_id() -> str:
    assert _worker_backend is not None
    return _worker_backend.model_id


def _encode(texts: list[str]) -> tuple[np.ndarray, float]:
    """The rows and the CPU seconds this worker spent on them (the caller's stage accounting).

    Encoded in calls as large as the caller's own (``encode_distinct``'s default): USE computes a
    call's distinct tokens once (:mod:`lastline.use_model`), so a larger call shares more of them.
    """
    assert _worker_backend is not None
    backend = _worker_backend
    started = time.process_time()
    rows = normalize_rows(encode_distinct(backend, texts))
    return rows, time.process_time() - started


class PendingRows:
    """One batch handed to the workers; :meth:`result` waits for its rows, in the order given."""

    def __init__(self, size: int, deals: list[list[int]], futures: list[Future[tuple[np.ndarray, float]]]) -> None:
        self._size = size
        self._deals = deals
        self._futures = futures
        self._rows: np.ndarray | None = None
        #: CPU seconds the workers spent on this batch (not visible to this process's own clock), known
        #: once :meth:`result` has returned: a bulk job can say what its encode stage cost.
        self.cpu_seconds = 0.0

    def result(self) -> np.ndarray:
        if self._rows is None:
            out: np.ndarray | None = None
            for deal, future in zip(self._deals, self._futures, strict=True):
                rows, cpu = future.result()
                self.cpu_seconds += cpu
                if out is None:
                    out = np.empty((self._size, rows.shape[1]), dtype=np.float32)
                out[deal] = rows
            self._rows = out if out is not None else np.zeros((0, 0), dtype=np.float32)
        return self._rows


class EncoderPool:
    """``workers`` processes with model ``name``; :meth:`encode` spreads one batch over all of them."""

    def __init__(self, name: str, workers: int, *, model_id: str | None = None, wait: bool = True) -> None:
        if workers < 1:
            raise ValueError("workers must be at least 1")
        self.name = name
        self.workers = workers
        self._model_id = model_id
        self._checked = False
        self._executor = ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("spawn"),
                                             initializer=_load, initargs=(name,))
        # Start every worker now (each loads its model); what they loaded is checked before first use.
        self._loaded = [self._executor.submit(_model_id) for _ in range(workers)]
        if wait:
            self.wait_ready()

    @property
    def ready(self) -> bool:
        """Every worker has its model: :meth:`submit` will not wait for a start-up."""
        return self._checked or all(f.done() for f in self._loaded)

    def wait_ready(self) -> None:
        """Wait for the workers' models and refuse (``ModelUnavailable``) a model other than the caller's."""
        if self._checked:
            return
        ids = {f.result() for f in self._loaded}
        if self._model_id is not None and ids != {self._model_id}:
            self.close()
            raise ModelUnavailable(f"encoder pool for {self.name!r} loaded {sorted(ids)}, expected {self._model_id!r}")
        self._checked = True

    def submit(self, texts: Sequence[str]) -> PendingRows:
        """Hand ``texts`` to every worker at once and return without waiting for the rows."""
        self.wait_ready()
        texts = list(texts)
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        deals = [deal for deal in (order[w :: self.workers] for w in range(self.workers)) if deal]
        futures = [self._executor.submit(_encode, [texts[i] for i in deal]) for deal in deals]
        return PendingRows(len(texts), deals, futures)

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """Rows aligned with ``texts``, unit length, encoded by every worker at once."""
        return self.submit(texts).result()

    def close(self, *, wait: bool = True) -> None:
        """End the workers; ``wait=False`` returns at once and lets them exit when their task is done."""
        self._executor.shutdown(wait=wait, cancel_futures=True)

    def __enter__(self) -> EncoderPool:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
