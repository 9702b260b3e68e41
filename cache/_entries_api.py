"""Reading one entry back and recording whether a served answer was right.

A mixin of :class:`~lastline.cache.SemanticCache`, kept apart so the class module holds the write
and lookup paths only.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

from lastline import InvalidInput, NotFound

from . import _validate as v

if TYPE_CHECKING:
    from ._store import EntryRow, Store

__all__ = ["EntriesMixin", "entry_dict"]


class EntriesMixin:
    _store: Store

    def get(self, entry_id: str, *, tenant: str = "default") -> dict[str, Any]:
        """One entry as a dict (no vector); NotFound when the tenant has no such id."""
        row = self._store.by_id(v.check_tenant(tenant), entry_id)
        if row is None:
            raise NotFound(f"no cache entry {entry_id!r}", entry_id=entry_id)
        return entry_dict(row)

    def feedback(self, *, tenant: str = "default", correct: bool, entry_id: str | None = None,
                 lookup_id: str | None = None) -> None:
        """Record whether a served answer was right; wrong ones count as false hits in stats."""
        v.check_tenant(tenant)
        if not isinstance(correct, bool):
            raise InvalidInput("correct must be true or false", field="correct")
        if entry_id is None and lookup_id is None:
            raise InvalidInput("feedback needs entry_id or lookup_id")
        layer = similarity = None
        if lookup_id is not None:
            record = self._store.lookup_record(tenant, lookup_id)
            if record is None:
                raise NotFound(f"no lookup {lookup_id!r}", lookup_id=lookup_id)
            if entry_id is not None and record[0] not in (None, entry_id):
                raise InvalidInput("entry_id does not match the lookup's entry", field="entry_id")
            entry_id, layer, similarity = record[0] or entry_id, record[1], record[2]
        elif self._store.by_id(tenant, entry_id) is None:  # type: ignore[arg-type]
            raise NotFound(f"no cache entry {entry_id!r}", entry_id=entry_id)
        self._store.add_feedback(tenant=tenant, entry_id=entry_id, lookup_id=lookup_id, layer=layer,
                                 similarity=similarity, correct=correct, now=time.time())


def entry_dict(row: EntryRow) -> dict[str, Any]:
    return {
        "id": row.id, "prompt": row.prompt, "response": row.response, "created_at": row.created_at,
        "expires_at": row.expires_at, "last_hit_at": row.last_hit_at, "hit_count": row.hit_count,
        "bytes": row.bytes, "tags": list(row.tags), "metadata": row.metadata, "model_id": row.model_id,
        "exact_only": row.model_id is None,
    }

