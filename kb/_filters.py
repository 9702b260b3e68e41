"""Search filters (collection, tags, document ids, metadata equality), validated and turned into SQL.

Filters run inside the search — in the FTS query's WHERE clause and in the kNN query (collection as
a vec0 metadata column, the rest as a candidate-id set) — never as a post-filter that could return
fewer than ``k`` results or, worse, another tenant's rows.
"""

from __future__ import annotations

import json
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

    def document_sql(self) -> tuple[str, list[Any]]:
        """``AND …`` conditions on ``c`` (kb_chunks) for everything but the tenant."""
        clauses: list[str] = []
        params: list[Any] = []
        if self.collections is not None:
            clauses.append("c.collection IN (SELECT value FROM json_each(?))")
            params.append(json.dumps(self.collections))
        for tag in self.tags:
            clauses.append("c.doc IN (SELECT doc FROM kb_doc_tags WHERE tag = ?)")
            params.append(tag)
        if self.doc_ids is not None:
            clauses.append(
                "c.doc IN (SELECT id FROM kb_documents WHERE tenant = c.tenant"
                " AND doc_id IN (SELECT value FROM json_each(?)))"
            )
            params.append(json.dumps(self.doc_ids))
        for key, value in self.metadata.items():
            clauses.append(
                "c.doc IN (SELECT id FROM kb_documents WHERE tenant = c.tenant AND json_extract(metadata, ?) = ?)"
            )
            params.extend([f'$."{key}"', value])
        return "".join(f" AND {c}" for c in clauses), params


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
