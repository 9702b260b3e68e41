"""Where per-tenant declared defaults live: the :class:`DefaultsStore` interface and its SQLite implementation.

:class:`lastline.api.ladder.defaults.Defaults` talks to a :class:`DefaultsStore` only;
:class:`SQLiteDefaultsStore` keeps declarations in the service database (migration
``api_0002_defaults``). PostgreSQL (:mod:`.pg_defaults_store`) implements the four methods below and
nothing else — the file overlay, the ``*`` fallback and the side-effect rule stay in ``defaults.py``.
"""

from __future__ import annotations

import time
from typing import Any, NamedTuple, Protocol

from lastline.storage import Migration, SQLiteStorage

__all__ = ["MIGRATIONS", "DefaultRow", "DefaultsStore", "SQLiteDefaultsStore"]


class DefaultRow(NamedTuple):
    """One stored declaration: a preset answer (or None) and whether the task has side effects."""

    task: str
    answer: str | None
    side_effects: bool


class DefaultsStore(Protocol):
    """Per-tenant task declarations, keyed by ``(tenant, task)``."""

    def put(self, tenant: str, row: DefaultRow) -> None:
        """Insert or replace the declaration of ``row.task``."""
        ...

    def get(self, tenant: str, task: str) -> DefaultRow | None:
        """This tenant's declaration for ``task``, or None."""
        ...

    def list(self, tenant: str) -> list[DefaultRow]:
        """Every declaration of this tenant, by task name."""
        ...

    def delete(self, tenant: str, task: str) -> bool:
        """Remove the declaration; True when there was one."""
        ...


def _create_defaults(conn: Any) -> None:
    conn.execute(
        """CREATE TABLE api_defaults (
            tenant TEXT NOT NULL,
            task TEXT NOT NULL,
            answer TEXT,
            side_effects INTEGER NOT NULL DEFAULT 0,
            updated_at REAL NOT NULL,
            PRIMARY KEY (tenant, task)
        )"""
    )


MIGRATIONS = [Migration("api_0002_defaults", _create_defaults)]


class SQLiteDefaultsStore:
    """:class:`DefaultsStore` on the service's SQLite database; migrates it on construction."""

    def __init__(self, storage: SQLiteStorage) -> None:
        self.storage = storage
        storage.migrate(MIGRATIONS)

    def put(self, tenant: str, row: DefaultRow) -> None:
        with self.storage.atomic() as conn:
            conn.execute(
                "INSERT INTO api_defaults (tenant, task, answer, side_effects, updated_at)"
                " VALUES (?, ?, ?, ?, ?) ON CONFLICT (tenant, task) DO UPDATE SET"
                " answer = excluded.answer, side_effects = excluded.side_effects,"
                " updated_at = excluded.updated_at",
                (tenant, row.task, row.answer, int(row.side_effects), time.time()),
            )

    def get(self, tenant: str, task: str) -> DefaultRow | None:
        rows = self.storage.query(
            "SELECT task, answer, side_effects FROM api_defaults WHERE tenant = ? AND task = ?", (tenant, task)
        )
        return DefaultRow(rows[0][0], rows[0][1], bool(rows[0][2])) if rows else None

    def list(self, tenant: str) -> list[DefaultRow]:
        rows = self.storage.query(
            "SELECT task, answer, side_effects FROM api_defaults WHERE tenant = ? ORDER BY task", (tenant,)
        )
        return [DefaultRow(task, answer, bool(side)) for task, answer, side in rows]

    def delete(self, tenant: str, task: str) -> bool:
        with self.storage.atomic() as conn:
            cur = conn.execute("DELETE FROM api_defaults WHERE tenant = ? AND task = ?", (tenant, task))
            return bool(cur.rowcount)

