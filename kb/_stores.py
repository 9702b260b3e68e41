"""Which :class:`~lastline.kb._store.KBStore` serves a backend: SQLite or PostgreSQL."""

from __future__ import annotations

from lastline import PostgresStorage, SQLiteStorage

from ._ann import AnnConfig
from ._pg_store import PostgresKBStore
from ._sqlite_store import SQLiteKBStore
from ._store import KBStore

__all__ = ["open_kb_store"]


def open_kb_store(storage: SQLiteStorage | PostgresStorage, *, ann: AnnConfig | None = None) -> KBStore:
    """The KB store of the service's backend.

    ``ann`` configures the SQLite store's HNSW accelerator (:mod:`lastline.kb._ann`); PostgreSQL
    has pgvector's HNSW index inside the database instead and takes no such setting. The in-memory
    BM25 index (:mod:`lastline.kb._bm25`) is the knowledge base's, over either store.
    """
    if isinstance(storage, PostgresStorage):
        return PostgresKBStore(storage)
    return SQLiteKBStore(storage, ann=ann)
