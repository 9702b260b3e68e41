"""The wired-up process: settings, storage, the embedder, the three tiers and the API's own stores.

Opened once for CLI and HTTP alike, so both faces get the same objects. Every tier is always
present; each is built on first use (a CLI command that needs only rules never loads the cache's
index), and :meth:`Runtime.build` builds them all before a server says it is ready.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Any

from lastline import (
    ConfigError,
    Embedder,
    PostgresStorage,
    Settings,
    SQLiteStorage,
    get_embedder,
    load_settings,
)
from lastline.admission import Bulkhead
from lastline.backends import open_settings_storage
from lastline.cache import CacheConfig, SemanticCache
from lastline.kb import KnowledgeBase
from lastline.rules import RuleEngine
from lastline.rules.store import open_pack_store
from lastline.writer import BatchWriter

from .defaults import Defaults, load_defaults_file
from .events import EventLog
from .events_store import NewEvent
from .kb_process import KBSearchProcess, open_knowledge_base
from .metrics import Metrics
from .stores import open_defaults_store, open_event_store

__all__ = ["Runtime"]


@dataclass
class Runtime:
    settings: Settings
    storage: SQLiteStorage | PostgresStorage
    embedder: Embedder
    #: Telemetry (lookup bookkeeping, degradation events) through the background writer — the
    #: server's choice. A one-shot CLI process writes it in the request instead: nothing to lose
    #: when it exits without closing.
    background: bool = False
    #: Model tokens the start-up warm-up prepared (``SemanticCache.warm``); None until it has run.
    warm_tokens: int | None = None
    #: Per KB search structure, the tenants whose copy the start-up built (``KnowledgeBase.warm``);
    #: None until it has run.
    kb_warmed: dict[str, int] | None = None

    @classmethod
    def open(cls, settings: Settings | None = None, *, background: bool = False, **overrides: Any) -> Runtime:
        """Read settings (failing by name), open storage and name the embedder (loaded lazily)."""
        settings = settings or load_settings(**overrides)
        storage = open_settings_storage(settings)
        embedder = get_embedder(settings.embedder, settings.embed_threads)
        return cls(settings=settings, storage=storage, embedder=embedder, background=background)

    def record_event(self, event: NewEvent) -> None:
        """One degradation event: queued for the background writer (a server), or written now (the CLI)."""
        if self.background:
            self.writer.submit(self.events.record_many, event)  # equal bound methods share one batch
        else:
            self.events.record_many([event])

    def build(self) -> None:
        """Load the model, build every tier and warm the cache's lookup path and the KB's in-memory
        search structures now, as a serving replica does before it says it is ready.

        The cache's FAISS index is rebuilt from the database; on PostgreSQL the KB's HNSW indexes
        are built over the vectors already there when missing (a CLI process that only writes never
        builds them: see ``KnowledgeBase.build_search_indexes``).
        """
        self.embedder.load()
        _ = self.cache, self.rules, self.kb
        self.kb.build_search_indexes()
        self.warm_tokens = self.cache.warm()  # a replica that says it is ready serves at full speed at once
        self.kb_warmed = self.kb.warm(self.settings.tenants)

    @cached_property
    def events(self) -> EventLog:
        """Degradation events (api_0001_events), hashes only unless log_content."""
        return EventLog(open_event_store(self.storage), log_content=self.settings.log_content)

    @cached_property
    def defaults(self) -> Defaults:
        """Declared per-task defaults and side-effect flags (file + api_0002_defaults)."""
        path = self.settings.defaults_file
        return Defaults(open_defaults_store(self.storage), load_defaults_file(path) if path is not None else {})

    @cached_property
    def metrics(self) -> Metrics:
        """Prometheus counters on a registry owned by this runtime (one per app)."""
        return Metrics(entries_source=self.cache_entry_counts)

    def cache_entry_counts(self) -> dict[str, int]:
        """``{tenant: entries}`` for every configured tenant (the ``lastline_cache_entries`` gauge)."""
        return {t: self.cache.count(tenant=t) for t in self.settings.tenants}

    @cached_property
    def cache(self) -> SemanticCache:
        """The semantic cache (cache_0001…); its FAISS index is rebuilt from SQLite here."""
        s = self.settings
        knobs = {"max_entries": s.cache_max_entries, "max_bytes": s.cache_max_bytes,
                 "hnsw_threshold": s.cache_hnsw_threshold, "vector_index": s.cache_vector_index}
        overrides: dict[str, Any] = {k: v for k, v in knobs.items() if v is not None}
        if s.cache_ttl_s is not None:  # unset keeps the cache's own default; 0 means never expire
            overrides["default_ttl_s"] = s.cache_ttl_s or None
        config = CacheConfig(max_prompt_chars=s.max_prompt_chars, **overrides)
        return SemanticCache(self.storage, self.embedder, config,
                             writer=self.writer if self.background else None, past_exact=self.bulkheads["semantic"])

    @cached_property
    def kb(self) -> KnowledgeBase:
        """The knowledge base (kb_0001_…); an empty KB is seeded from LASTLINE_KB_SEED for every tenant."""
        kb = open_knowledge_base(self.settings, self.storage, self.embedder)
        if self.settings.kb_seed is not None:
            seed = self.settings.kb_seed.expanduser()
            if not seed.exists():
                raise ConfigError(f"LASTLINE_KB_SEED: no file or folder at {seed}")
            for tenant in self.settings.tenants:
                kb.seed(seed, tenant=tenant)
        return kb

    @cached_property
    def kb_searches(self) -> KnowledgeBase | KBSearchProcess:
        """Where the server's KB searches and answers run: a process of their own (``kb_process``),
        off the lookups' interpreter lock (docs/reliability.md, "The KB's own process"); the CLI's,
        and with ``kb_process`` off the server's, run here."""
        if self.background and self.settings.kb_process:
            calls = self.metrics.kb_calls
            return KBSearchProcess(self.settings, self.kb, nice=self.settings.kb_nice, slots=self.settings.limit_kb,
                                   observer=lambda ran_in: calls.labels(ran_in=ran_in).inc())
        return self.kb

    def start_kb_process(self) -> None:
        """Spawn the KB's search process now, without waiting for it (a server's start-up)."""
        if isinstance(self.kb_searches, KBSearchProcess):
            self.kb_searches.start()

    @cached_property
    def rules(self) -> RuleEngine:
        """Rule packs: built-in, the ``rules_dir`` folder (if present) and uploads (rules_0001_packs)."""
        return RuleEngine(open_pack_store(self.storage), rules_dir=self.settings.rules_dir)

    @cached_property
    def writer(self) -> BatchWriter:
        """The background batching writer for telemetry (docs/reliability.md); counts go to /metrics."""
        metrics = self.metrics
        return BatchWriter(interval_s=self.settings.writer_interval_s,
                           observer=lambda outcome, n: metrics.writer.labels(outcome=outcome).inc(n))

    @cached_property
    def bulkheads(self) -> dict[str, Bulkhead]:
        """Bounded work in flight per kind (docs/reliability.md): the door and the ladder's tier calls.

        ``semantic`` sits inside ``cache``: a lookup admitted at the door takes one of its slots only once
        the exact key missed, so cheap exact hits are bounded by ``cache`` and the costly rest by both.
        """
        s = self.settings
        share = s.tenant_share if s.multi_tenant else 1.0
        limits = {"cache": s.cache_slots, "semantic": s.semantic_slots, "kb": s.limit_kb, "rules": s.limit_rules,
                  "writes": s.limit_writes, "ladder": s.limit_ladder}
        # Short lines for the slow KB searches and writes (docs/reliability.md, "The KB's line", "A line for writes")
        queue = {"kb": s.queue_kb, "writes": s.queue_writes}
        return {name: Bulkhead(name, limit, tenant_share=share, queue=queue.get(name, 0),
                               max_wait_s=s.queue_wait_s)
                for name, limit in limits.items()}

    def flush_telemetry(self) -> None:
        """Reads that must see this process's own telemetry (events, stats, reports) call this first."""
        if "writer" in vars(self):
            self.writer.flush()

    def close(self) -> None:
        """Stop the cache's lookup thread, flush the writer, stop the tier threads and the KB's worker,
        checkpoint the WAL, close storage."""
        if "cache" in vars(self):
            self.cache.close()  # its last lookups record into the writer
        if "writer" in vars(self):
            self.writer.close()
        for bulkhead in vars(self).get("bulkheads", {}).values():
            bulkhead.close()
        searches = vars(self).get("kb_searches")
        if isinstance(searches, KBSearchProcess):
            searches.close()
        if "kb" in self.__dict__:
            self.kb.close()  # stop its background worker before the storage it writes to
        self.storage.checkpoint()
        self.storage.close()
