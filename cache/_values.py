"""Value-aware candidates: the key under which entries carrying the same values are found again.

Why: the slot guard serves an entry only when its values (amounts, IDs, order numbers, dates…)
agree with the query's, but the kNN search that proposes entries knows nothing of values. In a
partition of templated entries ("… invoice 1041", "… invoice 1042", …) the k nearest neighbours
of a paraphrase can all carry other numbers, so the one entry the guard would accept is never
looked at. So every entry is stored with a key of its normalized values (the slot guard's own
extraction, :func:`~lastline.cache.slot_guard.extract_slots`), and a lookup whose prompt carries
values also considers the entries stored under the same key, scored by cosine like any
neighbour. Equal keys are exactly the entries whose values can agree with the query's; the guard
still has the last word on each of them.

The key is ``""`` for a prompt without values (nothing to add) and a short hash otherwise.
"""

from __future__ import annotations

import hashlib

from .slot_guard import extract_slots

__all__ = ["values_key"]


def values_key(prompt: str) -> str:
    """The key of ``prompt``'s normalized values, ``""`` when it carries none."""
    values = extract_slots(prompt).values
    if not values:
        return ""
    canonical = "\x1f".join(f"{kind}\x1e{value}" for kind, value in values)
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()[:24]
