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
next lookup through :meth:`SemanticCache.sync` (see ``_sync.py``); on PostgreSQL, other replicas'
commits within ``CacheConfig.replica_sync_s``. With ``vector_index="store"`` (PostgreSQL only) there
is no FAISS index at all: layer 3 is pgvector kNN in the database (``_neighbours.py``).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterable
from concurrent.futures import Future
from dataclasses import replace
from typing import TYPE_CHECKING, Any

import numpy as np

from lastline import ConfigError, Embedder, InvalidInput, PostgresStorage, SQLiteStorage, language_of, normalize_text
from lastline.admission import Bulkhead
from lastline.writer import BatchWriter

from . import _validate as v
from ._config import DEFAULT_MAX_BYTES, DEFAULT_MAX_ENTRIES, CacheConfig, LookupResult, Mode, Threshold
from ._feedback import record_feedback
from ._fuzzy import typo_similarity
from ._index import VectorIndex
from ._lookup import LookupPath, LookupSteps
from ._neighbours import STORE_EXACT_SCAN_LIMIT, STORE_FUZZY_SCAN_LIMIT, Neighbours, StoreNeighbours
from ._pg_store import PostgresCacheStore
from ._recorder import LookupRecorder, QueuedRecorder, StoreRecorder
from ._rounds import LookupRounds
from ._rows import NewEntry, context_hash
from ._stats import build_stats
from ._store_api import CacheStore
from ._stores import open_cache_store
from ._sync import IndexSync, SyncReport, add_rows
from ._tenant_thresholds import Thresholds
from ._values import values_key
from .slot_guard import SlotGuard

if TYPE_CHECKING:
    from .calibration import Calibration
    from .pairs import LabelledPairs
    from .served import ServedScores

__all__ = ["SemanticCache"]

_UNSET: Any = object()
#: How long a lookup waits for the write lock (held by this process's own puts, ≈1 ms) to catch up
#: with other processes' commits before it goes ahead on the current index; while a catch-up or a
#: rebuild runs in another thread it does not wait at all.
_SYNC_WAIT_S = 0.005
#: Stored prompts a warm-up reads (newest first): tokenizing them costs ≈0.05 ms each.
WARM_PROMPTS = 5_000
#: The longest prompt :meth:`SemanticCache.first_look` takes on. Normalizing costs ≈0.2 µs per
#: character (≈6 ms at the default 32,000-character limit), and on an event loop every other request of
#: the worker waits meanwhile; at this length ≈0.4 ms. Longer prompts are looked up on a thread whole.
#: The context has no bound of its own: checking and hashing it (canonical JSON) costs about 3.5 times
#: what parsing it from the request body cost the loop already (a 121 KB context: 1.3 against 0.4 ms).
FIRST_LOOK_MAX_CHARS = 2_000


class SemanticCache:
    """The semantic cache over one storage and one embedder (see the module docstring).

    A thin facade: the store (:class:`~lastline.cache._store_api.CacheStore`), the derived
    vector index, the thresholds, the lookup path and the bookkeeping recorder are collaborators
    it wires together; none of them reaches back into it.
    """

    def __init__(self, storage: SQLiteStorage | PostgresStorage, embedder: Embedder,
                 config: CacheConfig | None = None, *,
                 recorder: LookupRecorder | None = None, writer: BatchWriter | None = None,
                 past_exact: Bulkhead | None = None) -> None:
        self.storage = storage
        self.embedder = embedder
        self.config = config or CacheConfig()
        self.guard = SlotGuard()
        self.model_id = embedder.model_id
        self.store: CacheStore = open_cache_store(storage)
        shared = isinstance(storage, PostgresStorage)  # replicas elsewhere write to the same database
        c = self.config
        self.thresholds = Thresholds(self.store, self.model_id, c, ttl_s=min(c.threshold_cache_s, c.replica_sync_s)
                                     if shared else c.threshold_cache_s)
        self._write_lock = threading.Lock()  # orders SQLite commit + FAISS update per write
        self._sync = IndexSync(self.store, self.model_id, poll_s=c.replica_sync_s if shared else 0.0)
        self._syncing = False  # a catch-up or rebuild holds the write lock: lookups do not wait for it
        self.index = self._new_index()
        #: FAISS (``self.index``) unless ``vector_index="store"``: then the database answers kNN
        #: and the FAISS index stays empty (nothing to rebuild, nothing to keep in step).
        self._faiss = c.vector_index == "faiss"
        self.neighbours: Neighbours = self.index
        if not self._faiss:
            if not isinstance(self.store, PostgresCacheStore):
                raise ConfigError("vector_index='store' needs PostgreSQL (LASTLINE_DATABASE_URL);"
                                  " on SQLite the cache uses its FAISS index")
            self.neighbours = StoreNeighbours(self.store, self.model_id,
                                              fuzzy_scan_limit=min(c.fuzzy_scan_limit, STORE_FUZZY_SCAN_LIMIT),
                                              exact_scan_limit=min(c.hnsw_threshold, STORE_EXACT_SCAN_LIMIT),
                                              ef_search=c.hnsw_ef_search)
            self.store.ensure_model_index(self.model_id, self.embedder.dim)  # the graph large partitions use
        #: Where lookups write their bookkeeping; by default synchronously through the store, or
        #: through ``writer`` (the background batching writer) in batches, off the read path.
        self.recorder: LookupRecorder = recorder or StoreRecorder(self.store, self._sync, self.config)
        if writer is not None:
            self.recorder = QueuedRecorder(writer, self.recorder)
        self._lookup = LookupPath(store=self.store, index=self.neighbours, embedder=embedder, guard=self.guard,
                                  thresholds=self.thresholds, recorder=self.recorder, config=self.config,
                                  past_exact=past_exact)
        #: The thread :meth:`submit_lookup` queues to; it starts with the first lookup queued.
        self.rounds = LookupRounds(embedder.encode, self.neighbours.nearest_many, before_round=self.sync)
        self.rebuild()

    # -- index ---------------------------------------------------------------------------------
    def _new_index(self) -> VectorIndex:
        c = self.config
        return VectorIndex(self.embedder.dim, hnsw_threshold=c.hnsw_threshold, hnsw_m=c.hnsw_m,
                           ef_search=c.hnsw_ef_search, ef_construction=c.hnsw_ef_construction,
                           fuzzy_scan_limit=c.fuzzy_scan_limit)

    def rebuild(self) -> int:
        """Fill in missing values keys, re-embed rows of another model id, then rebuild FAISS from
        the database; return the vector count (0 with ``vector_index="store"``: nothing to build)."""
        with self._write_lock:
            return self._rebuild_locked()

    def _rebuild_locked(self) -> int:
        """The rebuild proper, under the write lock; lookups keep using the old contents until the swap."""
        self._syncing = True
        try:
            while keyless := self.store.entries_without_values_key(512):  # rows older than the key
                self.store.set_values_keys([(seq, values_key(prompt)) for seq, prompt in keyless])
            while rows := self.store.foreign_model_rows(self.model_id, 512):
                self.store.set_vectors(self.model_id, [r[0] for r in rows],
                                       self.embedder.encode([normalize_text(r[1]) for r in rows]))
            state = self._sync.state()  # before the rows: later commits are caught up from here
            fresh = self._new_index()
            for batch in self.store.vectors(self.model_id) if self._faiss else ():
                add_rows(fresh, batch)
            self.index.replace_with(fresh)
            self._sync.mark(state)
            return len(self.index)
        finally:
            self._syncing = False

    def sync(self) -> SyncReport:
        """Bring the index up to date with commits made through other connections; cheap when none.

        Every lookup, ``score`` and ``stats`` calls it first. Another process's inserts are added,
        its deletions (evictions, invalidations, replaced keys) removed; a watermark older than the
        pruned deletion log means a full rebuild. Waits at most ``_SYNC_WAIT_S`` for the write lock.
        """
        if not self._faiss or not self._sync.due():
            return SyncReport()  # kNN in the database has nothing to catch up
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
                     tags=v.check_tags(item.get("tags")), metadata=v.check_metadata(item.get("metadata")),
                     values_key=values_key(item["prompt"]) if i in vec_of else "")
            for i, (item, norm, phash, ctx, expires) in enumerate(prepared)
        ]
        with self._write_lock:
            result = self.store.insert(entries, now, max_entries=self.config.max_entries,
                                       max_bytes=self.config.max_bytes)
            written, evicted = result.written, result.evicted
            replaced = {old for _, _, old in written if old is not None}  # incl. repeats within the batch
            if not self._faiss:
                return [entry_id for entry_id, _, _ in written]
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
            seqs = self.store.delete_entry(v.check_tenant(tenant), entry_id)
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
        tag_list: tuple[str, ...] | None = None
        if tags is not None:
            tag_list = v.check_tags(tags)
            if not tag_list:
                raise InvalidInput("tags must name at least one tag", field="tags")
        created_before: float | None = None
        if older_than_s is not None:
            if isinstance(older_than_s, bool) or not isinstance(older_than_s, int | float) or older_than_s < 0:
                raise InvalidInput("older_than_s must be a non-negative number", field="older_than_s")
            created_before = time.time() - older_than_s
        ctx = None if context is _UNSET else context_hash(v.check_context(context))
        if tag_list is None and created_before is None and ctx is None and not everything:
            raise InvalidInput("invalidate needs tags, older_than_s or context (or everything=True)")
        with self._write_lock:
            seqs = self.store.delete_matching(tenant, tags=tag_list, created_before=created_before,
                                              context_hash=ctx)
            self.index.remove(seqs)
        return len(seqs)

    # -- reads ---------------------------------------------------------------------------------
    def warm(self, prompts: int = WARM_PROMPTS) -> int:
        """Prepare a fresh process for the lookups to come; return the model tokens prepared.

        Why: a process's first lookups pay for what loads on first use (the guard's word lists and
        jieba's dictionary, the model's per-token stages, its fallback tokenizer): measured in process
        over 2,000 QQP entries, a new process's first 250 lookups cost ≈6.6 ms of CPU each against
        ≈2.3 ms once warm. Lookups
        that can hit resemble stored prompts, so the model prepares for the words of the newest
        ``prompts`` of them (:meth:`lastline.embedding.Embedder.warm`).
        """
        self.guard.warm()
        return self.embedder.warm(self.store.recent_prompts(prompts))

    def lookup(self, prompt: str, *, tenant: str = "default", context: Any = None, mode: Mode = "intercept",
               threshold: float | None = None, exact_only: bool = False) -> LookupResult:
        """Find a cached answer for ``prompt`` (layers, guard and age as in the module docstring)."""
        self.sync()
        return self._lookup.run(prompt, tenant=tenant, context=context, mode=mode, threshold=threshold,
                                exact_only=exact_only)

    def submit_lookup(self, prompt: str, *, tenant: str = "default", context: Any = None,
                      mode: Mode = "intercept", threshold: float | None = None,
                      exact_only: bool = False) -> Future[LookupResult]:
        """:meth:`lookup` on the cache's lookup thread, whose rounds share one model call (``_rounds.py``).

        For a server's concurrent lookups when reads stay in this process (:attr:`reads_locally`):
        a lookup whose reads leave it (PostgreSQL) would hold the round on each round trip, so those
        go through :meth:`lookup` on a thread of their own. The future gets what :meth:`lookup`
        would return or raise.

        The lookup's ``past_exact`` slot is taken here, before it queues, and freed when its future is
        done: so the slots bound the queue too, and the caller's :meth:`first_look` refuses at once
        what would find every slot taken. A slot taken meanwhile by another thread leaves the lookup
        to try again in its round, where it is refused (or served stale) as :meth:`lookup` would be.
        """
        def steps(slot_held: bool) -> LookupSteps:
            return self._lookup.steps(prompt, tenant=tenant, context=context, mode=mode, threshold=threshold,
                                      exact_only=exact_only, slot_held=slot_held)

        slots = self._lookup.past_exact
        if slots is None or slots.try_acquire(tenant) is not None:
            return self.rounds.submit(steps(False))
        try:
            future = self.rounds.submit(steps(True))
        except BaseException:
            slots.release(tenant)
            raise
        future.add_done_callback(lambda _: slots.release(tenant))
        return future

    def close(self) -> None:
        """Finish the lookups queued by :meth:`submit_lookup` and stop their thread (the storage stays open)."""
        self.rounds.close()

    def first_look(self, prompt: str, *, tenant: str = "default", context: Any = None, mode: Mode = "intercept",
                   threshold: float | None = None, exact_only: bool = False,
                   hits_only: bool = False) -> LookupResult | None:
        """What :meth:`lookup` answers from the exact key alone, or None: cheap enough for an event loop.

        A fresh exact hit (or an ``exact_only`` lookup's result) as :meth:`lookup` would give it; a
        refusal when the lookup would need a slot past the exact key and none is free; None otherwise,
        nothing recorded, and :meth:`lookup` decides. With ``hits_only``, fresh exact hits alone and
        never a refusal (the ladder's first look: it has rungs below the cache). None at once when the
        store's reads leave the process (PostgreSQL, :attr:`reads_locally`): the loop would wait on the
        network; and for a prompt longer than :data:`FIRST_LOOK_MAX_CHARS`: normalizing it would hold
        the loop.
        """
        if not self.reads_locally or len(prompt) > FIRST_LOOK_MAX_CHARS:
            return None
        return self._lookup.first_look(prompt, tenant=tenant, context=context, mode=mode, threshold=threshold,
                                       exact_only=exact_only, hits_only=hits_only)

    @property
    def reads_locally(self) -> bool:
        """Whether a read by key stays in this process (the embedded file), cheap enough for an event loop."""
        return self.store.local_reads

    def score(self, prompt: str, *, tenant: str = "default", context: Any = None) -> tuple[str | None, float | None]:
        """Nearest entry and its cosine in the partition — no threshold, no guard, no age check."""
        v.check_tenant(tenant)
        norm, _ = v.check_prompt(prompt, self.config.max_prompt_chars)
        key = (tenant, context_hash(v.check_context(context)))
        self.sync()
        if self.neighbours.is_empty(key):
            return None, None
        hits = self.neighbours.search(key, self.embedder.encode([norm])[0], self.config.knn_k)
        rows = self.store.by_seqs(tenant, key[1], [s for s, _ in hits])
        for seq, cos in hits:
            if seq in rows:
                return rows[seq].id, cos
        return None, None

    def slot_guard_ok(self, a: str, b: str) -> bool:
        """The value-agreement check used on fuzzy and semantic candidates."""
        return self.guard.ok(a, b)

    def fuzzy_match(self, a: str, b: str) -> float | None:
        """The fuzzy layer's text test (typo-only, ratio pre-filter) on two prompts, without the guard.

        Returns the similarity it would report (ratio / 100), or None when it would not match;
        ``None`` too for texts equal after normalization (that is the exact layer's hit).
        Exposed so benches and pair scoring judge pairs exactly as a lookup does.
        """
        na, nb = normalize_text(a), normalize_text(b)
        if not na or not nb or na == nb:
            return None
        return typo_similarity(na, nb, self.config.fuzzy_min_ratio)

    def count(self, *, tenant: str = "default") -> int:
        """Entries the tenant holds."""
        return self.store.usage(v.check_tenant(tenant))[0]

    def stats(self, *, tenant: str = "default", window_s: float | None = None) -> dict[str, Any]:
        """Hits by layer, misses by reason, hit rate, entries, feedback and thresholds."""
        self.recorder.flush()
        self.sync()
        return build_stats(store=self.store, thresholds=self.thresholds, index=self.index, config=self.config,
                           tenant=v.check_tenant(tenant), window_s=window_s)

    # -- entries and feedback ------------------------------------------------------------------
    def get(self, entry_id: str, *, tenant: str = "default") -> dict[str, Any]:
        """One entry as a dict (no vector); NotFound when the tenant has no such id."""
        from lastline import NotFound

        self.recorder.flush()  # its hit count includes this caller's lookups
        row = self.store.by_id(v.check_tenant(tenant), entry_id)
        if row is None:
            raise NotFound(f"no cache entry {entry_id!r}", entry_id=entry_id)
        return row.to_dict()

    def feedback(self, *, tenant: str = "default", correct: bool, entry_id: str | None = None,
                 lookup_id: str | None = None) -> None:
        """Record whether a served answer was right; wrong ones count as false hits in stats."""
        self.recorder.flush()  # a lookup id just returned must be found
        record_feedback(self.store, tenant=tenant, correct=correct, entry_id=entry_id, lookup_id=lookup_id)

    # -- thresholds ----------------------------------------------------------------------------
    def get_threshold(self, *, tenant: str = "default", mode: Mode = "intercept", language: str = "*") -> Threshold:
        """The threshold lookups in ``language`` (``en``, ``zh``; ``*`` any) use for ``tenant`` in ``mode``.

        Reused for ``config.threshold_cache_s`` seconds (a lookup needs it on every call);
        ``set_threshold`` in this process takes effect at once, in another within that time.
        """
        return self.thresholds.get(tenant, mode, language)

    def set_threshold(self, *, tenant: str = "default", threshold: Threshold) -> None:
        """Store ``threshold`` for ``tenant`` (its ``mode``; its model id, else this cache's)."""
        self.thresholds.set(tenant, threshold)

    def reset_threshold(self, *, tenant: str = "default", mode: Mode | None = None, language: str | None = None
                        ) -> int:
        """Forget stored thresholds (one mode or both, one language or all); the shipped default applies again."""
        return self.thresholds.reset(tenant, mode, language)

    def calibrate(self, pairs: LabelledPairs | None = None, *, tenant: str = "default", target: float = 0.02,
                  method: str = "wilson", confidence: float = 0.95, mode: Mode = "intercept",
                  from_feedback: bool = False, store: bool = True, source: str | None = None,
                  partition_size: int | None = None, language: str | None = None) -> Calibration:
        """Calibrate ``tenant``'s threshold from labelled pairs or from feedback on served hits, and store it.

        The one path behind ``lastline cache calibrate`` and ``POST /v1/cache/calibrate``. Pairs are
        judged on *served decisions* (:mod:`lastline.cache.served`): their ``question1``s go into a
        scratch cache of ``partition_size`` entries (default: the tenant's size now, or every
        ``question1`` when it is empty or smaller), every ``question2`` is looked up there through the
        real lookup path, and an answer is right only when it is a known duplicate (classes from the
        labels). The threshold is the lowest whose upper bound on the share of lookups with no right
        answer stored that are served one stays ≤ ``target``; it is stored with the partition size it
        was measured at and ``recalibrate_above`` (twice that). ``language`` (``en``/``zh``/``*``)
        defaults to the pairs' own (``*`` when mixed). ``store=False`` is a dry run.
        """
        from .calibration import calibrate, calibrate_from_feedback

        v.check_tenant(tenant)
        v.check_mode(mode)
        if language is not None:
            v.check_language(language)
        if (pairs is None) != from_feedback:
            raise InvalidInput("give labelled pairs, or from_feedback (not both)", field="pairs")
        if pairs is not None:
            lang = language or _pairs_language(pairs)
            served = self._served_scores(pairs, tenant, partition_size)
            try:
                cal = calibrate(served.scores, served.labels, target, method=method, confidence=confidence)
            except InvalidInput as exc:
                raise InvalidInput(f"{exc.detail} (served decisions: the non-duplicates here are question2s "
                                   f"with no known duplicate among the {served.partition_size} stored "
                                   "question1s)", field="pairs") from None
            cal = replace(cal, basis="served", partition_size=served.partition_size, language=lang,
                          precision=float(served.at(cal.threshold)["precision"]))
        else:
            lang = language or "*"
            rows = [(f.similarity, f.correct) for f in self.store.feedback(tenant)
                    if f.layer == "semantic" and f.similarity is not None]
            cal = replace(calibrate_from_feedback([sim for sim, _ in rows], [ok for _, ok in rows], target,
                                                  method=method, confidence=confidence), language=lang)
        if store:
            size = cal.partition_size
            self.set_threshold(tenant=tenant, threshold=Threshold(
                value=cal.threshold, calibrated=True, target=cal.target, bound=cal.bound,
                n_negatives=cal.n_negatives, model_id=self.model_id, mode=mode, language=lang,
                source=source or ("feedback" if from_feedback else "pairs"), partition_size=size,
                recalibrate_above=None if size is None else 2 * size))
        return cal

    def _served_scores(self, pairs: LabelledPairs, tenant: str, partition_size: int | None) -> ServedScores:
        """Judge ``pairs`` on a scratch cache (temporary SQLite file, same model and settings)."""
        import tempfile
        from pathlib import Path

        from .served import memo_embedder, score_served

        if partition_size is not None and (isinstance(partition_size, bool) or not isinstance(partition_size, int)
                                           or partition_size < 1):
            raise InvalidInput("partition_size must be a positive integer", field="partition_size")
        size = partition_size if partition_size is not None else (self.count(tenant=tenant) or None)
        config = replace(self.config, record_lookups=False, default_ttl_s=None, max_entries=DEFAULT_MAX_ENTRIES,
                         max_bytes=DEFAULT_MAX_BYTES)
        with tempfile.TemporaryDirectory(prefix="lastline-calibrate-") as folder:
            storage = SQLiteStorage(Path(folder) / "scratch.db")
            try:
                scratch = SemanticCache(storage, memo_embedder(self.embedder, pairs), config)
                return score_served(scratch, pairs, partition_size=size)
            finally:
                storage.close()


def _pairs_language(pairs: LabelledPairs) -> str:
    """``zh`` or ``en`` when nine in ten looked-up questions are in that language, else ``*``."""
    langs = [language_of(q) for q in pairs.second]
    zh = langs.count("zh") / len(langs)
    return "zh" if zh >= 0.9 else "en" if zh <= 0.1 else "*"
