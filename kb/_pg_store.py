"""The shared implementation of the KB store: PostgreSQL tables, ``tsvector`` keywords, pgvector per space.

Same Protocol methods and meaning as :mod:`lastline.kb._sqlite_store`, for N replicas on one database.
Nothing is kept per process: every search reads the tables, so a document written or deleted
through one replica is found (or gone) through every other as soon as its transaction commits.

Tenants. Every tenant-scoped method runs in ``storage.atomic(tenant)``: one transaction as the
application role with the tenant set, and the row-level security policy of each table
(:mod:`lastline.kb._pg_schema`) admits only that tenant's rows, whatever the SQL says. The queries
still name the tenant, so the planner can use the ``(tenant, …)`` indexes. The cross-tenant jobs —
building, filling and dropping a vector space, counting pending chunks, re-indexing keywords after
a segmenter change — run in ``storage.maintenance()`` as the owner role: they are the service's own
background work over every tenant, never a request's.

Keywords. The keyword text arrives segmented exactly as for FTS5 (:mod:`lastline.kb._segment`:
Chinese runs split in Python); :mod:`lastline.kb._stem` stems and folds it as FTS5's porter
tokenizer would, and ``to_tsvector('simple', …)`` stores it (GIN index). A query is built from
:func:`~lastline.kb._segment.query_terms` only: each term goes through ``plainto_tsquery`` as a
bound parameter and the terms are OR-ed, so no user text is ever parsed as ``tsquery`` syntax.
The rank is BM25 computed over the tsvector statistics (k1 1.2, b 0.75, FTS5's idf floor), not
``ts_rank_cd``: cover density ignores how rare a term is, and BM25's ordering is what the fusion
weights were tuned on (docs/benchmarks.md). Statistics (chunk count, average length, document
frequencies) are the tenant's — FTS5 counts the whole file; per tenant is also what isolation wants.

Vectors. One table per space (``kb_vec``, ``kb_vec_en``) with a ``vector(dim)`` column, made by
:meth:`PostgresVectorIndex.reset` without a graph: an HNSW index kept up on every insert costs a
bulk ingest far more than the rows (≈30 chunks/s against ≈140/s without it, bench/backends.py).
The HNSW index (cosine ops) is built over the vectors already there by
:meth:`PostgresVectorIndex.ensure_search_index` — a serving replica at start, once the space is
complete (see ``KnowledgeBase.build_search_indexes``) — in one pass with the build's memory raised
for that transaction only. Until it exists kNN is an exact scan of the tenant's vectors. HNSW
filters after its graph walk, so a tenant's (or a filter's) share of the graph can come back
short: ``hnsw.ef_search`` is raised to the depth asked for, and a list still shorter than that
depth is re-run as an exact scan (no index scan), so kNN never returns fewer rows than the tenant has.

Resetting, dropping and indexing a space are serialised by one transaction-scoped advisory lock
per space, taken before any table lock (see :meth:`PostgresVectorIndex.reset`).
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import Any

import numpy as np
from psycopg import sql as pgsql

from lastline.postgres import PostgresStorage, build_index_in_memory, tenant_isolation
from lastline.text import normalize_text

from ._bm25 import BM25_B, BM25_K1
from ._filters import Filters
from ._pg_schema import MIGRATIONS
from ._spaces import VectorSpace
from ._stem import keyword_lexemes, lexeme
from ._store import ChunkRow, ChunkSource, DocumentWrite, KeywordRow, Ranked, StoredDocument, StoredFile

__all__ = ["SPACE_LOCK", "PostgresKBStore", "PostgresVectorIndex"]

_DOC_LOCK_CLASS = 0x6B62  # pg_advisory_xact_lock(class, key): one writer per (tenant, doc id) at a time
#: pg_advisory_xact_lock(class, hashtext(tenant)): a tenant's chunk ids are handed out in commit order
#: (the in-memory keyword index appends ids above its highest, lastline.kb._bm25).
_CHUNK_ID_LOCK_CLASS = 0x6B63
SPACE_LOCK = 0x6B76  # pg_advisory_xact_lock(class, key): one reset / drop / index build of a space at a time
MAX_EF_SEARCH = 1000  # pgvector's limit on hnsw.ef_search
_MAX_LEXEME_BYTES = 2046  # PostgreSQL drops longer words from a tsvector (with a notice)


def _text(value: str) -> str:
    """PostgreSQL text cannot hold NUL; a same-length stand-in keeps every span offset valid."""
    return value.replace("\x00", "\ufffd")


def _json(value: Any) -> str:
    """JSON for a ``jsonb`` column, serialized as the SQLite store does (``default=str``)."""
    return json.dumps(value, ensure_ascii=False, default=str).replace("\\u0000", "\\ufffd")


def _keyword_body(segmented: str) -> tuple[str, int]:
    """The text ``to_tsvector('simple', …)`` indexes for a chunk, and its token count (BM25's length)."""
    lexemes = keyword_lexemes(_text(segmented))
    return " ".join(lexemes), len(lexemes)


def filter_sql(filters: Filters) -> tuple[str, list[Any]]:
    """``AND …`` conditions on ``c`` (kb_chunks) for everything but the tenant."""
    clauses: list[str] = []
    params: list[Any] = []
    if filters.collections is not None:
        clauses.append("c.collection = ANY(%s)")
        params.append(list(filters.collections))
    for tag in filters.tags:
        clauses.append("c.doc IN (SELECT doc FROM kb_doc_tags WHERE tenant = c.tenant AND tag = %s)")
        params.append(tag)
    if filters.doc_ids is not None:
        clauses.append("c.doc IN (SELECT id FROM kb_documents WHERE tenant = c.tenant AND doc_id = ANY(%s))")
        params.append(list(filters.doc_ids))
    for key, value in filters.metadata.items():
        clauses.append("c.doc IN (SELECT id FROM kb_documents WHERE tenant = c.tenant AND metadata -> %s = %s::jsonb)")
        params.extend([key, _json(value)])
    return "".join(f" AND {c}" for c in clauses), params


def _get_meta(conn: Any, key: str) -> str | None:
    row = conn.execute("SELECT value FROM kb_meta WHERE key = %s", (key,)).fetchone()
    return None if row is None else str(row[0])


def _set_meta(conn: Any, key: str, value: str) -> None:
    conn.execute("INSERT INTO kb_meta (key, value) VALUES (%s, %s)"
                 " ON CONFLICT (key) DO UPDATE SET value = excluded.value", (key, value))


def _scalar(conn: Any, query: Any, params: Sequence[Any] = ()) -> Any:
    """The one value of a query that always returns one row (a count, an existence test)."""
    row = conn.execute(query, params).fetchone()
    assert row is not None
    return row[0]


def _relation_exists(conn: Any, name: str) -> bool:
    """Whether a table or index of that name exists."""
    return bool(_scalar(conn, "SELECT to_regclass(%s) IS NOT NULL", (name,)))


def _hnsw_name(space: VectorSpace) -> str:
    return f"{space.table}_hnsw"


_SOURCES = (
    "SELECT c.id, c.tenant, c.collection, d.kind, d.title, c.heading, c.text, f.question FROM kb_chunks c"
    " JOIN kb_documents d ON d.id = c.doc LEFT JOIN kb_faq f ON f.chunk = c.id"
)


class PostgresVectorIndex:
    """One vector space as a table: ``vector(dim)`` column, HNSW cosine index, tenant column under RLS."""

    def __init__(self, storage: PostgresStorage, space: VectorSpace) -> None:
        self.storage = storage
        self.space = space
        self.table = pgsql.Identifier(space.table)

    def _missing_sql(self) -> tuple[pgsql.Composed, list[Any]]:
        where = pgsql.SQL(" WHERE NOT EXISTS (SELECT 1 FROM {} v WHERE v.chunk_id = c.id)").format(self.table)
        params: list[Any] = []
        if self.space.languages is not None:
            where += pgsql.SQL(" AND c.lang = ANY(%s)")
            params.append(sorted(self.space.languages))
        return where, params

    def _lock_space(self, conn: Any) -> None:
        """Serialise the DDL on this space (reset, drop, index build) across replicas, until commit."""
        conn.execute("SELECT pg_advisory_xact_lock(%s, hashtext(%s))", (SPACE_LOCK, self.space.table))

    def model(self) -> tuple[str, int] | None:
        with self.storage.maintenance() as conn:
            return self._model(conn)

    def _model(self, conn: Any) -> tuple[str, int] | None:
        model_id, dim = _get_meta(conn, self.space.model_key), _get_meta(conn, self.space.dim_key)
        if not model_id or dim is None or not _relation_exists(conn, self.space.table):
            return None
        return model_id, int(dim)

    def exists(self) -> bool:
        with self.storage.maintenance() as conn:
            return _relation_exists(conn, self.space.table)

    def building(self) -> int | None:
        with self.storage.maintenance() as conn:
            return self._building(conn)

    def _building(self, conn: Any) -> int | None:
        model_id, dim = _get_meta(conn, self.space.model_key), _get_meta(conn, self.space.dim_key)
        return int(dim) if model_id == "" and dim is not None and _relation_exists(conn, self.space.table) else None

    def reset(self, dim: int, *, seen: tuple[str, int] | None) -> bool:
        """Compare-and-reset under the space's lock (see :meth:`VectorIndex.reset`).

        Every change of the space's state — reset, :meth:`mark_built`, :meth:`drop`, the index build —
        holds the same advisory lock, so the look taken here cannot change between its statements
        (a look split across a concurrent ``mark_built`` once read "building" and "not building" at
        once and dropped a complete space while other replicas wrote to it). An existing table is
        emptied and retyped rather than dropped: ``DROP TABLE`` also locks ``kb_chunks`` (the
        foreign key), after ``kb_vec``, the opposite order to a writer's, which deadlocked against
        writes and fills of other replicas; ``TRUNCATE`` and ``ALTER`` lock this table alone.
        """
        name = self.space.table
        with self.storage.maintenance() as conn:
            self._lock_space(conn)  # one resetter per space at a time, and the look under the same lock
            if self._model(conn) != seen or self._building(conn) == int(dim):
                return False
            if _relation_exists(conn, name):
                conn.execute(pgsql.SQL("TRUNCATE {}").format(self.table))
                conn.execute(pgsql.SQL("DROP INDEX IF EXISTS {}").format(pgsql.Identifier(_hnsw_name(self.space))))
                conn.execute(pgsql.SQL("ALTER TABLE {} ALTER COLUMN embedding TYPE vector({})").format(
                    self.table, pgsql.Literal(int(dim))))
            else:
                conn.execute(pgsql.SQL(
                    "CREATE TABLE {} (chunk_id BIGINT PRIMARY KEY REFERENCES kb_chunks (id) ON DELETE CASCADE,"
                    " tenant TEXT NOT NULL, collection TEXT NOT NULL, embedding vector({}) NOT NULL)"
                ).format(self.table, pgsql.Literal(int(dim))))
                conn.execute(pgsql.SQL("CREATE INDEX {} ON {} (tenant, collection)").format(
                    pgsql.Identifier(f"{name}_tenant"), self.table))
                for statement in tenant_isolation(name):
                    conn.execute(statement)
                self.storage.grant_app_role(conn, name)
            _set_meta(conn, self.space.model_key, "")  # incomplete until every chunk has a vector
            _set_meta(conn, self.space.dim_key, str(int(dim)))
        return True

    def mark_built(self, model_id: str) -> None:
        with self.storage.maintenance() as conn:
            self._lock_space(conn)  # never between the statements of a reset's look
            _set_meta(conn, self.space.model_key, model_id)

    def warm(self, tenant: str) -> bool:
        """Nothing in memory to build: pgvector's index is in the database."""
        return False

    def stop_builds(self) -> None:
        """Nothing builds in memory here."""

    def has_search_index(self) -> bool:
        """Whether the space's HNSW index exists (kNN is an exact scan until it does)."""
        with self.storage.maintenance() as conn:
            return _relation_exists(conn, _hnsw_name(self.space))

    def ensure_search_index(self) -> bool:
        """Build the space's HNSW index over the vectors there, when the space is complete and has none.

        Returns True when this call built it. Once it exists every insert keeps it current, so a
        replica builds it after the bulk of the rows are in rather than before: at a serving
        replica's start, or once a background space is filled. The build holds the space's writers
        for its duration (one pass over its vectors, in memory); searches go on meanwhile, exact.
        N replicas asking at once build it once: the others wait on the space's lock and then find
        it there. A space still being built (model unset) is left alone: its filler's inserts would
        pay for the graph.
        """
        index = _hnsw_name(self.space)
        if self.has_search_index():  # the usual case, and no lock for it
            return False
        with self.storage.maintenance() as conn:
            self._lock_space(conn)
            if self._model(conn) is None or _relation_exists(conn, index):
                return False
            build_index_in_memory(conn, pgsql.SQL("CREATE INDEX {} ON {} USING hnsw (embedding vector_cosine_ops)")
                                  .format(pgsql.Identifier(index), self.table), self.table)
        return True

    def drop(self) -> None:
        with self.storage.maintenance() as conn:
            self._lock_space(conn)
            conn.execute(pgsql.SQL("DROP TABLE IF EXISTS {}").format(self.table))
            conn.execute("DELETE FROM kb_meta WHERE key = ANY(%s)", ([self.space.model_key, self.space.dim_key],))

    def insert(self, rows: Sequence[tuple[int, str, str]], vectors: np.ndarray) -> None:
        """Vectors of chunks of any tenants (the background filler's batch), as the owner, in one transaction.

        A chunk deleted while its vector was being computed is skipped (no orphan); a vector another
        replica's filler wrote first is kept (both computed the same one).
        """
        sql = pgsql.SQL(
            "INSERT INTO {} (chunk_id, tenant, collection, embedding)"
            " SELECT %s, %s, %s, %s WHERE EXISTS (SELECT 1 FROM kb_chunks WHERE id = %s)"
            " ON CONFLICT (chunk_id) DO NOTHING"
        ).format(self.table)
        with self.storage.maintenance() as conn:
            conn.cursor().executemany(sql, [
                (r[0], r[1], r[2], np.asarray(v, dtype=np.float32), r[0]) for r, v in zip(rows, vectors, strict=True)
            ])

    def _knn(self, conn: Any, vector: np.ndarray, tenant: str, filters: Filters, limit: int) -> list[Any]:
        sql = pgsql.SQL("SELECT v.chunk_id, 1 - (v.embedding <=> %s) FROM {} v WHERE v.tenant = %s").format(
            self.table)
        query = np.asarray(vector, dtype=np.float32)
        params: list[Any] = [query, tenant]
        if filters.collections is not None:
            sql += pgsql.SQL(" AND v.collection = ANY(%s)")
            params.append(list(filters.collections))
        if filters.needs_candidates:
            where, extra = filter_sql(filters)
            sql += pgsql.SQL(" AND v.chunk_id IN (SELECT c.id FROM kb_chunks c WHERE c.tenant = %s")
            sql += pgsql.SQL(where) + pgsql.SQL(")")
            params += [tenant, *extra]
        sql += pgsql.SQL(" ORDER BY v.embedding <=> %s LIMIT %s")  # the distance alone: what HNSW can serve
        params += [query, limit]
        return list(conn.execute(sql, params).fetchall())

    def search(self, vector: np.ndarray, *, tenant: str, filters: Filters, limit: int) -> list[Ranked]:
        with self.storage.atomic(tenant) as conn:
            conn.execute("SELECT set_config('hnsw.ef_search', %s, true)", (str(min(max(limit, 40), MAX_EF_SEARCH)),))
            rows = self._knn(conn, vector, tenant, filters, limit)
            if len(rows) < limit:  # maybe cut short by HNSW's post-filter: the exact scan decides
                conn.execute("SELECT set_config('enable_indexscan', 'off', true),"
                             " set_config('enable_seqscan', 'on', true)")  # a scan of the tenant's rows, not the graph
                rows = self._knn(conn, vector, tenant, filters, limit)
        return [Ranked(int(r[0]), float(r[1])) for r in rows]

    def cosines(self, vector: np.ndarray, rowids: Sequence[int], *, tenant: str) -> dict[int, float]:
        if not rowids:
            return {}
        sql = pgsql.SQL("SELECT chunk_id, 1 - (embedding <=> %s) FROM {} WHERE tenant = %s AND chunk_id = ANY(%s)")
        with self.storage.atomic(tenant) as conn:
            rows = conn.execute(sql.format(self.table),
                                (np.asarray(vector, dtype=np.float32), tenant, list(rowids))).fetchall()
        return {int(r[0]): float(r[1]) for r in rows}

    def count(self) -> int:
        with self.storage.maintenance() as conn:
            if not _relation_exists(conn, self.space.table):
                return 0
            return int(_scalar(conn, pgsql.SQL("SELECT count(*) FROM {}").format(self.table)))

    def missing(self, limit: int) -> list[ChunkSource]:
        where, params = self._missing_sql()
        with self.storage.maintenance() as conn:
            rows = conn.execute(pgsql.SQL(_SOURCES) + where + pgsql.SQL(" ORDER BY c.id LIMIT %s"),
                                (*params, limit)).fetchall()
        return [ChunkSource(r[0], r[1], r[2], r[3], r[4], tuple(r[5]), r[6], r[7]) for r in rows]

    def pending(self) -> int:
        where, params = self._missing_sql()
        with self.storage.maintenance() as conn:
            if not _relation_exists(conn, self.space.table):  # a space not made yet lacks every chunk it holds
                languages = " WHERE c.lang = ANY(%s)" if self.space.languages is not None else ""
                return int(_scalar(conn, "SELECT count(*) FROM kb_chunks c" + languages, params))
            return int(_scalar(conn, pgsql.SQL("SELECT count(*) FROM kb_chunks c") + where, params))


_HYDRATE = (
    'SELECT c.id, d.doc_id, c.ord, d.title, c.text, d.source, c.heading, c.start, c."end", d.collection,'
    " d.kind, d.metadata, d.tags, f.question, f.answer FROM kb_chunks c JOIN kb_documents d ON d.id = c.doc"
    " LEFT JOIN kb_faq f ON f.chunk = c.id WHERE c.tenant = %s AND c.id = ANY(%s)"
)
_INSERT_CHUNK = (
    'INSERT INTO kb_chunks (id, doc, tenant, collection, ord, heading, start, "end", text, lang, tsv, kw_len)'
    " VALUES (%s, %s, %s, %s, %s, %s::jsonb, %s, %s, %s, %s, to_tsvector('simple', %s), %s)"
)


def _write_documents(conn: Any, tenant: str, collection: str, documents: Sequence[DocumentWrite]) -> list[int]:
    """Replace or insert ``documents`` (cascading deletes take the old rows with them); chunk ids in order."""
    # Two replicas replacing the same document: the second waits for the first to commit, then its
    # DELETE sees and replaces the first's rows (last writer wins, as on SQLite) instead of failing on
    # the unique key. Locks are taken in one order, so two batches sharing documents cannot deadlock.
    for doc_id in sorted({item.doc_id for item in documents}):
        key = f"{tenant}\x1f{_text(doc_id)}"
        conn.execute("SELECT pg_advisory_xact_lock(%s, hashtext(%s))", (_DOC_LOCK_CLASS, key))
    total = sum(len(item.chunks) for item in documents)
    # Held to commit, after the document locks (always in that order): no chunk of this tenant can
    # commit with an id below one committed before it, so "ids above the highest seen" is every new one.
    conn.execute("SELECT pg_advisory_xact_lock(%s, hashtext(%s))", (_CHUNK_ID_LOCK_CLASS, tenant))
    rowids = [int(r[0]) for r in conn.execute(
        "SELECT nextval(pg_get_serial_sequence('kb_chunks', 'id')) FROM generate_series(1, %s)", (total,))]
    chunks: list[tuple[Any, ...]] = []
    faqs: list[tuple[Any, ...]] = []
    tags_rows: list[tuple[Any, ...]] = []
    now = time.time()
    position = 0
    for item in documents:
        document = item.document
        old = conn.execute("DELETE FROM kb_documents WHERE tenant = %s AND doc_id = %s RETURNING created_at",
                           (tenant, _text(item.doc_id))).fetchone()
        tags = sorted(set(document.tags))
        doc_rowid = int(conn.execute(
            "INSERT INTO kb_documents (tenant, doc_id, collection, kind, source, content_hash, title, metadata,"
            " tags, text, created_at, updated_at) VALUES (%s, %s, %s, %s, %s, %s, %s, %s::jsonb, %s::jsonb, %s,"
            " %s, %s) RETURNING id",
            (tenant, _text(item.doc_id), collection, document.kind, None if item.source is None else _text(item.source),
             item.content_hash, _text(document.title), _json(document.metadata), _json(tags), _text(document.text),
             now if old is None else old[0], now),
        ).fetchone()[0])
        tags_rows += [(doc_rowid, tenant, _text(t)) for t in tags]
        for chunk, body, lang in zip(item.chunks, item.keyword_texts, item.languages, strict=True):
            chunk_rowid = rowids[position]
            position += 1
            keyword_body, length = _keyword_body(body)
            chunks.append((chunk_rowid, doc_rowid, tenant, collection, chunk.ord, _json(list(chunk.heading)),
                           chunk.start, chunk.end, _text(chunk.text), lang, keyword_body, length))
            if document.kind == "faq" and document.question is not None:
                faqs.append((chunk_rowid, tenant, _text(document.question), _text(normalize_text(document.question)),
                             _text(document.answer or "")))
    cursor = conn.cursor()
    cursor.executemany("INSERT INTO kb_doc_tags (doc, tenant, tag) VALUES (%s, %s, %s)", tags_rows)
    cursor.executemany(_INSERT_CHUNK, chunks)
    cursor.executemany("INSERT INTO kb_faq (chunk, tenant, question, question_norm, answer)"
                       " VALUES (%s, %s, %s, %s, %s)", faqs)
    return rowids


def _bm25_sql(n_terms: int, where: str) -> str:
    """BM25 of the tenant's chunks matching any term, statistics from the tsvectors (see module docstring).

    ``hits`` holds every (chunk, query lexeme, frequency) of the tenant, so document frequencies do
    not depend on the filters (as in FTS5, where a filter is a WHERE clause over the whole index);
    only chunks that pass the filters are scored.
    """
    any_term = " || ".join(["plainto_tsquery('simple', %s)"] * n_terms)
    return (
        f"WITH q AS (SELECT {any_term} AS query),"
        " terms AS (SELECT DISTINCT unnest(tsvector_to_array(to_tsvector('simple', %s))) AS lexeme),"
        " hits AS (SELECT c.id, c.kw_len, u.lexeme, cardinality(u.positions)::float8 AS tf,"
        f" (TRUE{where}) AS passes FROM kb_chunks c CROSS JOIN q"
        " CROSS JOIN LATERAL unnest(c.tsv) AS u (lexeme, positions, weights)"
        " WHERE c.tenant = %s AND c.tsv @@ q.query AND u.lexeme IN (SELECT lexeme FROM terms)),"
        " stats AS (SELECT count(*)::float8 AS n, greatest(coalesce(avg(kw_len), 0), 1)::float8 AS avgdl"
        " FROM kb_chunks WHERE tenant = %s),"
        " df AS (SELECT lexeme, count(*)::float8 AS df FROM hits GROUP BY lexeme)"
        " SELECT h.id, sum(greatest(ln((s.n - d.df + 0.5) / (d.df + 0.5)), 1e-6)"
        f" * h.tf * {BM25_K1 + 1} / (h.tf + {BM25_K1} * ({1 - BM25_B} + {BM25_B} * h.kw_len / s.avgdl))) AS score"
        " FROM hits h JOIN df d ON d.lexeme = h.lexeme CROSS JOIN stats s WHERE h.passes"
        " GROUP BY h.id ORDER BY score DESC, h.id LIMIT %s"
    )


_KEYWORD_ROWS = (
    "SELECT c.id, c.collection, c.kw_len, ARRAY(SELECT u.lexeme FROM unnest(c.tsv) u),"
    " ARRAY(SELECT cardinality(u.positions) FROM unnest(c.tsv) u) FROM kb_chunks c"
    " WHERE c.tenant = %s AND c.id > %s ORDER BY c.id LIMIT %s"
)


def _keyword_row(row: Sequence[Any]) -> KeywordRow:
    return KeywordRow(int(row[0]), row[1], row[3], row[4], int(row[2]))


class PostgresKBStore:
    """Documents, chunks, ``tsvector`` keyword index and pgvector spaces in the shared database."""

    def __init__(self, storage: PostgresStorage) -> None:
        self.storage = storage
        storage.migrate(MIGRATIONS)

    def vector_index(self, space: VectorSpace) -> PostgresVectorIndex:
        return PostgresVectorIndex(self.storage, space)

    # -- documents -----------------------------------------------------------------------------

    def documents(self, tenant: str) -> dict[str, StoredDocument]:
        rows = self.storage.query(
            "SELECT doc_id, id, content_hash, collection, source FROM kb_documents WHERE tenant = %s", (tenant,),
            tenant=tenant)
        return {r[0]: StoredDocument(int(r[1]), r[2], r[3], r[4]) for r in rows}

    def count(self, tenant: str) -> int:
        return int(self.storage.query("SELECT count(*) FROM kb_documents WHERE tenant = %s", (tenant,),
                                      tenant=tenant)[0][0])

    def chunk_count(self, tenant: str | None = None) -> int:
        if tenant is None:
            with self.storage.maintenance() as conn:
                return int(_scalar(conn, "SELECT count(*) FROM kb_chunks"))
        return int(self.storage.query("SELECT count(*) FROM kb_chunks WHERE tenant = %s", (tenant,),
                                      tenant=tenant)[0][0])

    def get_document(self, tenant: str, doc_id: str) -> dict[str, Any] | None:
        rows = self.storage.query(
            "SELECT d.doc_id, d.title, d.source, d.collection, d.kind, d.metadata, d.tags, d.text,"
            " d.created_at, d.updated_at, (SELECT count(*) FROM kb_chunks c WHERE c.doc = d.id)"
            " FROM kb_documents d WHERE d.tenant = %s AND d.doc_id = %s",
            (tenant, _text(doc_id)), tenant=tenant)
        if not rows:
            return None
        r = rows[0]
        return {
            "id": r[0], "title": r[1], "source": r[2], "collection": r[3], "kind": r[4], "metadata": r[5],
            "tags": r[6], "text": r[7], "created_at": r[8], "updated_at": r[9], "chunks": int(r[10]),
        }

    def write(
        self, tenant: str, collection: str, documents: Sequence[DocumentWrite],
        vectors: Mapping[VectorSpace, tuple[Sequence[int], np.ndarray]],
    ) -> list[int]:
        with self.storage.atomic(tenant) as conn:
            rowids = _write_documents(conn, tenant, collection, documents)
            for space, (positions, matrix) in vectors.items():
                conn.cursor().executemany(
                    pgsql.SQL("INSERT INTO {} (chunk_id, tenant, collection, embedding) VALUES (%s, %s, %s, %s)")
                    .format(pgsql.Identifier(space.table)),
                    [(rowids[i], tenant, collection, np.asarray(v, dtype=np.float32))
                     for i, v in zip(positions, matrix, strict=True)],
                )
        return rowids

    def delete(self, tenant: str, doc_ids: Iterable[str]) -> list[str]:
        with self.storage.atomic(tenant) as conn:
            return [str(r[0]) for r in conn.execute(
                "DELETE FROM kb_documents WHERE tenant = %s AND doc_id = ANY(%s) RETURNING doc_id",
                (tenant, [_text(d) for d in doc_ids])).fetchall()]

    def chunk_rows(self, tenant: str, rowids: Sequence[int]) -> dict[int, ChunkRow]:
        out: dict[int, ChunkRow] = {}
        for row in self.storage.query(_HYDRATE, (tenant, list(rowids)), tenant=tenant):
            out[int(row[0])] = ChunkRow(
                rowid=int(row[0]), doc_id=row[1], ord=row[2], title=row[3], text=row[4], source=row[5],
                heading=tuple(row[6]), start=row[7], end=row[8], collection=row[9], kind=row[10],
                metadata=row[11], tags=row[12], question=row[13], answer=row[14],
            )
        return out

    def chunk_keys(self, tenant: str) -> dict[int, tuple[str, int]]:
        """Chunk row id → (doc id, chunk ordinal) for a tenant (evaluation collapses chunks to documents)."""
        return {int(r[0]): (r[1], r[2]) for r in self.storage.query(
            "SELECT c.id, d.doc_id, c.ord FROM kb_chunks c JOIN kb_documents d ON d.id = c.doc WHERE d.tenant = %s",
            (tenant,), tenant=tenant)}

    def files(self, tenant: str) -> dict[str, StoredFile]:
        rows = self.storage.query(
            "SELECT source, collection, size, mtime_ns, sha256, settings FROM kb_files WHERE tenant = %s",
            (tenant,), tenant=tenant)
        return {r[0]: StoredFile(*r) for r in rows}

    def record_files(self, tenant: str, files: Sequence[StoredFile]) -> None:
        with self.storage.atomic(tenant) as conn:
            conn.cursor().executemany(
                "INSERT INTO kb_files (tenant, source, collection, size, mtime_ns, sha256, settings)"
                " VALUES (%s, %s, %s, %s, %s, %s, %s) ON CONFLICT (tenant, source) DO UPDATE SET"
                " collection = excluded.collection, size = excluded.size, mtime_ns = excluded.mtime_ns,"
                " sha256 = excluded.sha256, settings = excluded.settings",
                [(tenant, _text(f.source), f.collection, f.size, f.mtime_ns, f.sha256, f.settings) for f in files],
            )

    def forget_files(self, tenant: str, sources: Iterable[str]) -> None:
        with self.storage.atomic(tenant) as conn:
            conn.execute("DELETE FROM kb_files WHERE tenant = %s AND source = ANY(%s)", (tenant, list(sources)))

    def meta(self, key: str) -> str | None:
        with self.storage.atomic() as conn:
            return _get_meta(conn, key)

    def set_meta(self, key: str, value: str) -> None:
        with self.storage.atomic() as conn:
            _set_meta(conn, key, value)

    # -- keyword index -------------------------------------------------------------------------

    def keyword_search(self, terms: Sequence[str], *, tenant: str, filters: Filters, limit: int) -> list[Ranked]:
        """BM25 computed in SQL over every matching chunk of the tenant (see the module docstring)."""
        lexemes = self.query_lexemes(terms)
        if not lexemes:
            return []
        where, params = filter_sql(filters)
        sql = _bm25_sql(len(lexemes), where)
        rows = self.storage.query(sql, (*lexemes, " ".join(lexemes), *params, tenant, tenant, limit), tenant=tenant)
        return [Ranked(int(r[0]), float(r[1])) for r in rows]

    def faq_exact(self, question_norm: str, *, tenant: str, filters: Filters) -> list[int]:
        where, params = filter_sql(filters)
        sql = ("SELECT f.chunk FROM kb_faq f JOIN kb_chunks c ON c.id = f.chunk"
               f" WHERE f.tenant = %s AND f.question_norm = %s{where} ORDER BY f.chunk")
        return [int(r[0]) for r in self.storage.query(sql, (tenant, _text(question_norm), *params), tenant=tenant)]

    # -- what the in-memory keyword index (lastline.kb._bm25) is built from and checked against --

    def tenant_size(self, tenant: str) -> int:
        return self.chunk_count(tenant)

    def keyword_rows(self, tenant: str, *, after: int, limit: int | None, batch: int) -> Iterator[list[KeywordRow]]:
        """The tsvector's own lexemes and counts (what the SQL BM25 reads), ``kw_len`` as the length; one snapshot."""
        rows = self.storage.query(_KEYWORD_ROWS, (tenant, after, limit), tenant=tenant)
        for start in range(0, len(rows), batch):
            yield [_keyword_row(r) for r in rows[start : start + batch]]

    def check(self, tenant: str, rowids: Sequence[int], *, after: int, limit: int) -> tuple[set[int], list[KeywordRow]]:
        """One transaction (one snapshot, one pool checkout): the live ids and the rows above ``after``."""
        with self.storage.atomic(tenant) as conn:
            live = {int(r[0]) for r in conn.execute(
                "SELECT id FROM kb_chunks WHERE tenant = %s AND id = ANY(%s)", (tenant, list(rowids))).fetchall()
                    } if rowids else set()
            rows = conn.execute(_KEYWORD_ROWS, (tenant, after, limit)).fetchall()
        return live, [_keyword_row(r) for r in rows]

    def query_lexemes(self, terms: Sequence[str]) -> list[str]:
        """Each distinct lexeme once (the SQL matches a tsquery of them), none longer than a tsvector holds."""
        return list(dict.fromkeys(
            t for t in (lexeme(_text(term)) for term in terms) if 0 < len(t.encode("utf-8")) <= _MAX_LEXEME_BYTES))

    def allowed(self, tenant: str, filters: Filters) -> list[int]:
        where, params = filter_sql(filters)
        return [int(r[0]) for r in self.storage.query(
            f"SELECT c.id FROM kb_chunks c WHERE c.tenant = %s{where}", (tenant, *params), tenant=tenant)]

    def chunk_ids(self, tenant: str, *, upto: int) -> list[int]:
        return [int(r[0]) for r in self.storage.query(
            "SELECT id FROM kb_chunks WHERE tenant = %s AND id <= %s", (tenant, upto), tenant=tenant)]

    def reindex_keywords(self, keyword_text: Callable[[str, str, tuple[str, ...], str], str]) -> None:
        """Rewrite every tenant's keyword column (a segmenter change is service-wide): the owner's job."""
        with self.storage.maintenance() as conn:
            rows = conn.execute("SELECT c.id, d.kind, d.title, c.heading, c.text FROM kb_chunks c"
                                " JOIN kb_documents d ON d.id = c.doc").fetchall()
            updates = []
            for r in rows:
                body, length = _keyword_body(keyword_text(r[1], r[2], tuple(r[3]), r[4]))
                updates.append((body, length, r[0]))
            conn.cursor().executemany(
                "UPDATE kb_chunks SET tsv = to_tsvector('simple', %s), kw_len = %s WHERE id = %s", updates)
