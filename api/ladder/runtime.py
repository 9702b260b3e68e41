"""The wired-up process: settings, storage and the embedder, opened once for CLI and HTTP alike.

Tiers attach here as they are built, so both faces of the API get the same objects.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Any

from lastline import Embedder, Settings, SQLiteStorage, get_embedder, load_settings, open_storage

if TYPE_CHECKING:
    from lastline.cache import SemanticCache
    from lastline.kb import KnowledgeBase
    from lastline.rules import RuleEngine

    from ..http.metrics import Metrics
    from .defaults import DefaultsStore
    from .events import EventStore

__all__ = ["Runtime"]


@dataclass
class Runtime:
    settings: Settings
    storage: SQLiteStorage
    embedder: Embedder
    extras: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def open(cls, settings: Settings | None = None, **overrides: Any) -> Runtime:
        """Read settings (failing by name), open storage and name the embedder (loaded lazily)."""
        settings = settings or load_settings(**overrides)
        storage = open_storage(settings.db)
        embedder = get_embedder(settings.embedder, settings.embed_threads)
        return cls(settings=settings, storage=storage, embedder=embedder)

    @cached_property
    def events(self) -> EventStore:
        """Degradation events (api_0001_events), hashes only unless log_content."""
        from .events import EventStore

        return EventStore(self.storage, log_content=self.settings.log_content)

    @cached_property
    def defaults(self) -> DefaultsStore:
        """Declared per-task defaults and side-effect flags (file + api_0002_defaults)."""
        from .defaults import DefaultsStore

        return DefaultsStore(self.storage, self.settings.defaults_file)

    @cached_property
    def metrics(self) -> Metrics:
        """Prometheus counters on a registry owned by this runtime (one per app)."""
        from ..http.metrics import Metrics
        from .reports import cache_entry_counts

        return Metrics(entries_source=lambda: cache_entry_counts(self))

    @cached_property
    def cache(self) -> SemanticCache:
        """The semantic cache (cache_0001…); its FAISS index is rebuilt from SQLite here."""
        from lastline.cache import CacheConfig, SemanticCache

        s = self.settings
        config = CacheConfig(default_ttl_s=s.cache_ttl_s, max_entries=s.cache_max_entries,
                             max_bytes=s.cache_max_bytes, hnsw_threshold=s.cache_hnsw_threshold,
                             max_prompt_chars=s.max_prompt_chars)
        return SemanticCache(self.storage, self.embedder, config)

    @cached_property
    def kb(self) -> KnowledgeBase:
        """The knowledge base (kb_0001_…); an empty default-tenant KB is seeded from LASTLINE_KB_SEED."""
        from lastline.kb import KnowledgeBase

        name = self.settings.kb_english_embedder  # the KB's English vector space; "none" turns it off
        english = None if name == "none" else get_embedder(name, self.settings.embed_threads)
        kb = KnowledgeBase(self.storage, self.embedder, english_embedder=english)
        if self.settings.kb_seed is not None:
            from lastline.errors import ConfigError

            seed = self.settings.kb_seed.expanduser()
            if not seed.exists():
                raise ConfigError(f"LASTLINE_KB_SEED: no file or folder at {seed}")
            for tenant in sorted(set(self.settings.api_keys.values())) or ["default"]:
                kb.seed(seed, tenant=tenant)
        return kb

    @cached_property
    def rules(self) -> RuleEngine:
        """Rule packs: built-in, the ``rules_dir`` folder (if present) and uploads (rules_0001_packs)."""
        from lastline.rules import RuleEngine
        from lastline.rules.store import SQLitePackStore

        return RuleEngine(SQLitePackStore(self.storage), rules_dir=self.settings.rules_dir)

    def close(self) -> None:
        self.storage.close()
