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
"""

from __future__ import annotations

import multiprocessing
import time
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor

import numpy as np

from .embedders import Backend, make_backend
from .embedding import encode_distinct, normalize_rows
from .errors import ModelUnavailable

__all__ = ["EncoderPool"]

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


class EncoderPool:
    """``workers`` processes with model ``name``; :meth:`encode` spreads one batch over all of them.

    ``cpu_seconds`` adds up the CPU time the workers spent encoding (not visible to this process's
    own clock), so a bulk job can say what its encode stage cost.
    """

    def __init__(self, name: str, workers: int, *, model_id: str | None = None) -> None:
        if workers < 1:
            raise ValueError("workers must be at least 1")
        self.name = name
        self.workers = workers
        self.cpu_seconds = 0.0
        self._executor = ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("spawn"),
                                             initializer=_load, initargs=(name,))
        # Start every worker now (loading its model) and check what it loaded.
        ids = {f.result() for f in [self._executor.submit(_model_id) for _ in range(workers)]}
        if model_id is not None and ids != {model_id}:
            self.close()
            raise ModelUnavailable(f"encoder pool for {name!r} loaded {sorted(ids)}, expected {model_id!r}")

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """Rows aligned with ``texts``, unit length, encoded by every worker at once."""
        texts = list(texts)
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        deals = [order[w :: self.workers] for w in range(self.workers)]
        futures = [self._executor.submit(_encode, [texts[i] for i in deal]) for deal in deals if deal]
        out: np.ndarray | None = None
        for deal, future in zip((d for d in deals if d), futures, strict=True):
            rows, cpu = future.result()
            self.cpu_seconds += cpu
            if out is None:
                out = np.empty((len(texts), rows.shape[1]), dtype=np.float32)
            out[deal] = rows
        return out if out is not None else np.zeros((0, 0), dtype=np.float32)

    def close(self) -> None:
        self._executor.shutdown(wait=True, cancel_futures=True)

    def __enter__(self) -> EncoderPool:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
