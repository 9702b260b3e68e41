"""The PostgreSQL implementation of :class:`~lastline.api.ladder.events_store.EventStore` (N replicas).

Same meaning as the SQLite store. Every request-path call runs as the application role in a
transaction scoped to the event's tenant, and the table's row-level security policy admits that
tenant's rows only. Retention pruning is the one cross-tenant job: it runs as the owner
(:meth:`~lastline.postgres.PostgresStorage.maintenance`) in bounded batches, each its own short
transaction, and ``FOR UPDATE SKIP LOCKED`` lets several replicas prune at once without waiting on
one another or deleting a row twice.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import groupby
from typing import Any

from lastline.postgres import PostgresStorage, TableCopySpec, TierTables, tenant_isolation
from lastline.storage import Migration

from .events_store import EVENT_COLUMNS, INSERT_COLUMNS, Event, NewEvent, insert_row

__all__ = ["COPIED_TABLES", "MIGRATIONS", "PRUNE_BATCH", "PostgresEventStore"]

#: Rows deleted per pruning transaction: short locks, bounded WAL per step.
PRUNE_BATCH = 5000


def _create_events(conn: Any) -> None:
    conn.execute(
        """CREATE TABLE api_events (
            id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
            ts DOUBLE PRECISION NOT NULL,
            tenant TEXT NOT NULL,
            route TEXT NOT NULL,
            tier TEXT NOT NULL,
            source TEXT,
            reason TEXT,
            path TEXT NOT NULL,
            depth INTEGER,
            confidence TEXT,
            entry_id TEXT,
            task TEXT,
            prompt_hash TEXT NOT NULL,
            duration_ms DOUBLE PRECISION NOT NULL,
            prompt TEXT,
            answer TEXT
        )"""
    )
    conn.execute("CREATE INDEX api_events_tenant_ts ON api_events (tenant, ts)")
    conn.execute("CREATE INDEX api_events_ts ON api_events (ts)")  # retention pruning, across tenants
    for statement in tenant_isolation("api_events"):
        conn.execute(statement)


MIGRATIONS = [Migration("api_0001_events", _create_events)]
#: What ``lastline db copy`` moves from a SQLite file: the degradation events, as they are.
COPIED_TABLES = TierTables((TableCopySpec("api_events"),))

_INSERT = (f"INSERT INTO api_events ({', '.join(INSERT_COLUMNS)})"
           f" VALUES ({', '.join(['%s'] * len(INSERT_COLUMNS))})")


class PostgresEventStore:
    """:class:`EventStore` on the shared PostgreSQL database; migrates it on construction."""

    def __init__(self, storage: PostgresStorage, *, prune_batch: int = PRUNE_BATCH) -> None:
        self.storage = storage
        self.prune_batch = prune_batch
        storage.migrate(MIGRATIONS)

    def append(self, event: NewEvent) -> None:
        self.append_many([event])

    def append_many(self, events: Sequence[NewEvent]) -> None:
        """One transaction for the whole batch (all or none); each tenant's rows under its own tenant.

        The background writer hands over events of many tenants at once. The transaction switches
        ``lastline.tenant`` between groups, so every row still passes its policy's ``WITH CHECK``.
        """
        if not events:
            return
        by_tenant = [(t, list(group)) for t, group in groupby(sorted(events, key=lambda e: e.tenant),
                                                                key=lambda e: e.tenant)]
        with self.storage.atomic(by_tenant[0][0]) as conn:
            for tenant, group in by_tenant:
                self.storage.switch_tenant(conn, tenant)
                with conn.cursor() as cur:
                    cur.executemany(_INSERT, list(map(insert_row, group)))

    def recent(self, tenant: str, *, limit: int, since: float) -> list[Event]:
        rows = self.storage.query(
            f"SELECT {', '.join(EVENT_COLUMNS)} FROM api_events WHERE tenant = %s AND ts > %s"
            " ORDER BY ts DESC, id DESC LIMIT %s",
            (tenant, since, limit), tenant=tenant,
        )
        return [Event(**dict(zip(EVENT_COLUMNS, row, strict=True))) for row in rows]

    def tier_counts(self, tenant: str, *, since: float) -> dict[str, int]:
        rows = self.storage.query(
            "SELECT tier, count(*) FROM api_events WHERE tenant = %s AND ts > %s GROUP BY tier",
            (tenant, since), tenant=tenant,
        )
        return {str(tier): int(n) for tier, n in rows}

    def answer_counts(self, tenant: str, *, since: float) -> list[tuple[str, str, int]]:
        rows = self.storage.query(
            "SELECT source, confidence, count(*) FROM api_events"
            " WHERE tenant = %s AND ts > %s AND source IS NOT NULL"
            " GROUP BY source, confidence ORDER BY source, confidence",
            (tenant, since), tenant=tenant,
        )
        return [(str(s), str(c), int(n)) for s, c, n in rows]

    def count(self, tenant: str) -> int:
        rows = self.storage.query("SELECT count(*) FROM api_events WHERE tenant = %s", (tenant,), tenant=tenant)
        return int(rows[0][0])

    def delete_before(self, ts: float) -> int:
        """Delete events older than ``ts`` across tenants, ``prune_batch`` rows per transaction."""
        total = 0
        while True:
            with self.storage.maintenance() as conn:
                deleted = conn.execute(
                    "DELETE FROM api_events WHERE id IN (SELECT id FROM api_events WHERE ts < %s"
                    " ORDER BY ts LIMIT %s FOR UPDATE SKIP LOCKED)",
                    (ts, self.prune_batch),
                ).rowcount
            total += deleted
            if deleted < self.prune_batch:
                return total
