"""Degradation events: one row per fallback request, stored in SQLite and queryable over HTTP.

An event says when a tenant degraded, which tier answered (or that none did, or that a write was
refused), why the caller fell back, how deep the ladder went and how far to trust the answer.
It carries the prompt's hash and the cache entry id, never the prompt or the answer, unless the
operator opted in with ``LASTLINE_LOG_CONTENT=true``.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel

from lastline import Migration, SQLiteStorage

__all__ = ["DEFAULT_RETENTION_S", "MIGRATIONS", "Event", "EventStore", "NewEvent"]

#: Events older than this are deleted (checked every ``_PRUNE_EVERY`` inserts): 30 days.
DEFAULT_RETENTION_S = 30 * 86400
_PRUNE_EVERY = 1000


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


@dataclass
class NewEvent:
    """What the ladder knows when it finishes one request."""

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


_COLUMNS = list(Event.model_fields)


class EventStore:
    """Append and read degradation events; text columns are written only when ``log_content``."""

    def __init__(self, storage: SQLiteStorage, *, log_content: bool = False,
                 retention_s: float = DEFAULT_RETENTION_S) -> None:
        self.storage = storage
        self.log_content = log_content
        self.retention_s = retention_s
        self._inserts = 0
        storage.migrate(MIGRATIONS)

    def record(self, event: NewEvent) -> int:
        row = dict(event.__dict__)
        if not self.log_content:
            row["prompt"] = None
            row["answer"] = None
        row["ts"] = time.time()
        cols = [c for c in _COLUMNS if c != "id"]
        with self.storage.atomic() as conn:
            cur = conn.execute(
                f"INSERT INTO api_events ({', '.join(cols)}) VALUES ({', '.join('?' * len(cols))})",
                [row[c] for c in cols],
            )
            event_id = int(cur.lastrowid)
        self._inserts += 1
        if self._inserts % _PRUNE_EVERY == 0:
            self.prune()
        return event_id

    def prune(self, *, older_than_s: float | None = None) -> int:
        """Delete events older than the retention period; returns how many."""
        cutoff = time.time() - (self.retention_s if older_than_s is None else older_than_s)
        with self.storage.atomic() as conn:
            return int(conn.execute("DELETE FROM api_events WHERE ts < ?", (cutoff,)).rowcount)

    def list(self, *, tenant: str, limit: int = 50, since: float | None = None) -> list[Event]:
        """Newest first; ``since`` is a Unix time (events strictly after it)."""
        rows = self.storage.query(
            f"SELECT {', '.join(_COLUMNS)} FROM api_events WHERE tenant = ? AND ts > ?"
            " ORDER BY ts DESC, id DESC LIMIT ?",
            (tenant, since if since is not None else 0.0, limit),
        )
        return [Event(**dict(zip(_COLUMNS, row, strict=True))) for row in rows]

    def summary(self, *, tenant: str, since: float) -> dict[str, Any]:
        """Counts since ``since``: answers by source and confidence, events by tier."""
        by_tier = dict(
            self.storage.query(
                "SELECT tier, count(*) FROM api_events WHERE tenant = ? AND ts > ? GROUP BY tier",
                (tenant, since),
            )
        )
        answers = [
            {"source": s, "confidence": c, "count": n}
            for s, c, n in self.storage.query(
                "SELECT source, confidence, count(*) FROM api_events"
                " WHERE tenant = ? AND ts > ? AND source IS NOT NULL"
                " GROUP BY source, confidence ORDER BY source, confidence",
                (tenant, since),
            )
        ]
        return {"by_tier": by_tier, "answers": answers, "total": sum(by_tier.values())}

    def count(self, *, tenant: str) -> int:
        return int(self.storage.query("SELECT count(*) FROM api_events WHERE tenant = ?", (tenant,))[0][0])

