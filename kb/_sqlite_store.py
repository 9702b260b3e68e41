"""The embedded implementation of the KB store: SQLite tables, FTS5 for keywords, sqlite-vec per space.

Every query carries the tenant: the FTS query joins ``kb_chunks`` and filters on its tenant, and
the kNN query uses the vec0 partition key, so another tenant's chunk can never be a candidate.
Filters run inside the search — in the FTS query's WHERE clause and in the kNN query (collection
as a vec0 metadata column, the rest as a candidate-id set) — never as a post-filter that could
return fewer than ``k`` results or, worse, another tenant's rows. Tables are created by
:mod:`lastline.kb._schema`; a vector space's ``vec0`` table depends on its model's dimension and
is made by :meth:`SQLiteVectorIndex.reset`.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from itertools import count
from typing import Any

import numpy as np

from lastline.storage import Connection, SQLiteStorage
from lastline.text import normalize_text

from ._ann import AnnConfig, ApproximateIndex
from ._bm25 import keyword_row
from ._filters import Filters
from ._schema import MIGRATIONS
from ._segment import fts5_expression
from ._spaces import VectorSpace
from ._stem import lexeme
from ._store import ChunkRow, ChunkSource, DocumentWrite, KeywordRow, Ranked, StoredDocument, StoredFile

__all__ = ["SQLiteKBStore", "SQLiteVectorIndex"]

MAX_KNN = 4096  # sqlite-vec's limit on k
_DEEPEN = 16  # keyword search: how much deeper the second look at FTS5's ranking goes (see keyword_search)
# FTS5's own best rows, before any join (bm25() named rather than "rank": measured twice as fast).
_FTS_TOP = "SELECT rowid, bm25(kb_fts) AS s FROM kb_fts WHERE kb_fts MATCH ? ORDER BY s LIMIT ?"
_DELETE_BATCH = 500


def filter_sql(filters: Filters) -> tuple[str, list[Any]]:
    """``AND …`` conditions on ``c`` (kb_chunks) for everything but the tenant."""
    clauses: list[str] = []
    params: list[Any] = []
    if filters.collections is not None:
        clauses.append("c.collection IN (SELECT value FROM json_each(?))")
        params.append(json.dumps(filters.collections))
    for tag in filters.tags:
        clauses.append("c.doc IN (SELECT doc FROM kb_doc_tags WHERE tag = ?)")
        params.append(tag)
    if filters.doc_ids is not None:
        clauses.append(
            "c.doc IN (SELECT id FROM kb_documents WHERE tenant = c.tenant"
            " AND doc_id IN (SELECT value FROM json_each(?)))"
        )
        params.append(json.dumps(filters.doc_ids))
    for key, value in filters.metadata.items():
        clauses.append(
            "c.doc IN (SELECT id FROM kb_documents WHERE tenant = c.tenant AND json_extract(metadata, ?) = ?)"
        )
        params.extend([f'$."{key}"', value])
    return "".join(f" AND {c}" for c in clauses), params


def allowed_chunks(conn: Connection, tenant: str, filters: Filters) -> list[int]:
    """Chunk ids of ``tenant`` that pass ``filters`` (for filters a vec0 query cannot express)."""
    where, params = filter_sql(filters)
    return [r[0] for r in conn.execute(f"SELECT c.id FROM kb_chunks c WHERE c.tenant = ?{where}", (tenant, *params))]


def _live(conn: Connection, rowids: Sequence[int]) -> set[int]:
    """Those of ``rowids`` still stored (what the accelerators check every id they return against)."""
    if not rowids:
        return set()
    return {r[0] for r in conn.execute(
        "SELECT id FROM kb_chunks WHERE id IN (SELECT value FROM json_each(?))", (json.dumps(list(rowids)),))}


_CHUNK_HWM = "chunk_id_hwm"


def chunk_watermark(conn: Connection) -> int:
    """The highest chunk id ever handed out (the approximate index relies on ids never coming back)."""
    top = conn.execute("SELECT max(id) FROM kb_chunks").fetchone()[0] or 0
    return max(int(top), int(_get_meta(conn, _CHUNK_HWM) or 0))


def _get_meta(conn: Connection, key: str) -> str | None:
    row = conn.execute("SELECT value FROM kb_meta WHERE key = ?", (key,)).fetchone()
    return None if row is None else str(row[0])


def _set_meta(conn: Connection, key: str, value: str) -> None:
    conn.execute(
        "INSERT INTO kb_meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
        (key, value),
    )


def _vector_tables(conn: Connection) -> list[str]:
    """Every vector space table present (a switched-off space has none), so deletes reach them all."""
    return [r[0] for r in conn.execute(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name IN ('kb_vec', 'kb_vec_en')")]


def _delete_document(conn: Connection, doc_rowid: int, vector_tables: Sequence[str]) -> None:
    """Remove a document and everything derived from it (virtual tables do not cascade)."""
    ids = [r[0] for r in conn.execute("SELECT id FROM kb_chunks WHERE doc = ?", (doc_rowid,))]
    for start in range(0, len(ids), _DELETE_BATCH):
        batch = json.dumps(ids[start : start + _DELETE_BATCH])
        conn.execute("DELETE FROM kb_fts WHERE rowid IN (SELECT value FROM json_each(?))", (batch,))
        for table in vector_tables:
            conn.execute(f"DELETE FROM {table} WHERE chunk_id IN (SELECT value FROM json_each(?))", (batch,))
    conn.execute("DELETE FROM kb_documents WHERE id = ?", (doc_rowid,))


def _write_document(
    conn: Connection, tenant: str, collection: str, item: DocumentWrite,
    vector_tables: Sequence[str], next_id: Iterator[int],
) -> list[int]:
    now = time.time()
    document = item.document
    old = conn.execute(
        "SELECT id, created_at FROM kb_documents WHERE tenant = ? AND doc_id = ?", (tenant, item.doc_id)
    ).fetchone()
    created = now
    if old is not None:
        created = old[1]
        _delete_document(conn, old[0], vector_tables)
    tags = sorted(set(document.tags))
    cursor = conn.execute(
        "INSERT INTO kb_documents (tenant, doc_id, collection, kind, source, content_hash, title, metadata,"
        " tags, text, created_at, updated_at) VALUES (?,?,?,?,?,?,?,?,?,?,?,?)",
        (tenant, item.doc_id, collection, document.kind, item.source, item.content_hash, document.title,
         json.dumps(document.metadata, ensure_ascii=False, default=str), json.dumps(tags, ensure_ascii=False),
         document.text, created, now),
    )
    doc_rowid = int(cursor.lastrowid)
    conn.executemany("INSERT INTO kb_doc_tags (doc, tag) VALUES (?, ?)", [(doc_rowid, t) for t in tags])
    rowids: list[int] = []
    for chunk, body, lang in zip(item.chunks, item.keyword_texts, item.languages, strict=True):
        chunk_rowid = next(next_id)
        conn.execute(
            'INSERT INTO kb_chunks (id, doc, tenant, collection, ord, heading, start, "end", text, lang)'
            " VALUES (?,?,?,?,?,?,?,?,?,?)",
            (chunk_rowid, doc_rowid, tenant, collection, chunk.ord, json.dumps(list(chunk.heading), ensure_ascii=False),
             chunk.start, chunk.end, chunk.text, lang),
        )
        rowids.append(chunk_rowid)
        conn.execute("INSERT INTO kb_fts (rowid, body) VALUES (?, ?)", (chunk_rowid, body))
        if document.kind == "faq" and document.question is not None:
            conn.execute(
                "INSERT INTO kb_faq (chunk, tenant, question, question_norm, answer) VALUES (?,?,?,?,?)",
                (chunk_rowid, tenant, document.question, normalize_text(document.question),
                 document.answer or ""),
            )
    return rowids


def _insert_vectors(
    conn: Connection, table: str, rows: Sequence[tuple[int, str, str]], vectors: np.ndarray
) -> None:
    conn.executemany(
        f"INSERT INTO {table} (chunk_id, tenant, collection, embedding) VALUES (?,?,?,?)",
        [(r[0], r[1], r[2], np.asarray(v, dtype=np.float32).tobytes()) for r, v in zip(rows, vectors, strict=True)],
    )


# "+c.tenant": read the asked-for ids by primary key and check their tenant, rather than walk the tenant
# index over every chunk the tenant has (16 ms of CPU per search at 100k chunks, for 10 rows).
_HYDRATE = (
    'SELECT c.id, d.doc_id, c.ord, d.title, c.text, d.source, c.heading, c.start, c."end", d.collection,'
    " d.kind, d.metadata, d.tags, f.question, f.answer FROM kb_chunks c JOIN kb_documents d ON d.id = c.doc"
    " LEFT JOIN kb_faq f ON f.chunk = c.id WHERE +c.tenant = ? AND c.id IN (SELECT value FROM json_each(?))"
)
_SOURCES = (
    "SELECT c.id, c.tenant, c.collection, d.kind, d.title, c.heading, c.text, f.question FROM kb_chunks c"
    " JOIN kb_documents d ON d.id = c.doc LEFT JOIN kb_faq f ON f.chunk = c.id"
)


class SQLiteVectorIndex:
    """One vector space as a ``vec0`` table: tenant partition key, collection metadata column."""

    def __init__(self, storage: SQLiteStorage, space: VectorSpace, ann: AnnConfig | None = None) -> None:
        self.storage = storage
        self.space = space
        #: The HNSW accelerator past ``ann.threshold`` vectors per tenant (None: always exact).
        self.ann = ApproximateIndex(self, ann) if ann is not None and ann.enabled else None

    def _missing_sql(self) -> tuple[str, list[Any]]:
        where = f" WHERE c.id NOT IN (SELECT chunk_id FROM {self.space.table})"
        params: list[Any] = []
        if self.space.languages is not None:
            where += " AND c.lang IN (SELECT value FROM json_each(?))"
            params.append(json.dumps(sorted(self.space.languages)))
        return where, params

    def model(self) -> tuple[str, int] | None:
        conn = self.storage.connection()
        model_id, dim = _get_meta(conn, self.space.model_key), _get_meta(conn, self.space.dim_key)
        if not model_id or dim is None or not self.exists():
            return None
        return model_id, int(dim)

    def exists(self) -> bool:
        return bool(self.storage.query("SELECT 1 FROM sqlite_master WHERE name = ?", (self.space.table,)))

    def building(self) -> int | None:
        conn = self.storage.connection()
        model_id, dim = _get_meta(conn, self.space.model_key), _get_meta(conn, self.space.dim_key)
        return int(dim) if model_id == "" and dim is not None and self.exists() else None

    def reset(self, dim: int, *, seen: tuple[str, int] | None) -> bool:
        with self.storage.atomic() as conn:  # BEGIN IMMEDIATE: no other writer between the look and the drop
            if self.model() != seen or self.building() == int(dim):
                return False
            conn.execute(f"DROP TABLE IF EXISTS {self.space.table}")
            conn.execute(
                f"CREATE VIRTUAL TABLE {self.space.table} USING vec0 (chunk_id INTEGER PRIMARY KEY,"
                f" tenant TEXT PARTITION KEY, collection TEXT, embedding float[{int(dim)}] distance_metric=cosine)"
            )
            _set_meta(conn, self.space.model_key, "")  # incomplete until every chunk has a vector
            _set_meta(conn, self.space.dim_key, str(int(dim)))
        if self.ann is not None:
            self.ann.clear()
        return True

    def mark_built(self, model_id: str) -> None:
        with self.storage.atomic() as conn:
            _set_meta(conn, self.space.model_key, model_id)

    def ensure_search_index(self) -> bool:
        """Nothing to build: sqlite-vec searches exactly; the HNSW graphs are per process (``self.ann``)."""
        return False

    def warm(self, tenant: str) -> bool:
        return self.ann is not None and self.ann.warm(tenant)

    def stop_builds(self) -> None:
        if self.ann is not None:
            self.ann.stop_builds()

    def drop(self) -> None:
        with self.storage.atomic() as conn:
            conn.execute(f"DROP TABLE IF EXISTS {self.space.table}")
            conn.execute("DELETE FROM kb_meta WHERE key IN (?, ?)", (self.space.model_key, self.space.dim_key))
        if self.ann is not None:
            self.ann.clear()

    def insert(self, rows: Sequence[tuple[int, str, str]], vectors: np.ndarray) -> None:
        with self.storage.atomic() as conn:
            # A chunk deleted while its vector was being computed must not come back as an orphan.
            alive = {r[0] for r in conn.execute(
                "SELECT id FROM kb_chunks WHERE id IN (SELECT value FROM json_each(?))",
                (json.dumps([r[0] for r in rows]),))}
            keep = [i for i, r in enumerate(rows) if r[0] in alive]
            _insert_vectors(conn, self.space.table, [rows[i] for i in keep], vectors[keep])

    def search(self, vector: np.ndarray, *, tenant: str, filters: Filters, limit: int) -> list[Ranked]:
        if self.ann is not None:
            return self.ann.search(vector, tenant=tenant, filters=filters, limit=limit)
        return self.exact(vector, tenant=tenant, filters=filters, limit=limit)

    def exact(
        self, vector: np.ndarray, *, tenant: str, filters: Filters, limit: int, within: Sequence[int] | None = None
    ) -> list[Ranked]:
        """Brute-force kNN in the tenant's vec0 partition (optionally among the chunk ids ``within``)."""
        conn = self.storage.connection()
        sql = f"SELECT chunk_id, distance FROM {self.space.table} WHERE embedding MATCH ? AND k = ? AND tenant = ?"
        params: list[object] = [np.asarray(vector, dtype=np.float32).tobytes(), min(limit, MAX_KNN), tenant]
        if filters.collections is not None:
            sql += f" AND collection IN ({','.join('?' * len(filters.collections))})"
            params.extend(filters.collections)
        candidates: Sequence[int] | None = within
        if filters.needs_candidates:
            allowed = allowed_chunks(conn, tenant, filters)
            candidates = allowed if within is None else sorted(set(allowed).intersection(within))
        if candidates is not None:
            if not candidates:
                return []
            sql += " AND chunk_id IN (SELECT value FROM json_each(?))"
            params.append(json.dumps(list(candidates)))
        rows = conn.execute(sql + " ORDER BY distance", params).fetchall()
        return [Ranked(int(r[0]), 1.0 - float(r[1])) for r in rows]

    # -- what the approximate index (lastline.kb._ann) is built from and checked against -------

    def tenant_size(self, tenant: str) -> int:
        """The tenant's chunk count: an upper bound on its vectors in this space."""
        return int(self.storage.query("SELECT count(*) FROM kb_chunks WHERE tenant = ?", (tenant,))[0][0])

    def watermark(self) -> int:
        return chunk_watermark(self.storage.connection())

    def stream(self, tenant: str, batch: int) -> Iterator[tuple[np.ndarray, list[str], np.ndarray]]:
        cursor = self.storage.connection().execute(
            f"SELECT chunk_id, collection, embedding FROM {self.space.table} WHERE tenant = ?", (tenant,))
        while rows := cursor.fetchmany(batch):
            ids = np.fromiter((r[0] for r in rows), dtype=np.int64, count=len(rows))
            matrix = np.frombuffer(b"".join(r[2] for r in rows), dtype=np.float32).reshape(len(rows), -1)
            yield ids, [r[1] for r in rows], matrix

    def newer(self, tenant: str, after: int) -> list[int]:
        # "+c.tenant": walk the primary key from ``after`` (instant when nothing is newer) rather
        # than the tenant index over every chunk of the tenant.
        return [r[0] for r in self.storage.connection().execute(
            "SELECT c.id FROM kb_chunks c WHERE c.id > ? AND +c.tenant = ? ORDER BY c.id", (after, tenant))]

    def live(self, rowids: Sequence[int]) -> set[int]:
        return _live(self.storage.connection(), rowids)

    def allowed(self, tenant: str, filters: Filters) -> list[int]:
        return allowed_chunks(self.storage.connection(), tenant, filters)

    def cosines(self, vector: np.ndarray, rowids: Sequence[int], *, tenant: str) -> dict[int, float]:
        """From the tenant's graph for the chunks it holds (a vec0 point read costs ≈0.5 ms at 100k), else the table."""
        conn = self.storage.connection()
        query = np.asarray(vector, dtype=np.float32)
        out: dict[int, float] = self.ann.cosines(query, rowids, tenant=tenant) if self.ann is not None else {}
        for rowid in (r for r in rowids if r not in out):
            row = conn.execute(f"SELECT embedding FROM {self.space.table} WHERE chunk_id = ? AND tenant = ?",
                               (rowid, tenant)).fetchone()
            if row is not None:
                out[rowid] = float(np.frombuffer(row[0], dtype=np.float32) @ query)
        return out

    def count(self) -> int:
        if not self.exists():
            return 0
        return int(self.storage.query(f"SELECT count(*) FROM {self.space.table}")[0][0])

    def missing(self, limit: int) -> list[ChunkSource]:
        where, params = self._missing_sql()
        rows = self.storage.query(f"{_SOURCES}{where} ORDER BY c.id LIMIT ?", (*params, limit))
        return [ChunkSource(r[0], r[1], r[2], r[3], r[4], tuple(json.loads(r[5])), r[6], r[7]) for r in rows]

    def pending(self) -> int:
        where, params = self._missing_sql()
        return int(self.storage.query(f"SELECT count(*) FROM kb_chunks c{where}", params)[0][0])

    def vectors(self, tenant: str | None = None) -> tuple[np.ndarray, np.ndarray, list[str], list[str]]:
        """Every stored vector (optionally of one tenant): ids, matrix, tenants, collections."""
        sql = f"SELECT chunk_id, tenant, collection, embedding FROM {self.space.table}"
        rows = self.storage.query(sql + (" WHERE tenant = ?" if tenant is not None else ""),
                                  (tenant,) if tenant is not None else ())
        ids = np.fromiter((r[0] for r in rows), dtype=np.int64, count=len(rows))
        matrix = (np.vstack([np.frombuffer(r[3], dtype=np.float32) for r in rows]) if rows
                  else np.zeros((0, 0), np.float32))
        return ids, matrix, [r[1] for r in rows], [r[2] for r in rows]


class SQLiteKBStore:
    """Documents, chunks, FTS5 keyword index and sqlite-vec spaces in one SQLite file."""

    def __init__(self, storage: SQLiteStorage, *, ann: AnnConfig | None = None) -> None:
        self.storage = storage
        self.ann = ann if ann is not None else AnnConfig()
        self._spaces: dict[str, SQLiteVectorIndex] = {}
        storage.migrate(MIGRATIONS)

    def vector_index(self, space: VectorSpace) -> SQLiteVectorIndex:
        """One object per space, so its approximate index (built once) serves every caller."""
        if space.name not in self._spaces:
            self._spaces[space.name] = SQLiteVectorIndex(self.storage, space, self.ann)
        return self._spaces[space.name]

    # -- documents -----------------------------------------------------------------------------

    def documents(self, tenant: str) -> dict[str, StoredDocument]:
        rows = self.storage.query(
            "SELECT doc_id, id, content_hash, collection, source FROM kb_documents WHERE tenant = ?", (tenant,)
        )
        return {r[0]: StoredDocument(r[1], r[2], r[3], r[4]) for r in rows}

    def count(self, tenant: str) -> int:
        return int(self.storage.query("SELECT count(*) FROM kb_documents WHERE tenant = ?", (tenant,))[0][0])

    def chunk_count(self, tenant: str | None = None) -> int:
        if tenant is None:
            return int(self.storage.query("SELECT count(*) FROM kb_chunks")[0][0])
        return int(self.storage.query("SELECT count(*) FROM kb_chunks WHERE tenant = ?", (tenant,))[0][0])

    def get_document(self, tenant: str, doc_id: str) -> dict[str, Any] | None:
        rows = self.storage.query(
            "SELECT d.doc_id, d.title, d.source, d.collection, d.kind, d.metadata, d.tags, d.text,"
            " d.created_at, d.updated_at, (SELECT count(*) FROM kb_chunks c WHERE c.doc = d.id)"
            " FROM kb_documents d WHERE d.tenant = ? AND d.doc_id = ?",
            (tenant, doc_id),
        )
        if not rows:
            return None
        r = rows[0]
        return {
            "id": r[0], "title": r[1], "source": r[2], "collection": r[3], "kind": r[4],
            "metadata": json.loads(r[5]), "tags": json.loads(r[6]), "text": r[7], "created_at": r[8],
            "updated_at": r[9], "chunks": r[10],
        }

    def write(
        self, tenant: str, collection: str, documents: Sequence[DocumentWrite],
        vectors: Mapping[VectorSpace, tuple[Sequence[int], np.ndarray]],
    ) -> list[int]:
        with self.storage.atomic() as conn:
            tables = _vector_tables(conn)
            rowids: list[int] = []
            # Ids past every id ever handed out, even one whose chunk is gone since (SQLite alone would
            # reuse the top id after a delete): an id names one chunk's one vector for good.
            next_id = count(chunk_watermark(conn) + 1)
            for item in documents:
                rowids += _write_document(conn, tenant, collection, item, tables, next_id)
            if rowids:
                _set_meta(conn, _CHUNK_HWM, str(rowids[-1]))
            for space, (positions, matrix) in vectors.items():
                _insert_vectors(conn, space.table, [(rowids[i], tenant, collection) for i in positions], matrix)
        return rowids

    def delete(self, tenant: str, doc_ids: Iterable[str]) -> list[str]:
        removed = []
        with self.storage.atomic() as conn:
            tables = _vector_tables(conn)
            for doc_id in doc_ids:
                row = conn.execute(
                    "SELECT id FROM kb_documents WHERE tenant = ? AND doc_id = ?", (tenant, doc_id)
                ).fetchone()
                if row is not None:
                    _delete_document(conn, row[0], tables)
                    removed.append(doc_id)
        return removed

    def chunk_rows(self, tenant: str, rowids: Sequence[int]) -> dict[int, ChunkRow]:
        out: dict[int, ChunkRow] = {}
        for row in self.storage.connection().execute(_HYDRATE, (tenant, json.dumps(list(rowids)))):
            out[row[0]] = ChunkRow(
                rowid=row[0], doc_id=row[1], ord=row[2], title=row[3], text=row[4], source=row[5],
                heading=tuple(json.loads(row[6])), start=row[7], end=row[8], collection=row[9], kind=row[10],
                metadata=json.loads(row[11]), tags=json.loads(row[12]), question=row[13], answer=row[14],
            )
        return out

    def chunk_keys(self, tenant: str) -> dict[int, tuple[str, int]]:
        """Chunk row id → (doc id, chunk ordinal) for a tenant (evaluation collapses chunks to documents)."""
        return {r[0]: (r[1], r[2]) for r in self.storage.query(
            "SELECT c.id, d.doc_id, c.ord FROM kb_chunks c JOIN kb_documents d ON d.id = c.doc WHERE d.tenant = ?",
            (tenant,))}

    def files(self, tenant: str) -> dict[str, StoredFile]:
        rows = self.storage.query(
            "SELECT source, collection, size, mtime_ns, sha256, settings FROM kb_files WHERE tenant = ?", (tenant,))
        return {r[0]: StoredFile(*r) for r in rows}

    def record_files(self, tenant: str, files: Sequence[StoredFile]) -> None:
        with self.storage.atomic() as conn:
            conn.executemany(
                "INSERT INTO kb_files (tenant, source, collection, size, mtime_ns, sha256, settings)"
                " VALUES (?,?,?,?,?,?,?) ON CONFLICT (tenant, source) DO UPDATE SET collection = excluded.collection,"
                " size = excluded.size, mtime_ns = excluded.mtime_ns, sha256 = excluded.sha256,"
                " settings = excluded.settings",
                [(tenant, f.source, f.collection, f.size, f.mtime_ns, f.sha256, f.settings) for f in files],
            )

    def forget_files(self, tenant: str, sources: Iterable[str]) -> None:
        with self.storage.atomic() as conn:
            conn.executemany("DELETE FROM kb_files WHERE tenant = ? AND source = ?", [(tenant, s) for s in sources])

    def meta(self, key: str) -> str | None:
        return _get_meta(self.storage.connection(), key)

    def set_meta(self, key: str, value: str) -> None:
        with self.storage.atomic() as conn:
            _set_meta(conn, key, value)

    # -- keyword index -------------------------------------------------------------------------

    def keyword_search(self, terms: Sequence[str], *, tenant: str, filters: Filters, limit: int) -> list[Ranked]:
        """FTS5 BM25's best ``limit`` of the tenant's chunks passing ``filters``.

        An OR query over a query's words matches a quarter to two fifths of a corpus of prose (every
        chunk with "increased" or "patients"): 25k rows at 100k chunks. Joining each match to its
        chunk row to check the tenant and filters cost as much as BM25 itself (≈2 µs a row), so FTS5
        ranks first and only its top rows are checked — ``limit`` rows, then ``_DEEPEN`` times as
        many when the check drops some (another tenant's or a filtered-out chunk) — and only when
        that still comes back short does the join run over every match. Same list either way.
        """
        expression = fts5_expression(list(terms))
        if expression is None:
            return []
        conn = self.storage.connection()
        where, params = filter_sql(filters)
        for depth in (limit, limit * _DEEPEN):
            top = conn.execute(_FTS_TOP, (expression, depth)).fetchall()
            kept = {r[0] for r in conn.execute(
                f"SELECT c.id FROM kb_chunks c WHERE c.id IN (SELECT value FROM json_each(?)) AND +c.tenant = ?{where}",
                (json.dumps([r[0] for r in top]), tenant, *params))}
            found = [Ranked(int(r[0]), -float(r[1])) for r in top if r[0] in kept]
            if len(found) >= limit or len(top) < depth:  # enough, or FTS5 has no more matches
                return found[:limit]
        sql = (
            "SELECT c.id, bm25(kb_fts) AS s FROM kb_fts JOIN kb_chunks c ON c.id = kb_fts.rowid"
            f" WHERE kb_fts MATCH ? AND c.tenant = ?{where} ORDER BY s LIMIT ?"
        )
        rows = conn.execute(sql, (expression, tenant, *params, limit)).fetchall()
        return [Ranked(int(r[0]), -float(r[1])) for r in rows]

    def faq_exact(self, question_norm: str, *, tenant: str, filters: Filters) -> list[int]:
        where, params = filter_sql(filters)
        sql = (
            "SELECT f.chunk FROM kb_faq f JOIN kb_chunks c ON c.id = f.chunk"
            f" WHERE f.tenant = ? AND f.question_norm = ?{where} ORDER BY f.chunk"
        )
        return [int(r[0]) for r in self.storage.connection().execute(sql, (tenant, question_norm, *params))]

    # -- what the in-memory keyword index (lastline.kb._bm25) is built from and checked against --

    def tenant_size(self, tenant: str) -> int:
        return self.chunk_count(tenant)

    def keyword_rows(self, tenant: str, *, after: int, limit: int | None, batch: int) -> Iterator[list[KeywordRow]]:
        # The body FTS5 stores (segmented text), stemmed as its porter tokenizer does; one statement,
        # so one snapshot. "+c.tenant" and CROSS JOIN: walk kb_chunks' primary key from ``after``
        # (instant when nothing is newer), never a scan of the FTS table (190 ms at 100k chunks).
        cursor = self.storage.connection().execute(
            "SELECT c.id, c.collection, f.body FROM kb_chunks c CROSS JOIN kb_fts f ON f.rowid = c.id"
            " WHERE c.id > ? AND +c.tenant = ? ORDER BY c.id LIMIT ?", (after, tenant, -1 if limit is None else limit))
        while rows := cursor.fetchmany(batch):
            yield [keyword_row(int(r[0]), r[1], r[2]) for r in rows]

    def query_lexemes(self, terms: Sequence[str]) -> list[str]:
        # FTS5 ranks by each quoted term as a phrase, stemmed: two terms of one stem count twice.
        return [lexeme(t) for t in terms]

    def check(self, tenant: str, rowids: Sequence[int], *, after: int, limit: int) -> tuple[set[int], list[KeywordRow]]:
        rows = [r for batch in self.keyword_rows(tenant, after=after, limit=limit, batch=limit) for r in batch]
        return _live(self.storage.connection(), rowids), rows

    def allowed(self, tenant: str, filters: Filters) -> list[int]:
        return allowed_chunks(self.storage.connection(), tenant, filters)

    def chunk_ids(self, tenant: str, *, upto: int) -> list[int]:
        return [r[0] for r in self.storage.connection().execute(
            "SELECT id FROM kb_chunks WHERE tenant = ? AND id <= ?", (tenant, upto))]

    def reindex_keywords(self, keyword_text: Callable[[str, str, tuple[str, ...], str], str]) -> None:
        rows = self.storage.query(
            "SELECT c.id, d.kind, d.title, c.heading, c.text FROM kb_chunks c JOIN kb_documents d ON d.id = c.doc"
        )
        with self.storage.atomic() as conn:
            conn.execute("DELETE FROM kb_fts")
            conn.executemany(
                "INSERT INTO kb_fts (rowid, body) VALUES (?, ?)",
                [(r[0], keyword_text(r[1], r[2], tuple(json.loads(r[3])), r[4])) for r in rows],
            )
