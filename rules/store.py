"""Where uploaded rule packs live: the :class:`PackStore` interface and its SQLite implementation.

The rule engine talks to a :class:`PackStore` only; :class:`SQLitePackStore` keeps packs per tenant
in the service database (migration ``rules_0001_packs``), :class:`~lastline.rules.pg_store.PostgresPackStore`
in the shared PostgreSQL database. Each implements the four methods below and nothing else — parsing and
validation stay in :mod:`lastline.rules.packs`. :func:`open_pack_store` picks the one of the backend.
"""

from __future__ import annotations

import time
from typing import Any, Protocol

from lastline.postgres import PostgresStorage
from lastline.storage import Migration, SQLiteStorage

from .pg_store import PostgresPackStore

__all__ = ["MIGRATIONS", "PackStore", "SQLitePackStore", "open_pack_store"]


class PackStore(Protocol):
    """Raw YAML of uploaded packs, keyed by ``(tenant, name)``."""

    def put(self, tenant: str, name: str, yaml_text: str) -> bool:
        """Insert or replace; returns True when the pack is new."""
        ...

    def get(self, tenant: str, name: str) -> str | None:
        """The pack's YAML, or None when this tenant has no pack of that name."""
        ...

    def list(self, tenant: str) -> list[tuple[str, str]]:
        """``(name, yaml)`` of every pack of this tenant, by name."""
        ...

    def delete(self, tenant: str, name: str) -> bool:
        """Remove the pack; returns True when there was one."""
        ...


def _create_packs(conn: Any) -> None:
    conn.execute(
        "CREATE TABLE rule_packs ("
        " tenant TEXT NOT NULL, name TEXT NOT NULL, yaml TEXT NOT NULL,"
        " created_at REAL NOT NULL, updated_at REAL NOT NULL,"
        " PRIMARY KEY (tenant, name))"
    )


MIGRATIONS = [Migration("rules_0001_packs", _create_packs)]


class SQLitePackStore:
    """:class:`PackStore` on the service's SQLite database; migrates it on construction."""

    def __init__(self, storage: SQLiteStorage) -> None:
        self.storage = storage
        storage.migrate(MIGRATIONS)

    def put(self, tenant: str, name: str, yaml_text: str) -> bool:
        now = time.time()
        with self.storage.atomic() as conn:
            existed = conn.execute(
                "SELECT 1 FROM rule_packs WHERE tenant = ? AND name = ?", (tenant, name)).fetchone()
            conn.execute(
                "INSERT INTO rule_packs (tenant, name, yaml, created_at, updated_at) VALUES (?, ?, ?, ?, ?)"
                " ON CONFLICT (tenant, name) DO UPDATE SET yaml = excluded.yaml, updated_at = excluded.updated_at",
                (tenant, name, yaml_text, now, now),
            )
        return existed is None

    def get(self, tenant: str, name: str) -> str | None:
        rows = self.storage.query("SELECT yaml FROM rule_packs WHERE tenant = ? AND name = ?", (tenant, name))
        return str(rows[0][0]) if rows else None

    def list(self, tenant: str) -> list[tuple[str, str]]:
        rows = self.storage.query("SELECT name, yaml FROM rule_packs WHERE tenant = ? ORDER BY name", (tenant,))
        return [(str(r[0]), str(r[1])) for r in rows]

    def delete(self, tenant: str, name: str) -> bool:
        with self.storage.atomic() as conn:
            cur = conn.execute("DELETE FROM rule_packs WHERE tenant = ? AND name = ?", (tenant, name))
            return bool(cur.rowcount)


def open_pack_store(storage: SQLiteStorage | PostgresStorage) -> PackStore:
    """The pack store of the service's backend."""
    if isinstance(storage, PostgresStorage):
        return PostgresPackStore(storage)
    return SQLitePackStore(storage)
