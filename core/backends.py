"""Which backend a target names: a ``postgresql://`` URL, else a SQLite file (the embedded default)."""

from __future__ import annotations

from pathlib import Path

from .errors import ConfigError
from .postgres import PostgresStorage, is_postgres_url
from .settings import Settings
from .storage import SQLiteStorage

__all__ = ["open_settings_storage", "open_storage"]


def open_storage(target: str | Path, *, owner_url: str | None = None, pool_size: int = 10
                 ) -> SQLiteStorage | PostgresStorage:
    """Open the backend ``target`` names; ``owner_url`` and ``pool_size`` are PostgreSQL's own."""
    if is_postgres_url(target):
        return PostgresStorage(str(target), owner_url=owner_url, pool_size=pool_size)
    if owner_url is not None:
        raise ConfigError("LASTLINE_DATABASE_OWNER_URL applies to PostgreSQL only; the target is a SQLite file")
    return SQLiteStorage(target)


def open_settings_storage(settings: Settings, *, pool_size: int | None = None) -> SQLiteStorage | PostgresStorage:
    """The storage ``settings`` name (``LASTLINE_DATABASE_URL``, else ``LASTLINE_DB``); ``pool_size``
    overrides ``LASTLINE_DATABASE_POOL_SIZE`` for a process that needs fewer connections."""
    return open_storage(settings.database_url or settings.db, owner_url=settings.database_owner_url,
                        pool_size=settings.database_pool_size if pool_size is None else pool_size)
