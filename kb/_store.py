"""The knowledge base's storage seam: typed interfaces for documents, chunks, keyword and vector search.

The KB talks to its data only through these Protocols; :mod:`lastline.kb._sqlite_store` is the
embedded implementation (FTS5 + sqlite-vec), :mod:`lastline.kb._pg_store` the shared one
(PostgreSQL ``tsvector`` + pgvector); both implement the same methods with the same meaning.
Values crossing the seam are plain dataclasses, never rows or SQL.

- :class:`DocumentStore` — documents and their chunks: what a tenant has, a batch written (documents,
  chunks, keyword rows, vectors) in one transaction, deletes, chunk rows for results.
- :class:`KeywordIndex` — BM25 over the segmented chunk text, exact FAQ-question matches, and the
  keyword rows the in-memory BM25 index (:mod:`lastline.kb._bm25`) is built from and checked against.
- :class:`VectorIndex` — one vector space (one model): kNN inside a tenant, cosines of given chunks,
  which chunks still lack a vector, and the model the space was built with.
- :class:`KBStore` — all three over one database, so one write can touch them atomically.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np

from ._chunking import Chunk
from ._filters import Filters
from ._parsed import ParsedDocument
from ._spaces import VectorSpace

__all__ = [
    "ChunkRow",
    "ChunkSource",
    "DocumentStore",
    "DocumentWrite",
    "KBStore",
    "KeywordIndex",
    "KeywordRow",
    "KeywordSearch",
    "Ranked",
    "StoredDocument",
    "StoredFile",
    "VectorIndex",
]


@dataclass(frozen=True)
class Ranked:
    """One candidate of a ranked list: a chunk row id and the list's own score."""

    rowid: int
    score: float  # keyword: -bm25 (higher is better); vector: cosine similarity


@dataclass(frozen=True)
class StoredDocument:
    """What an incremental ingest needs to know about a document already stored."""

    rowid: int
    content_hash: str
    collection: str
    source: str | None


@dataclass(frozen=True)
class StoredFile:
    """What the last ingest saw of one file (``settings`` fingerprints the chunking it used)."""

    source: str
    collection: str
    size: int
    mtime_ns: int
    sha256: str
    settings: str


@dataclass(frozen=True)
class DocumentWrite:
    """One document to insert or replace, chunked, with the keyword text of each chunk."""

    doc_id: str
    document: ParsedDocument
    content_hash: str
    source: str | None
    chunks: Sequence[Chunk]
    keyword_texts: Sequence[str]  # one per chunk, already segmented (see lastline.kb._index_text)
    languages: Sequence[str]  # one per chunk: language_of its embedded text


@dataclass(frozen=True)
class ChunkSource:
    """What a vector space needs to embed one stored chunk."""

    rowid: int
    tenant: str
    collection: str
    kind: str
    title: str
    heading: tuple[str, ...]
    text: str
    question: str | None


@dataclass(frozen=True)
class ChunkRow:
    """A stored chunk with what a search result or a citation needs."""

    rowid: int
    doc_id: str
    ord: int
    title: str
    text: str
    source: str | None
    heading: tuple[str, ...]
    start: int
    end: int
    collection: str
    kind: str
    metadata: dict[str, Any]
    tags: list[str]
    question: str | None
    answer: str | None

    @property
    def chunk_id(self) -> str:
        return f"{self.doc_id}:{self.ord}"


@dataclass(frozen=True)
class KeywordRow:
    """One chunk as the in-memory keyword index holds it: distinct lexemes with their counts, and its length."""

    rowid: int
    collection: str
    lexemes: Sequence[str]
    counts: Sequence[int]
    length: int


class VectorIndex(Protocol):
    """One vector space's stored vectors (one model, one dimension), partitioned by tenant."""

    space: VectorSpace

    def model(self) -> tuple[str, int] | None:
        """(model id, dimension) the space is complete for, or None while it is being (re)built."""
        ...

    def reset(self, dim: int, *, seen: tuple[str, int] | None) -> bool:
        """Drop every vector and start an empty space of ``dim`` (model unset until :meth:`mark_built`),
        if the space's model is still ``seen`` (what :meth:`model` returned to the caller) and no
        build of ``dim`` is in progress: a compare-and-reset, atomic with the drop. Returns False,
        changing nothing, when another process has changed the space since or is building it — a
        replica that built it and then wrote vectors of a new document must not see them dropped
        by a replica that looked before that build ended."""
        ...

    def building(self) -> int | None:
        """The dimension of a space being built (reset, model not yet marked), else None."""
        ...

    def mark_built(self, model_id: str) -> None: ...

    def ensure_search_index(self) -> bool:
        """Build the backend's own kNN index over the vectors stored, if it keeps one and it is missing.

        True when this call built it. PostgreSQL builds the space's HNSW index once the space is
        complete (kept current by every insert after that, so it is built after a bulk load, not
        before); search is exact until then. SQLite keeps no index in the database (its graphs are
        per process, :mod:`lastline.kb._ann`): always False.
        """
        ...

    def warm(self, tenant: str) -> bool:
        """Build now what this process keeps in memory to search ``tenant`` (a serving start); True when
        it keeps something. SQLite: the tenant's in-memory copy of its vectors (:mod:`lastline.kb._ann`);
        PostgreSQL keeps nothing (pgvector's index is in the database): always False."""
        ...

    def stop_builds(self) -> None:
        """Before the storage closes: stop and wait for what :meth:`warm` or a search started building
        in memory in the background (SQLite: its copies' builds; PostgreSQL builds nothing)."""
        ...

    def drop(self) -> None:
        """Remove the space entirely (switched off)."""
        ...

    def exists(self) -> bool: ...

    def insert(self, rows: Sequence[tuple[int, str, str]], vectors: np.ndarray) -> None:
        """One vector per (chunk id, tenant, collection), in one transaction."""
        ...

    def search(self, vector: np.ndarray, *, tenant: str, filters: Filters, limit: int) -> list[Ranked]: ...

    def cosines(self, vector: np.ndarray, rowids: Sequence[int], *, tenant: str) -> dict[int, float]:
        """Cosine of ``vector`` with the stored vectors of ``rowids`` (those of ``tenant`` the space holds)."""
        ...

    def count(self) -> int: ...

    def missing(self, limit: int) -> list[ChunkSource]:
        """Up to ``limit`` chunks this space should hold but has no vector for, oldest first."""
        ...

    def pending(self) -> int:
        """How many chunks this space should hold but has no vector for yet."""
        ...


class KeywordSearch(Protocol):
    """BM25 over a tenant's chunks: the store's own search, or the in-memory index in front of it."""

    def keyword_search(self, terms: Sequence[str], *, tenant: str, filters: Filters, limit: int) -> list[Ranked]:
        """The best ``limit`` chunks of ``tenant`` for any of ``terms`` (``query_terms``: words, never syntax)."""
        ...


class KeywordIndex(KeywordSearch, Protocol):
    def keyword_search(self, terms: Sequence[str], *, tenant: str, filters: Filters, limit: int) -> list[Ranked]:
        """The store's own BM25 over the tenant's chunks for any of ``terms`` (``query_terms``: words, never syntax).

        What the in-memory index (:mod:`lastline.kb._bm25`) answers instead for a large tenant.
        """
        ...

    def faq_exact(self, question_norm: str, *, tenant: str, filters: Filters) -> list[int]:
        """FAQ chunks whose normalized question equals ``question_norm``."""
        ...

    def reindex_keywords(self, keyword_text: Callable[[str, str, tuple[str, ...], str], str]) -> None:
        """Rewrite every chunk's keyword row from (kind, title, heading, text), in one transaction."""
        ...

    # What the in-memory keyword index (lastline.kb._bm25) is built from and checked against.

    def tenant_size(self, tenant: str) -> int:
        """How many chunks ``tenant`` has."""
        ...

    def keyword_rows(self, tenant: str, *, after: int, limit: int | None, batch: int) -> Iterator[list[KeywordRow]]:
        """The tenant's rows with ids above ``after``, ascending, at most ``limit``, in batches, one snapshot."""
        ...

    def query_lexemes(self, terms: Sequence[str]) -> list[str]:
        """The lexemes the store's own search ranks ``terms`` by, each counted as often as it does."""
        ...

    def check(self, tenant: str, rowids: Sequence[int], *, after: int, limit: int) -> tuple[set[int], list[KeywordRow]]:
        """In one read: those of ``rowids`` still stored, and up to ``limit`` of the tenant's rows above ``after``."""
        ...

    def chunk_ids(self, tenant: str, *, upto: int) -> list[int]:
        """Every chunk id of ``tenant`` at or below ``upto``."""
        ...

    def allowed(self, tenant: str, filters: Filters) -> list[int]:
        """Chunk ids of ``tenant`` passing ``filters`` (for filters beyond collection)."""
        ...


class DocumentStore(Protocol):
    def documents(self, tenant: str) -> dict[str, StoredDocument]:
        """Every document of ``tenant`` by doc id."""
        ...

    def count(self, tenant: str) -> int: ...

    def get_document(self, tenant: str, doc_id: str) -> dict[str, Any] | None: ...

    def write(
        self, tenant: str, collection: str, documents: Sequence[DocumentWrite],
        vectors: Mapping[VectorSpace, tuple[Sequence[int], np.ndarray]],
    ) -> list[int]:
        """Insert or replace ``documents`` with keyword rows and vectors, all in one transaction.

        ``vectors`` maps a vector space to (positions into the batch's chunks, in document
        then chunk order, and one vector per position). Returns the chunk row ids in that order.
        """
        ...

    def delete(self, tenant: str, doc_ids: Iterable[str]) -> list[str]:
        """Remove documents with everything derived from them; returns the ids that existed."""
        ...

    def chunk_rows(self, tenant: str, rowids: Sequence[int]) -> dict[int, ChunkRow]:
        """Chunk rows by id, restricted to ``tenant`` (a foreign id simply does not come back)."""
        ...

    def chunk_keys(self, tenant: str) -> dict[int, tuple[str, int]]:
        """Chunk row id → (doc id, chunk ordinal) of every chunk of ``tenant``."""
        ...

    def chunk_count(self, tenant: str | None = None) -> int: ...

    def files(self, tenant: str) -> dict[str, StoredFile]:
        """Every file the tenant's ingests recorded, by source path."""
        ...

    def record_files(self, tenant: str, files: Sequence[StoredFile]) -> None:
        """Insert or replace file records (after their documents are written)."""
        ...

    def forget_files(self, tenant: str, sources: Iterable[str]) -> None: ...

    def meta(self, key: str) -> str | None: ...

    def set_meta(self, key: str, value: str) -> None: ...


class KBStore(DocumentStore, KeywordIndex, Protocol):
    """Documents, keyword index and vector spaces over one database."""

    def vector_index(self, space: VectorSpace) -> VectorIndex:
        """The store of one vector space (its table is made by :meth:`VectorIndex.reset`)."""
        ...
