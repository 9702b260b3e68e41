"""The PostgreSQL implementation of :class:`~lastline.rules.store.PackStore` (one database, N replicas).

Same four methods and meaning as the SQLite store; every call runs as the application role inside a
transaction scoped to its tenant, and the table's row-level security policy admits that tenant's rows
only (:func:`lastline.postgres.tenant_isolation`). Replicas read packs from the database on each
request that needs them, so a pack uploaded through one replica is used by all at once.
"""

from __future__ import annotations

import time
from typing import Any

from lastline.postgres import PostgresStorage, TableCopySpec, TierTables, tenant_isolation
from lastline.storage import Migration

__all__ = ["COPIED_TABLES", "MIGRATIONS", "PostgresPackStore"]


def _create_packs(conn: Any) -> None:
    conn.execute(
        "CREATE TABLE rule_packs ("
        " tenant TEXT NOT NULL, name TEXT NOT NULL, yaml TEXT NOT NULL,"
        " created_at DOUBLE PRECISION NOT NULL, updated_at DOUBLE PRECISION NOT NULL,"
        " PRIMARY KEY (tenant, name))"
    )
    for statement in tenant_isolation("rule_packs"):
        conn.execute(statement)


MIGRATIONS = [Migration("rules_0001_packs", _create_packs)]
#: What ``lastline db copy`` moves from a SQLite file: the uploaded packs, as they are.
COPIED_TABLES = TierTables((TableCopySpec("rule_packs"),))


class PostgresPackStore:
    """:class:`PackStore` on the shared PostgreSQL database; migrates it on construction."""

    def __init__(self, storage: PostgresStorage) -> None:
        self.storage = storage
        storage.migrate(MIGRATIONS)

    def put(self, tenant: str, name: str, yaml_text: str) -> bool:
        now = time.time()
        with self.storage.atomic(tenant) as conn:
            row = conn.execute(
                "INSERT INTO rule_packs (tenant, name, yaml, created_at, updated_at) VALUES (%s, %s, %s, %s, %s)"
                " ON CONFLICT (tenant, name) DO UPDATE SET yaml = excluded.yaml, updated_at = excluded.updated_at"
                " RETURNING (xmax = 0)",  # true when the row was inserted, not updated
                (tenant, name, yaml_text, now, now),
            ).fetchone()
        return bool(row and row[0])

    def get(self, tenant: str, name: str) -> str | None:
        rows = self.storage.query("SELECT yaml FROM rule_packs WHERE tenant = %s AND name = %s", (tenant, name),
                                  tenant=tenant)
        return str(rows[0][0]) if rows else None

    def list(self, tenant: str) -> list[tuple[str, str]]:
        rows = self.storage.query("SELECT name, yaml FROM rule_packs WHERE tenant = %s ORDER BY name", (tenant,),
                                  tenant=tenant)
        return [(str(r[0]), str(r[1])) for r in rows]

    def delete(self, tenant: str, name: str) -> bool:
        with self.storage.atomic(tenant) as conn:
            cur = conn.execute("DELETE FROM rule_packs WHERE tenant = %s AND name = %s", (tenant, name))
            return bool(cur.rowcount)
