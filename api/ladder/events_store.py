"""Where degradation events live: their two shapes, the :class:`EventStore` interface and its SQLite implementation.

The PostgreSQL implementation is :mod:`.pg_events_store`; :func:`.stores.open_event_store` picks one.

:class:`lastline.api.ladder.events.EventLog` talks to an :class:`EventStore` only. Appends come
in batches (:meth:`EventStore.append_many`) so that a background writer can collect the events of
many requests into one transaction; :meth:`EventStore.append` is the batch of one. Each
:class:`NewEvent` carries its own timestamp, so a batch written later keeps when things happened.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from operator import attrgetter
from typing import Any, Protocol

from pydantic import BaseModel

from lastline.storage import Migration, SQLiteStorage

__all__ = ["EVENT_COLUMNS", "INSERT_COLUMNS", "MIGRATIONS", "Event", "EventStore", "NewEvent", "SQLiteEventStore",
           "insert_row"]


@dataclass(frozen=True)
class NewEvent:
    """What the ladder knows when it finishes one request (``prompt``/``answer`` only when opted in)."""

    tenant: str
    route: str
    tier: str
    path: str
    prompt_hash: str
    duration_ms: float
    source: str | None = None
    reason: str | None = None
    depth: int | None = None
    confidence: str | None = None
    entry_id: str | None = None
    task: str | None = None
    prompt: str | None = None
    answer: str | None = None
    ts: float = field(default_factory=time.time)


class Event(BaseModel):
    """A stored degradation event as the API returns it (``prompt``/``answer`` null unless opted in)."""

    id: int
    ts: float
    tenant: str
    route: str
    tier: str
    source: str | None
    reason: str | None
    path: str
    depth: int | None
    confidence: str | None
    entry_id: str | None
    task: str | None
    prompt_hash: str
    duration_ms: float
    prompt: str | None = None
    answer: str | None = None


class EventStore(Protocol):
    """Append-mostly log of degradation events, per tenant."""

    def append(self, event: NewEvent) -> None:
        """Store one event (a batch of one)."""
        ...

    def append_many(self, events: Sequence[NewEvent]) -> None:
        """Store every event of ``events`` in one write, all or none."""
        ...

    def recent(self, tenant: str, *, limit: int, since: float) -> list[Event]:
        """Newest first, events strictly after ``since`` (Unix time)."""
        ...

    def tier_counts(self, tenant: str, *, since: float) -> dict[str, int]:
        """``{tier: events}`` since ``since``."""
        ...

    def answer_counts(self, tenant: str, *, since: float) -> list[tuple[str, str, int]]:
        """``(source, confidence, events)`` of answered events since ``since``, sorted."""
        ...

    def count(self, tenant: str) -> int:
        """Events stored for this tenant."""
        ...

    def delete_before(self, ts: float) -> int:
        """Delete events older than ``ts`` (every tenant); returns how many."""
        ...


def _create_events(conn: Any) -> None:
    conn.execute(
        """CREATE TABLE api_events (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            ts REAL NOT NULL,
            tenant TEXT NOT NULL,
            route TEXT NOT NULL,
            tier TEXT NOT NULL,           -- exact|fuzzy|semantic|rules|kb|default|none|refused
            source TEXT,                  -- cache|rules|kb|default, NULL when nothing answered
            reason TEXT,                  -- why the caller degraded (its own words), or NULL
            path TEXT NOT NULL,           -- what each tier said, e.g. "cache:below_threshold rules:no_match"
            depth INTEGER,
            confidence TEXT,
            entry_id TEXT,
            task TEXT,
            prompt_hash TEXT NOT NULL,
            duration_ms REAL NOT NULL,
            prompt TEXT,                  -- only with LASTLINE_LOG_CONTENT=true
            answer TEXT                   -- only with LASTLINE_LOG_CONTENT=true
        )"""
    )
    conn.execute("CREATE INDEX api_events_tenant_ts ON api_events (tenant, ts)")


MIGRATIONS = [Migration("api_0001_events", _create_events)]

#: An event's columns in the order both backends select them, and the ones an insert gives (the id is the database's).
EVENT_COLUMNS = list(Event.model_fields)
INSERT_COLUMNS = [c for c in EVENT_COLUMNS if c != "id"]
#: An event's values in ``INSERT_COLUMNS`` order. Read field by field: ``dataclasses.asdict`` copied
#: each event deep first, ≈3 % of a chat-completion flood's server samples (py-spy, 64 clients).
insert_row: Callable[[NewEvent], tuple[Any, ...]] = attrgetter(*INSERT_COLUMNS)


class SQLiteEventStore:
    """:class:`EventStore` on the service's SQLite database; migrates it on construction."""

    def __init__(self, storage: SQLiteStorage) -> None:
        self.storage = storage
        storage.migrate(MIGRATIONS)

    def append(self, event: NewEvent) -> None:
        self.append_many([event])

    def append_many(self, events: Sequence[NewEvent]) -> None:
        if not events:
            return
        rows = list(map(insert_row, events))
        with self.storage.atomic() as conn:
            conn.executemany(
                f"INSERT INTO api_events ({', '.join(INSERT_COLUMNS)})"
                f" VALUES ({', '.join('?' * len(INSERT_COLUMNS))})",
                rows,
            )

    def recent(self, tenant: str, *, limit: int, since: float) -> list[Event]:
        rows = self.storage.query(
            f"SELECT {', '.join(EVENT_COLUMNS)} FROM api_events WHERE tenant = ? AND ts > ?"
            " ORDER BY ts DESC, id DESC LIMIT ?",
            (tenant, since, limit),
        )
        return [Event(**dict(zip(EVENT_COLUMNS, row, strict=True))) for row in rows]

    def tier_counts(self, tenant: str, *, since: float) -> dict[str, int]:
        rows = self.storage.query(
            "SELECT tier, count(*) FROM api_events WHERE tenant = ? AND ts > ? GROUP BY tier", (tenant, since)
        )
        return {str(tier): int(n) for tier, n in rows}

    def answer_counts(self, tenant: str, *, since: float) -> list[tuple[str, str, int]]:
        rows = self.storage.query(
            "SELECT source, confidence, count(*) FROM api_events"
            " WHERE tenant = ? AND ts > ? AND source IS NOT NULL"
            " GROUP BY source, confidence ORDER BY source, confidence",
            (tenant, since),
        )
        return [(str(s), str(c), int(n)) for s, c, n in rows]

    def count(self, tenant: str) -> int:
        return int(self.storage.query("SELECT count(*) FROM api_events WHERE tenant = ?", (tenant,))[0][0])

    def delete_before(self, ts: float) -> int:
        with self.storage.atomic() as conn:
            return int(conn.execute("DELETE FROM api_events WHERE ts < ?", (ts,)).rowcount)

