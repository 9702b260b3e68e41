"""The values the cache's store reads and writes: new entries, stored rows, lookup records.

Plain frozen dataclasses, no SQL: they are the vocabulary of :class:`~lastline.cache._store_api.CacheStore`,
so every implementation (SQLite today, PostgreSQL next) and every caller speak the same types.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

__all__ = ["EntryRow", "FeedbackRow", "InsertResult", "LookupRecord", "NewEntry", "SyncState", "VectorRow",
           "context_hash"]


def context_hash(context: Any) -> str:
    """Fingerprint of the caller's context: canonical JSON (sorted keys), hashed. None → ``-``."""
    if context is None:
        return "-"
    canonical = json.dumps(context, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()[:32]


@dataclass(frozen=True)
class NewEntry:
    """An entry ready to write (prompt already normalized and hashed, vector already encoded)."""

    tenant: str
    context_hash: str
    prompt: str
    prompt_norm: str
    prompt_hash: str
    response: str
    vector: np.ndarray | None
    model_id: str | None
    expires_at: float | None
    tags: tuple[str, ...]
    metadata: dict[str, Any] | None
    #: Key of the prompt's normalized values (``cache/_values.py``); ``""`` when it has none.
    values_key: str = ""

    @property
    def nbytes(self) -> int:
        size = len(self.prompt.encode()) + len(self.response.encode()) + len(self.prompt_norm.encode())
        if self.vector is not None:
            size += self.vector.nbytes
        return size + (len(json.dumps(self.metadata)) if self.metadata else 0)


@dataclass(frozen=True)
class EntryRow:
    """One stored entry as the store returns it (no vector)."""

    seq: int
    id: str
    tenant: str
    context_hash: str
    prompt: str
    prompt_norm: str
    prompt_hash: str
    response: str
    model_id: str | None
    created_at: float
    expires_at: float | None
    last_hit_at: float | None
    hit_count: int
    bytes: int
    tags: tuple[str, ...]
    metadata: dict[str, Any] | None

    @classmethod
    def from_row(cls, row: Sequence[Any]) -> EntryRow:
        """An entry from a store's row of these fields in this order, ``tags`` and ``metadata`` as
        JSON text (how both backends keep them), so every store builds its rows the one way."""
        values = list(row)
        values[14] = tuple(json.loads(values[14] or "[]"))
        values[15] = json.loads(values[15]) if values[15] else None
        return cls(*values)

    def expired(self, now: float) -> bool:
        return self.expires_at is not None and self.expires_at <= now

    def to_dict(self) -> dict[str, Any]:
        """The public shape of an entry (``SemanticCache.get``, ``GET /v1/cache/entries/{id}``)."""
        return {
            "id": self.id, "prompt": self.prompt, "response": self.response, "created_at": self.created_at,
            "expires_at": self.expires_at, "last_hit_at": self.last_hit_at, "hit_count": self.hit_count,
            "bytes": self.bytes, "tags": list(self.tags), "metadata": self.metadata, "model_id": self.model_id,
            "exact_only": self.model_id is None,
        }


@dataclass(frozen=True)
class InsertResult:
    """What one insert did: ``(id, new seq, replaced seq or None)`` per entry, and the seqs evicted."""

    written: list[tuple[str, int, int | None]]
    evicted: list[int]


@dataclass(frozen=True)
class VectorRow:
    """One entry's vector and partition, as the index is built from (blob: float32 bytes)."""

    seq: int
    tenant: str
    context_hash: str
    prompt_norm: str
    vector: bytes


@dataclass(frozen=True)
class LookupRecord:
    """The bookkeeping of one lookup, written by a :class:`~lastline.cache._recorder.LookupRecorder`.

    ``lookup_id`` is made before the write (so the lookup can return it without waiting for the
    write); ``None`` when lookup records are turned off. ``entry_seq`` names the served entry, whose
    hit count and last-hit time are bumped; ``outcome`` is the window counter's key (a layer, or
    ``miss:<reason>``) and ``bucket`` its time bucket.
    """

    tenant: str
    mode: str
    outcome: str
    bucket: int
    at: float
    lookup_id: str | None = None
    entry_seq: int | None = None
    entry_id: str | None = None
    layer: str | None = None
    similarity: float | None = None


@dataclass(frozen=True)
class FeedbackRow:
    """One judgement of a served answer."""

    layer: str | None
    similarity: float | None
    correct: bool


@dataclass(frozen=True)
class SyncState:
    """The counters read before catching up: last seq handed out, deletion-log head, pruned-through."""

    last_seq: int
    log_head: int
    pruned_through: int
