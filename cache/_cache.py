"""``SemanticCache``: put an answer, look it up again — exactly, nearly, or by meaning — safely.

A lookup tries the cheapest layer first and stops at the first hit:

1. ``exact``    normalized-text hash in the same tenant + context (one indexed SQLite read);
2. ``fuzzy``    the same text up to in-word typos (rapidfuzz ratio pre-filter + a token check),
                among the partition's prompts when the partition is small, else among the kNN
                neighbours (never a scan of everything);
3. ``semantic`` FAISS kNN in the (tenant, context) partition, cosine ≥ the tenant's threshold;

fuzzy and semantic candidates must pass the slot guard (values agree), and every candidate must
be fresh — except in ``fallback`` mode, where an expired entry answers as ``stale``, confidence low.

Writes follow house rule 5: the SQLite transaction commits, then the FAISS partition is updated
in the same call; at construction the index is rebuilt from SQLite, and every FAISS id a search
returns is re-read from SQLite (tenant and context re-checked) before it can answer. Commits made
by other connections (other processes, or other objects on the same file) reach the index at the
next lookup through :meth:`SemanticCache.sync` (see ``_sync.py``).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterable
from typing import Any

import numpy as np

from lastline import Embedder, InvalidInput, Storage

from . import _validate as v
from ._config import CacheConfig, LookupResult, Mode
from ._entries_api import EntriesMixin
from ._fuzzy import typo_similarity
from ._index import VectorIndex
from ._store import EntryRow, NewEntry, Store, context_hash
from ._sync import IndexSync, SyncReport, add_rows
from ._thresholds_api import ThresholdsMixin
from .slot_guard import SlotGuard

__all__ = ["SemanticCache"]

_UNSET: Any = object()
_PRUNE_EVERY = 10_000
#: How long a lookup waits for the write lock (held by this process's own puts, ≈1 ms) to catch up
#: with other processes' commits before it goes ahead on the current index; while a catch-up or a
#: rebuild runs in another thread it does not wait at all.
_SYNC_WAIT_S = 0.005


class SemanticCache(ThresholdsMixin, EntriesMixin):
    """The semantic cache over one storage and one embedder (see the module docstring)."""

    def __init__(self, storage: Storage, embedder: Embedder, config: CacheConfig | None = None) -> None:
        self.storage = storage
        self.embedder = embedder
        self.config = config or CacheConfig()
        self.guard = SlotGuard()
        self._store = Store(storage)
        self.model_id = embedder.model_id
        self._lookups = 0
        self._write_lock = threading.Lock()  # orders SQLite commit + FAISS update per write
        self._sync = IndexSync(storage, self._store, self.model_id)
        self._syncing = False  # a catch-up or rebuild holds the write lock: lookups do not wait for it
        self.index = self._new_index()
        self.rebuild()

    # -- index ---------------------------------------------------------------------------------
    def _new_index(self) -> VectorIndex:
        c = self.config
        return VectorIndex(self.embedder.dim, hnsw_threshold=c.hnsw_threshold, hnsw_m=c.hnsw_m,
                           ef_search=c.hnsw_ef_search, ef_construction=c.hnsw_ef_construction,
                           fuzzy_scan_limit=c.fuzzy_scan_limit)

    def rebuild(self) -> int:
        """Re-embed rows of another model id, then rebuild FAISS from SQLite; return vector count."""
        with self._write_lock:
            return self._rebuild_locked()

    def _rebuild_locked(self) -> int:
        """The rebuild proper, under the write lock; lookups keep using the old index until the swap."""
        self._syncing = True
        try:
            while rows := self._store.foreign_model_rows(self.model_id, 512):
                self._store.set_vectors(self.model_id, [r[0] for r in rows],
                                        self.embedder.encode([self._embed_text(r[1]) for r in rows]))
            state = self._sync.state()  # before the rows: later commits are caught up from here
            index = self._new_index()
            for batch in self._store.vectors(self.model_id):
                add_rows(index, batch)
            self.index = index
            self._sync.mark(state)
            return len(index)
        finally:
            self._syncing = False

    def sync(self) -> SyncReport:
        """Bring the index up to date with commits made through other connections; cheap when none.

        Every lookup, ``score`` and ``stats`` calls it first. Another process's inserts are added,
        its deletions (evictions, invalidations, replaced keys) removed; a watermark older than the
        pruned deletion log means a full rebuild. Waits at most ``_SYNC_WAIT_S`` for the write lock.
        """
        if not self._sync.due():
            return SyncReport()
        if self._syncing or not self._write_lock.acquire(timeout=_SYNC_WAIT_S):
            return SyncReport(skipped=True)
        try:
            self._syncing = True
            report = self._sync.catch_up(self.index)
            if report is None:
                self._rebuild_locked()
                report = SyncReport(rebuilt=True)
        finally:
            self._syncing = False
            self._write_lock.release()
        if not report.pending:
            self._sync.seen()
        return report

    @staticmethod
    def _embed_text(prompt: str) -> str:
        from lastline import normalize_text

        return normalize_text(prompt)

    # -- writes --------------------------------------------------------------------------------
    def put(self, prompt: str, response: str, *, tenant: str = "default", context: Any = None,
            ttl_s: float | None = None, tags: Iterable[str] = (), metadata: dict[str, Any] | None = None,
            exact_only: bool = False) -> str:
        """Store ``response`` for ``prompt``; returns the entry id (same id when replacing a key).

        ``exact_only`` entries (e.g. a tool's last good result keyed by its canonical arguments)
        answer only exact lookups: they get no vector and never match by similarity.
        """
        item = {"prompt": prompt, "response": response, "context": context, "ttl_s": ttl_s,
                "tags": tags, "metadata": metadata, "exact_only": exact_only}
        return self.put_many([item], tenant=tenant)[0]

    def put_many(self, items: Iterable[dict[str, Any]], *, tenant: str = "default") -> list[str]:
        """Store many entries with one encode call and one transaction (for imports)."""
        v.check_tenant(tenant)
        now = time.time()
        prepared: list[tuple[dict[str, Any], str, str, str, float | None]] = []
        for n, item in enumerate(items):
            if not isinstance(item, dict):
                raise InvalidInput(f"item {n} must be an object with prompt and response")
            norm, phash = v.check_prompt(item.get("prompt"), self.config.max_prompt_chars)
            response = item.get("response")
            if not isinstance(response, str):
                raise InvalidInput("response must be a string", field="response", item=n)
            v.check_utf8(response, "response")
            if len(response) > self.config.max_response_chars:
                raise InvalidInput(f"response exceeds {self.config.max_response_chars} characters",
                                   field="response", item=n)
            ttl = v.check_ttl(item.get("ttl_s"))
            ttl = self.config.default_ttl_s if ttl is None else ttl
            ctx = context_hash(v.check_context(item.get("context")))
            prepared.append((item, norm, phash, ctx, None if ttl is None else now + ttl))
        if not prepared:
            return []
        semantic = [i for i, p in enumerate(prepared) if not p[0].get("exact_only")]
        vectors = self.embedder.encode([prepared[i][1] for i in semantic]) if semantic else None
        vec_of = {i: vectors[j] for j, i in enumerate(semantic)} if vectors is not None else {}
        entries = [
            NewEntry(tenant=tenant, context_hash=ctx, prompt=item["prompt"], prompt_norm=norm,
                     prompt_hash=phash, response=item["response"], vector=vec_of.get(i),
                     model_id=self.model_id if i in vec_of else None, expires_at=expires,
                     tags=v.check_tags(item.get("tags")), metadata=v.check_metadata(item.get("metadata")))
            for i, (item, norm, phash, ctx, expires) in enumerate(prepared)
        ]
        with self._write_lock:
            with self.storage.atomic():  # rows, tags and LRU eviction commit together
                written = self._store.insert(entries, now)
                evicted = self._store.evict_lru(tenant, self.config.max_entries, self.config.max_bytes)
            replaced = {old for _, _, old in written if old is not None}  # incl. repeats within the batch
            self.index.remove(list(replaced))
            by_part: dict[tuple[str, str], tuple[list[int], list[Any], list[str]]] = {}
            for i, ((_, seq, _), entry) in enumerate(zip(written, entries, strict=True)):
                if i in vec_of and seq not in replaced:
                    ids, vecs, norms = by_part.setdefault((tenant, entry.context_hash), ([], [], []))
                    ids.append(seq)
                    vecs.append(vec_of[i])
                    norms.append(entry.prompt_norm)
            for key, (ids, vecs, norms) in by_part.items():
                self.index.add(key, ids, np.stack(vecs), norms)
            self.index.remove(evicted)
        return [entry_id for entry_id, _, _ in written]

    def delete(self, entry_id: str, *, tenant: str = "default") -> bool:
        """Remove one entry (SQLite row and vector); False when the tenant has no such id."""
        with self._write_lock:
            seqs = self._store.delete_where(v.check_tenant(tenant), "id = ?", (entry_id,))
            self.index.remove(seqs)
        return bool(seqs)

    def invalidate(self, *, tenant: str = "default", tags: Iterable[str] | None = None,
                   older_than_s: float | None = None, context: Any = _UNSET, everything: bool = False) -> int:
        """Remove the tenant's entries matching every given criterion; returns how many.

        ``tags`` matches entries carrying any of them; ``older_than_s`` those created longer ago;
        ``context`` those stored under that context (``None`` is the no-context partition).
        With no criterion nothing is removed unless ``everything=True``.
        """
        v.check_tenant(tenant)
        where: list[str] = []
        params: list[Any] = []
        if tags is not None:
            tag_list = v.check_tags(tags)
            if not tag_list:
                raise InvalidInput("tags must name at least one tag", field="tags")
            marks = ",".join("?" * len(tag_list))
            where.append(f"seq IN (SELECT seq FROM cache_entry_tags WHERE tenant = ? AND tag IN ({marks}))")
            params += [tenant, *tag_list]
        if older_than_s is not None:
            if isinstance(older_than_s, bool) or not isinstance(older_than_s, int | float) or older_than_s < 0:
                raise InvalidInput("older_than_s must be a non-negative number", field="older_than_s")
            where.append("created_at <= ?")
            params.append(time.time() - older_than_s)
        if context is not _UNSET:
            where.append("context_hash = ?")
            params.append(context_hash(v.check_context(context)))
        if not where and not everything:
            raise InvalidInput("invalidate needs tags, older_than_s or context (or everything=True)")
        with self._write_lock:
            seqs = self._store.delete_where(tenant, " AND ".join(where) or "1", params)
            self.index.remove(seqs)
        return len(seqs)

    # -- reads ---------------------------------------------------------------------------------
    def lookup(self, prompt: str, *, tenant: str = "default", context: Any = None, mode: Mode = "intercept",
               threshold: float | None = None, exact_only: bool = False) -> LookupResult:
        """Find a cached answer for ``prompt`` (layers, guard and age as in the module docstring)."""
        from ._lookup import run_lookup

        self.sync()
        return run_lookup(self, prompt, tenant=tenant, context=context, mode=mode, threshold=threshold,
                          exact_only=exact_only)

    def score(self, prompt: str, *, tenant: str = "default", context: Any = None) -> tuple[str | None, float | None]:
        """Nearest entry and its cosine in the partition — no threshold, no guard, no age check."""
        v.check_tenant(tenant)
        norm, _ = v.check_prompt(prompt, self.config.max_prompt_chars)
        key = (tenant, context_hash(v.check_context(context)))
        self.sync()
        if not self.index.partition_size(key):
            return None, None
        hits = self.index.search(key, self.embedder.encode([norm])[0], self.config.knn_k)
        rows = self._store.by_seqs(tenant, key[1], [s for s, _ in hits])
        for seq, cos in hits:
            if seq in rows:
                return rows[seq].id, cos
        return None, None

    def _record(self, *, tenant: str, mode: str, outcome: str, now: float, hit: EntryRow | None,
                layer: str | None, similarity: float | None) -> str | None:
        """Count the lookup in its window, bump the served entry's LRU time, keep the lookup id."""
        lookup_id = self._store.record_lookup(
            tenant=tenant, mode=mode, outcome=outcome, bucket=int(now // self.config.stats_bucket_s), now=now,
            hit=hit, layer=layer, similarity=similarity, record=self.config.record_lookups)
        self._sync.own_write_done()
        self._lookups += 1
        if self._lookups % _PRUNE_EVERY == 0:
            self._store.prune(now - self.config.lookup_retention_s,
                              int((now - self.config.counter_retention_s) // self.config.stats_bucket_s))
            self._sync.prune_log(now - self.config.sync_log_retention_s)
        return lookup_id

    def slot_guard_ok(self, a: str, b: str) -> bool:
        """The value-agreement check used on fuzzy and semantic candidates."""
        return self.guard.ok(a, b)

    def fuzzy_match(self, a: str, b: str) -> float | None:
        """The fuzzy layer's text test (typo-only, ratio pre-filter) on two prompts, without the guard.

        Returns the similarity it would report (ratio / 100), or None when it would not match;
        ``None`` too for texts equal after normalization (that is the exact layer's hit).
        Exposed so benches and pair scoring judge pairs exactly as a lookup does.
        """
        from lastline import normalize_text

        na, nb = normalize_text(a), normalize_text(b)
        if not na or not nb or na == nb:
            return None
        return typo_similarity(na, nb, self.config.fuzzy_min_ratio)

    def count(self, *, tenant: str = "default") -> int:
        return self._store.usage(v.check_tenant(tenant))[0]

    def stats(self, *, tenant: str = "default", window_s: float | None = None) -> dict[str, Any]:
        """Hits by layer, misses by reason, hit rate, entries, feedback and thresholds."""
        from ._stats import build_stats

        self.sync()
        return build_stats(self, v.check_tenant(tenant), window_s)

