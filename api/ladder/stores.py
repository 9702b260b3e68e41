"""Which store of the API's own tables (degradation events, declared defaults) serves a backend."""

from __future__ import annotations

from lastline.postgres import PostgresStorage
from lastline.storage import SQLiteStorage

from .defaults_store import DefaultsStore, SQLiteDefaultsStore
from .events_store import EventStore, SQLiteEventStore
from .pg_defaults_store import PostgresDefaultsStore
from .pg_events_store import PostgresEventStore

__all__ = ["open_defaults_store", "open_event_store"]


def open_event_store(storage: SQLiteStorage | PostgresStorage) -> EventStore:
    """The degradation events store of the service's backend."""
    if isinstance(storage, PostgresStorage):
        return PostgresEventStore(storage)
    return SQLiteEventStore(storage)


def open_defaults_store(storage: SQLiteStorage | PostgresStorage) -> DefaultsStore:
    """The declared defaults store of the service's backend."""
    if isinstance(storage, PostgresStorage):
        return PostgresDefaultsStore(storage)
    return SQLiteDefaultsStore(storage)
