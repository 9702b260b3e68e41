"""Which :class:`~lastline.kb._store.KBStore` serves a backend: SQLite or PostgreSQL."""

from __future__ import annotations

from lastline import PostgresStorage, SQLiteStorage

from ._ann import AnnConfig
from ._bm25 import BM25Config
from ._pg_store import PostgresKBStore
from ._sqlite_store import SQLiteKBStore
from ._store import KBStore

__all__ = ["open_kb_store"]


def open_kb_store(storage: SQLiteStorage | PostgresStorage, *, ann: AnnConfig | None = None,
                  keywords: BM25Config | None = None) -> KBStore:
    """The KB store of the service's backend.

    ``ann`` configures the SQLite store's HNSW accelerator (:mod:`lastline.kb._ann`); PostgreSQL
    has pgvector's HNSW index inside the database instead and takes no such setting. ``keywords``
    configures the in-memory BM25 index (:mod:`lastline.kb._bm25`) on both backends.
    """
    if isinstance(storage, PostgresStorage):
        return PostgresKBStore(storage, keywords=keywords)
    return SQLiteKBStore(storage, ann=ann, keywords=keywords)
