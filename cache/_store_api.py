"""The cache's store interface: everything the cache asks of persistent storage, and nothing else.

The seam between the cache's logic and its backend. :class:`~lastline.cache._store.SQLiteCacheStore`
implements it over :class:`lastline.Storage`; a PostgreSQL store implements the same methods. No
caller outside a store module writes SQL or opens a transaction: a write that must be atomic (rows,
tags and LRU eviction; a batch of lookup bookkeeping) is one method here.

Grouped as the data is:

- entries: insert (with LRU eviction), reads by key / seq / id, deletes, usage, vectors;
- lookups: bookkeeping records (hit counts, window counters, lookup ids), retention, counters;
- feedback: judgements of served answers;
- thresholds: the stored calibrated thresholds;
- change tracking: what other connections committed, for the derived vector index to catch up.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Protocol

import numpy as np

from ._config import Threshold
from ._rows import EntryRow, FeedbackRow, InsertResult, LookupRecord, NewEntry, SyncState, VectorRow

__all__ = ["CacheStore"]


class CacheStore(Protocol):
    """Typed persistence for one cache (see the module docstring)."""

    #: Whether reads are answered inside this process (an embedded file): then a read by key is cheap
    #: enough to run on an event loop. False for a database across the network.
    local_reads: bool

    # -- entries -------------------------------------------------------------------------------
    def insert(self, entries: Sequence[NewEntry], now: float, *, max_entries: int, max_bytes: int
               ) -> InsertResult:
        """Write entries (same key → replaced, same public id), then evict LRU entries of each
        tenant written to until it is within both caps; one transaction."""
        ...

    def by_key(self, tenant: str, ctx: str, prompt_hash: str) -> EntryRow | None: ...

    def by_seqs(self, tenant: str, ctx: str, seqs: Iterable[int]) -> dict[int, EntryRow]:
        """Rows for index ids, re-checked against tenant and context (the store has the last word)."""
        ...

    def by_id(self, tenant: str, entry_id: str) -> EntryRow | None: ...

    def delete_entry(self, tenant: str, entry_id: str) -> list[int]:
        """Delete one entry; return its seq (empty when the tenant has no such id)."""
        ...

    def delete_matching(self, tenant: str, *, tags: Sequence[str] | None = None,
                        created_before: float | None = None, context_hash: str | None = None) -> list[int]:
        """Delete the tenant's entries matching every given criterion (all ``None``: every entry).

        ``tags``: carrying any of them; ``created_before``: created at or before that time;
        ``context_hash``: stored under that context. Returns the deleted seqs.
        """
        ...

    def usage(self, tenant: str) -> tuple[int, int]:
        """(entries, bytes) of the tenant."""
        ...

    def vectors(self, model_id: str, batch: int = 50_000) -> Iterable[list[VectorRow]]:
        """Every vector of one model, in seq order, in batches (a full index build)."""
        ...

    def vector_seqs(self, model_id: str, limit: int, *, after: int, upto: int) -> list[int]:
        """Seqs of the model's vectors with ``after < seq ≤ upto``, in seq order, at most ``limit``.

        Lets a catch-up skip the rows its index already holds (its own writes) without reading
        their vectors.
        """
        ...

    def vectors_at(self, model_id: str, seqs: Sequence[int]) -> list[VectorRow]:
        """The model's vector rows among ``seqs`` (all tenants), in seq order; gone ones left out."""
        ...

    def foreign_model_rows(self, model_id: str, limit: int) -> list[tuple[int, str]]:
        """(seq, prompt) of entries embedded by another model (to re-embed; never mixed)."""
        ...

    def recent_prompts(self, limit: int) -> list[str]:
        """Normalized prompts of the newest ``limit`` entries, all tenants (what a warm-up prepares for)."""
        ...

    def set_vectors(self, model_id: str, seqs: Sequence[int], vectors: np.ndarray) -> None: ...

    def value_candidates(self, tenant: str, ctx: str, values_key: str, limit: int) -> list[int]:
        """Seqs of the partition's vector entries stored under ``values_key`` (newest first, at most
        ``limit``); empty for the empty key."""
        ...

    def entries_without_values_key(self, limit: int) -> list[tuple[int, str]]:
        """(seq, prompt) of entries whose values key was never computed (written before it existed)."""
        ...

    def set_values_keys(self, keys: Sequence[tuple[int, str]]) -> None:
        """Store computed values keys, as (seq, key) pairs."""
        ...

    # -- lookups and counters -----------------------------------------------------------------
    def record_lookups(self, records: Sequence[LookupRecord]) -> None:
        """Write a batch of lookup bookkeeping in one transaction: hit count and last-hit time of each
        served entry, the window counters, and the lookup records that carry an id."""
        ...

    def prune(self, lookups_before: float, counters_before_bucket: int) -> int:
        """Drop lookup records and counter buckets past their retention; return how many rows."""
        ...

    def prune_expired(self, before: float, batch: int = 1_000) -> list[int]:
        """Delete entries that expired before ``before``, at most ``batch`` per transaction and a
        bounded number of batches per call (safe when several processes prune at once); return their seqs."""
        ...

    def lookup_record(self, tenant: str, lookup_id: str) -> tuple[str | None, str | None, float | None] | None:
        """(entry id, layer, similarity) of a recorded lookup."""
        ...

    def counters(self, tenant: str, since_bucket: int | None) -> dict[str, int]:
        """Lookups by outcome, summed over buckets from ``since_bucket`` (all when None)."""
        ...

    # -- feedback ------------------------------------------------------------------------------
    def add_feedback(self, *, tenant: str, entry_id: str | None, lookup_id: str | None,
                     layer: str | None, similarity: float | None, correct: bool, now: float) -> None: ...

    def feedback_counts(self, tenant: str, since: float | None) -> dict[str, int]:
        """``{"correct": n, "incorrect": m}`` since a time (all when None)."""
        ...

    def feedback(self, tenant: str) -> list[FeedbackRow]:
        """Every feedback row of the tenant, oldest first (calibration from feedback reads it)."""
        ...

    # -- thresholds ----------------------------------------------------------------------------
    def get_threshold(self, tenant: str, model_id: str, mode: str, language: str = "*") -> Threshold | None:
        """The threshold stored for exactly this language (``"*"``: any), or None."""
        ...

    def set_threshold(self, tenant: str, model_id: str, t: Threshold) -> None:
        """Store ``t`` under its mode and language (replacing what was there)."""
        ...

    def delete_thresholds(self, tenant: str, model_id: str, modes: Sequence[str], language: str | None = None) -> int:
        """Forget the stored thresholds of those modes (one language, or all when None); return how many."""
        ...

    def build_vector_indexes(self) -> list[tuple[str, int]]:
        """Build the database's own kNN index over each model's stored vectors where the backend has
        one (PostgreSQL: the HNSW index per model, for replicas that search there); return the
        (model id, dimension) pairs indexed. SQLite has none: FAISS is built per process."""
        ...

    # -- change tracking (for the derived index) ----------------------------------------------
    def change_token(self) -> tuple[int, int] | None:
        """A cheap token that changes when any connection but the calling thread's own commits, paired
        with the calling thread's own change count; None when the backend has no such token."""
        ...

    def sync_state(self) -> SyncState:
        """Last seq handed out, head of the deletion log, and how far the log was pruned."""
        ...

    def deleted_seqs(self, after: int, upto: int) -> list[int]:
        """Seqs the deletion log lists with ``after < log id ≤ upto``."""
        ...

    def prune_deletions(self, before: float) -> int:
        """Drop deletion-log rows older than ``before`` (a prefix by id); return how many."""
        ...
