"""The PostgreSQL implementation of :class:`~lastline.api.ladder.defaults_store.DefaultsStore` (N replicas).

Same four methods and meaning as the SQLite store; each call is one transaction as the application
role scoped to its tenant, under the table's row-level security policy. Replicas read declarations
from the database on each request that needs them, so a default declared through one replica is
used by every replica at once.
"""

from __future__ import annotations

import time
from typing import Any

from lastline.postgres import PostgresStorage, TableCopySpec, TierTables, tenant_isolation
from lastline.storage import Migration

from .defaults_store import DefaultRow

__all__ = ["COPIED_TABLES", "MIGRATIONS", "PostgresDefaultsStore"]


def _create_defaults(conn: Any) -> None:
    conn.execute(
        """CREATE TABLE api_defaults (
            tenant TEXT NOT NULL,
            task TEXT NOT NULL,
            answer TEXT,
            side_effects BOOLEAN NOT NULL DEFAULT false,
            updated_at DOUBLE PRECISION NOT NULL,
            PRIMARY KEY (tenant, task)
        )"""
    )
    for statement in tenant_isolation("api_defaults"):
        conn.execute(statement)


MIGRATIONS = [Migration("api_0002_defaults", _create_defaults)]
#: What ``lastline db copy`` moves from a SQLite file: the declared defaults, as they are.
COPIED_TABLES = TierTables((TableCopySpec("api_defaults"),))


class PostgresDefaultsStore:
    """:class:`DefaultsStore` on the shared PostgreSQL database; migrates it on construction."""

    def __init__(self, storage: PostgresStorage) -> None:
        self.storage = storage
        storage.migrate(MIGRATIONS)

    def put(self, tenant: str, row: DefaultRow) -> None:
        with self.storage.atomic(tenant) as conn:
            conn.execute(
                "INSERT INTO api_defaults (tenant, task, answer, side_effects, updated_at)"
                " VALUES (%s, %s, %s, %s, %s) ON CONFLICT (tenant, task) DO UPDATE SET"
                " answer = excluded.answer, side_effects = excluded.side_effects,"
                " updated_at = excluded.updated_at",
                (tenant, row.task, row.answer, row.side_effects, time.time()),
            )

    def get(self, tenant: str, task: str) -> DefaultRow | None:
        rows = self.storage.query(
            "SELECT task, answer, side_effects FROM api_defaults WHERE tenant = %s AND task = %s",
            (tenant, task), tenant=tenant,
        )
        return DefaultRow(rows[0][0], rows[0][1], bool(rows[0][2])) if rows else None

    def list(self, tenant: str) -> list[DefaultRow]:
        rows = self.storage.query(
            # COLLATE "C": bytewise, the order SQLite lists them in
            "SELECT task, answer, side_effects FROM api_defaults WHERE tenant = %s ORDER BY task COLLATE \"C\"",
            (tenant,), tenant=tenant,
        )
        return [DefaultRow(task, answer, bool(side)) for task, answer, side in rows]

    def delete(self, tenant: str, task: str) -> bool:
        with self.storage.atomic(tenant) as conn:
            cur = conn.execute("DELETE FROM api_defaults WHERE tenant = %s AND task = %s", (tenant, task))
            return bool(cur.rowcount)
