"""The one embedder: every vector in lastline comes from here.

The model loads lazily on first use and once per process (``get_embedder`` caches by name), so
tests, the API and the CLI share it. Output is always float32, L2-normalized, shape ``[n, dim]``,
which makes inner product equal to cosine for FAISS and sqlite-vec alike. A lock serializes
encode calls: the backends are not all thread-safe, and on two cores parallel encodes only fight
over the same CPU (the API gains throughput by batching instead).
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import Protocol

import numpy as np

from .embedders import Backend, make_backend

__all__ = ["Embedder", "encode_distinct", "get_embedder", "normalize_rows"]


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


class Embedder:
    """A named model behind a lock, loaded on first use."""

    def __init__(self, name: str, threads: int = 1) -> None:
        self.name = name
        self.threads = threads
        self._backend: Backend | None = None
        self._load_lock = threading.Lock()
        self._encode_lock = threading.Lock()

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
        """Encode a batch; ``[n, dim]`` float32 with unit-length rows."""
        backend = self.load()
        if isinstance(texts, str):
            raise TypeError("encode() takes a sequence of strings, not one string")
        if not texts:
            return np.zeros((0, backend.dim), dtype=np.float32)
        with self._encode_lock:
            raw = backend.encode(texts)
        return normalize_rows(raw)

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
