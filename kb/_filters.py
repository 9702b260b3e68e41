"""Search filters (collection, tags, document ids, metadata equality), validated into one value.

Stores apply them inside the search (see :mod:`lastline.kb._sqlite_store`), never as a post-filter
that could return fewer than ``k`` results or, worse, another tenant's rows.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from lastline.errors import InvalidInput

__all__ = ["Filters", "parse_filters"]

_KEYS = {"collection", "collections", "tags", "doc_id", "doc_ids", "metadata"}


def _strings(name: str, value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, list | tuple | set) and all(isinstance(v, str) for v in value):
        return list(value)
    raise InvalidInput(f"filters.{name}: expected a string or a list of strings")


@dataclass(frozen=True)
class Filters:
    collections: list[str] | None = None
    tags: list[str] = field(default_factory=list)  # every tag must be present
    doc_ids: list[str] | None = None
    metadata: dict[str, Any] = field(default_factory=dict)  # equality on top-level metadata keys

    @property
    def needs_candidates(self) -> bool:
        """True when the kNN query needs an explicit set of allowed chunk ids."""
        return bool(self.tags or self.doc_ids is not None or self.metadata)


def parse_filters(filters: Mapping[str, Any] | Filters | None) -> Filters:
    """Validate a filters mapping; unknown keys are an error rather than silently ignored."""
    if filters is None:
        return Filters()
    if isinstance(filters, Filters):
        return filters
    if not isinstance(filters, Mapping):
        raise InvalidInput("filters: expected an object")
    unknown = set(filters) - _KEYS
    if unknown:
        raise InvalidInput(f"filters: unknown key(s) {sorted(unknown)}; use {sorted(_KEYS)}")
    collections = None
    for name in ("collection", "collections"):
        if filters.get(name) is not None:
            collections = (collections or []) + _strings(name, filters[name])
    doc_ids = None
    for name in ("doc_id", "doc_ids"):
        if filters.get(name) is not None:
            doc_ids = (doc_ids or []) + _strings(name, filters[name])
    tags = _strings("tags", filters["tags"]) if filters.get("tags") is not None else []
    metadata = filters.get("metadata") or {}
    if not isinstance(metadata, Mapping) or not all(
        isinstance(v, str | int | float | bool) for v in metadata.values()
    ):
        raise InvalidInput("filters.metadata: expected an object of scalar values")
    for key in metadata:
        if '"' in str(key) or not str(key).strip():
            raise InvalidInput(f"filters.metadata: bad key {key!r}")
    return Filters(collections=collections, tags=tags, doc_ids=doc_ids, metadata=dict(metadata))
