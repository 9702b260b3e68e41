"""``lastline db copy``: an existing SQLite file's every tier moved into a PostgreSQL database.

The target is opened as a :class:`~lastline.api.ladder.runtime.Runtime` and every tier is built on
it, so it carries the current schema before :func:`~lastline.api.ladder.copy_store.copy_tables`
moves the rows; the SQLite file is only read. The target must be empty; the copy is refused
otherwise. The knowledge base's keyword index, primary vectors and their HNSW index are rebuilt on the
target before the command returns, and so is the cache's HNSW index of each model when the deployment searches
pgvector (``LASTLINE_CACHE_VECTOR_INDEX=store``); what a replica keeps in memory is rebuilt from
the database when it starts.
"""

from __future__ import annotations

from pathlib import Path

from lastline import ConfigError, PostgresStorage, SQLiteStorage, load_settings
from lastline.cache import COPIED_TABLES as CACHE_TABLES
from lastline.kb import COPIED_TABLES as KB_TABLES
from lastline.postgres import TierTables
from lastline.rules.pg_store import COPIED_TABLES as RULES_TABLES

from . import pg_defaults_store, pg_events_store
from .copy_store import Progress, TableCopy, copy_tables
from .runtime import Runtime

__all__ = ["TIER_TABLES", "copy_database"]

#: Every tier, named as its :class:`Runtime` property, with the tables its PostgreSQL store declares.
TIER_TABLES: dict[str, TierTables] = {
    "rules": RULES_TABLES,
    "defaults": pg_defaults_store.COPIED_TABLES,
    "events": pg_events_store.COPIED_TABLES,
    "cache": CACHE_TABLES,
    "kb": KB_TABLES,
}


def _build(runtime: Runtime, tier: str) -> None:
    """Open ``tier`` on ``runtime`` (its store migrates the database)."""
    getattr(runtime, tier)  # each tier is a cached property named as in TIER_TABLES


def _target_runtime(target_url: str, owner_url: str | None) -> Runtime:
    """The target as the service will open it, without a seed and without the KB's background space.

    The English space is filled by the service itself (in the background) when it starts. The cache
    searches with FAISS here whatever the deployment's setting, so no HNSW graph is kept up row by
    row during the copy: :func:`copy_database` builds it once the rows are in.
    """
    return Runtime.open(load_settings(database_url=target_url, database_owner_url=owner_url, kb_seed=None,
                                      kb_english_embedder="none", cache_vector_index="faiss"))


def _reindex_kb(target_url: str, owner_url: str | None) -> None:
    """Open the target's knowledge base once: it rebuilds its keyword index and primary vectors now,
    then the primary space's HNSW index over them, in one pass (every replica searches it).

    (The KB's background spaces, such as the English one, fill — and get their index — when the
    service starts.)
    """
    runtime = _target_runtime(target_url, owner_url)
    try:
        _build(runtime, "kb")
        runtime.kb.build_search_indexes()
    finally:
        runtime.close()


def copy_database(source: Path, target_url: str, *, owner_url: str | None = None,
                  progress: Progress | None = None) -> list[TableCopy]:
    """Copy every tier of the SQLite file ``source`` into the empty database ``target_url``."""
    if not source.is_file():
        raise ConfigError(f"--from: no SQLite file at {source}")
    src = SQLiteStorage(source)  # read only: columns an older file lacks take the target's defaults
    try:
        dst = _target_runtime(target_url, owner_url)
        try:
            assert isinstance(dst.storage, PostgresStorage)
            for tier in TIER_TABLES:
                _build(dst, tier)  # every tier has a store on PostgreSQL: this migrates its tables
            copied = copy_tables(src, dst.storage, list(TIER_TABLES.values()), progress=progress)
            if load_settings(database_url=target_url, database_owner_url=owner_url).cache_vector_index == "store":
                dst.cache.store.build_vector_indexes()  # replicas search pgvector: its graph, in one pass
        finally:
            dst.close()
        _reindex_kb(target_url, owner_url)
        return copied
    finally:
        src.close()
