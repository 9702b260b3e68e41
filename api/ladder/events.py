"""Degradation events: one per fallback request, appended to an :class:`EventStore`, queryable over HTTP.

An event says when a tenant degraded, which tier answered (or that none did, or that a write was
refused), why the caller fell back, how deep the ladder went and how far to trust the answer.
It carries the prompt's hash and the cache entry id, never the prompt or the answer, unless the
operator opted in with ``LASTLINE_LOG_CONTENT=true``: :class:`EventLog` drops the text before the
store sees it, and prunes events past the retention period.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Sequence
from typing import Any

from .events_store import Event, EventStore, NewEvent

__all__ = ["DEFAULT_RETENTION_S", "EventLog"]

#: Events older than this are deleted (checked every ``_PRUNE_EVERY`` records): 30 days.
DEFAULT_RETENTION_S = 30 * 86400
_PRUNE_EVERY = 1000


class EventLog:
    """Record and read degradation events; text is kept only when ``log_content``."""

    def __init__(self, store: EventStore, *, log_content: bool = False,
                 retention_s: float = DEFAULT_RETENTION_S) -> None:
        self.store = store
        self.log_content = log_content
        self.retention_s = retention_s
        self._records = 0

    def record(self, event: NewEvent) -> None:
        self.record_many([event])

    def record_many(self, events: Sequence[NewEvent]) -> None:
        """Store a batch in one write (the background writer's sink for events)."""
        if not self.log_content:
            events = [e if e.prompt is None and e.answer is None else dataclasses.replace(e, prompt=None, answer=None)
                      for e in events]
        self.store.append_many(events)
        before = self._records
        self._records += len(events)
        if self._records // _PRUNE_EVERY > before // _PRUNE_EVERY:
            self.prune()

    def prune(self, *, older_than_s: float | None = None) -> int:
        """Delete events older than the retention period (or ``older_than_s``); returns how many."""
        return self.store.delete_before(time.time() - (self.retention_s if older_than_s is None else older_than_s))

    def list(self, *, tenant: str, limit: int = 50, since: float | None = None) -> list[Event]:
        """Newest first; ``since`` is a Unix time (events strictly after it)."""
        return self.store.recent(tenant, limit=limit, since=since if since is not None else 0.0)

    def summary(self, *, tenant: str, since: float) -> dict[str, Any]:
        """Counts since ``since``: answers by source and confidence, events by tier."""
        by_tier = self.store.tier_counts(tenant, since=since)
        answers = [{"source": s, "confidence": c, "count": n}
                   for s, c, n in self.store.answer_counts(tenant, since=since)]
        return {"by_tier": by_tier, "answers": answers, "total": sum(by_tier.values())}

    def count(self, *, tenant: str) -> int:
        return self.store.count(tenant)
