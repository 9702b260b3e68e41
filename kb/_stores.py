"""Which :class:`~lastline.kb._store.KBStore` serves a backend: SQLite or PostgreSQL."""

from __future__ import annotations

from lastline import PostgresStorage, SQLiteStorage

from ._pg_store import PostgresKBStore
from ._sqlite_store import SQLiteKBStore
from ._store import KBStore

__all__ = ["open_kb_store"]


def open_kb_store(storage: SQLiteStorage | PostgresStorage) -> KBStore:
    """The KB store of the service's backend."""
    if isinstance(storage, PostgresStorage):
        return PostgresKBStore(storage)
    return SQLiteKBStore(storage)
