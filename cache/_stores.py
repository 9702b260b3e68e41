"""Which :class:`~lastline.cache._store_api.CacheStore` serves a backend: SQLite or PostgreSQL."""

from __future__ import annotations

from lastline import PostgresStorage, SQLiteStorage

from ._pg_store import PostgresCacheStore
from ._store import SQLiteCacheStore
from ._store_api import CacheStore

__all__ = ["open_cache_store"]


def open_cache_store(storage: SQLiteStorage | PostgresStorage) -> CacheStore:
    """The cache store of the service's backend."""
    if isinstance(storage, SQLiteStorage):
        return SQLiteCacheStore(storage)
    return PostgresCacheStore(storage)
