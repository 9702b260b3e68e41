"""Recording whether a served answer was right: the production ground truth of the cache.

Feedback names the served entry or the lookup that served it; a lookup id also carries the layer
and similarity of that decision, which is what calibration from feedback learns from.
"""

from __future__ import annotations

import time

from lastline import InvalidInput, NotFound

from . import _validate as v
from ._store_api import CacheStore

__all__ = ["record_feedback"]


def record_feedback(store: CacheStore, *, tenant: str, correct: bool, entry_id: str | None = None,
                    lookup_id: str | None = None) -> None:
    """Validate and store one judgement (see :meth:`SemanticCache.feedback`)."""
    v.check_tenant(tenant)
    if not isinstance(correct, bool):
        raise InvalidInput("correct must be true or false", field="correct")
    if entry_id is None and lookup_id is None:
        raise InvalidInput("feedback needs entry_id or lookup_id")
    layer = similarity = None
    if lookup_id is not None:
        record = store.lookup_record(tenant, lookup_id)
        if record is None:
            raise NotFound(f"no lookup {lookup_id!r}", lookup_id=lookup_id)
        if entry_id is not None and record[0] not in (None, entry_id):
            raise InvalidInput("entry_id does not match the lookup's entry", field="entry_id")
        entry_id, layer, similarity = record[0] or entry_id, record[1], record[2]
    elif store.by_id(tenant, entry_id) is None:  # type: ignore[arg-type]
        raise NotFound(f"no cache entry {entry_id!r}", entry_id=entry_id)
    store.add_feedback(tenant=tenant, entry_id=entry_id, lookup_id=lookup_id, layer=layer,
                       similarity=similarity, correct=correct, now=time.time())
