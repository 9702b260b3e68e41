"""The PostgreSQL implementation of :class:`~lastline.cache._store_api.CacheStore` (one database, N replicas).

Same methods and meaning as :class:`~lastline.cache._store.SQLiteCacheStore`; what differs is how
several replicas writing at once stay correct:

- **Tenant scope.** A method about one tenant runs in ``storage.atomic(tenant)``: the application
  role, with ``lastline.tenant`` set, so row-level security admits that tenant's rows only. The
  cross-tenant jobs — vectors for an index rebuild or catch-up, the re-embed and values-key
  backfills, the sync counters and deletion log, retention and TTL pruning — run in
  ``storage.maintenance()`` (the owner role).
- **One entry per key.** The insert is an upsert on (tenant, context, prompt hash): two replicas
  storing the same prompt at once leave one entry with one public id. The row moves to a new seq
  and a trigger logs the old one as deleted (as replace-on-same-key does on SQLite), so every
  replica drops the old vector and adds the new one.
- **Seq order = commit order.** Seqs and deletion-log ids come from one-row counters updated
  inside the writing transaction (``_pg_schema.py``), so a counter read never runs ahead of a
  commit — the property the index catch-up (``_sync.py``) rests on. Lock order is fixed to keep
  writers free of deadlocks: the seq counter, then the deletion-log counter (taken up front by
  every transaction that deletes), then entry rows in ascending seq, then their hit rows.
- **Hits apart from vectors.** A hit's bookkeeping (count, last hit, LRU time) updates the entry's
  narrow ``cache_entry_hits`` row only (``cache_pg_0005``): rewriting the entry row would put a new
  version of it into every index, the model's HNSW graph included. LRU eviction reads that table's
  ``(tenant, used_at)`` index and locks both rows of a victim, skipping any another transaction holds.
- **Bounded background deletes.** TTL expiry and retention pruning delete at most ``batch`` rows
  per transaction (``… WHERE key IN (SELECT … LIMIT n FOR UPDATE SKIP LOCKED)``) and at most
  ``PRUNE_MAX_BATCHES`` batches per call. N replicas pruning at once take disjoint batches (rows
  another transaction holds are skipped, not waited for); entry deletes queue briefly on the
  deletion-log counter, one short batch at a time.
- **kNN in the database.** :meth:`nearest` answers a partition's nearest neighbours with pgvector
  (exact within small partitions, the model's HNSW index in large ones), so lookups need no
  in-process index at all (``CacheConfig.vector_index = "store"``).
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np
from psycopg import sql as pgsql

from lastline import PostgresStorage
from lastline.ids import random_hex_id
from lastline.postgres import build_index_in_memory

from ._config import Threshold
from ._pg_schema import MIGRATIONS, hnsw_index_ddl, hnsw_index_name
from ._rows import EntryRow, FeedbackRow, InsertResult, LookupRecord, NewEntry, SyncState, VectorRow

__all__ = ["PRUNE_BATCH", "PostgresCacheStore"]

_ENTRY_COLS = (
    "e.seq, e.id, e.tenant, e.context_hash, e.prompt, e.prompt_norm, e.prompt_hash, e.response, e.model_id, "
    "e.created_at, e.expires_at, h.last_hit_at, COALESCE(h.hit_count, 0), e.bytes, e.tags, e.metadata"
)
#: An entry row with its hit row (``cache_entry_hits``: the counters live apart from the vector row).
_ENTRIES = "cache_entries e LEFT JOIN cache_entry_hits h ON h.seq = e.seq"
#: Rows one pruning transaction deletes at most.
PRUNE_BATCH = 1_000
#: Batches one pruning call runs at most (the rest waits for the next call): bounded work per call.
PRUNE_MAX_BATCHES = 50
_INDEX_LOCK = 0x6C6C_6869  # pg_advisory_xact_lock key: one replica creates a model's HNSW index
_UPSERT = (
    "INSERT INTO cache_entries (seq, id, tenant, context_hash, prompt, prompt_norm, prompt_hash,"
    " response, embedding, model_id, created_at, expires_at, used_at, bytes, tags, metadata, values_key)"
    " VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s)"
    " ON CONFLICT ON CONSTRAINT cache_entries_key DO UPDATE SET seq = excluded.seq,"
    " prompt = excluded.prompt, prompt_norm = excluded.prompt_norm, response = excluded.response,"
    " embedding = excluded.embedding, model_id = excluded.model_id, created_at = excluded.created_at,"
    " expires_at = excluded.expires_at, used_at = excluded.used_at,"
    " bytes = excluded.bytes, tags = excluded.tags, metadata = excluded.metadata,"
    " values_key = excluded.values_key"
    " RETURNING id"
)


def _blob(vector: Any) -> bytes:
    """A pgvector value as the float32 bytes :class:`VectorRow` carries (as SQLite stores them)."""
    values = vector.to_numpy() if hasattr(vector, "to_numpy") else vector
    return np.asarray(values, dtype=np.float32).tobytes()


def _row(cursor: Any) -> Any:
    """The one row a query that always returns one (an aggregate, a counter row) returned."""
    row = cursor.fetchone()
    assert row is not None, "a one-row query returned no row"
    return row


def _by_tenant(records: Iterable[Any]) -> dict[str, list[Any]]:
    groups: dict[str, list[Any]] = {}
    for r in records:
        groups.setdefault(r.tenant, []).append(r)
    return groups


class PostgresCacheStore:
    """SQL for the cache tables on PostgreSQL; runs the cache migrations on construction."""

    local_reads = False  # every read is a round trip to the server

    def __init__(self, storage: PostgresStorage) -> None:
        self.storage = storage
        self._indexed: set[tuple[str, int]] = set()
        self._index_lock = threading.Lock()
        storage.migrate(MIGRATIONS)

    # -- the per-model HNSW index -------------------------------------------------------------
    def ensure_model_index(self, model_id: str, dim: int) -> None:
        """Create the model's partial HNSW index if no replica has yet (once per process per model).

        Called by a cache that answers kNN in the database (``vector_index="store"``) when it
        starts, and by ``lastline db copy`` after the rows are in, never by a write: keeping an
        HNSW graph costs every insert far more than the row itself (2,000 rows of 384-d vectors
        here: ≈87 inserts/s with the index, ≈3,100/s without), and replicas searching with FAISS
        never read it. A build over existing rows holds writers for its duration (one pass over
        the model's vectors, in ``maintenance_work_mem``).
        """
        key = (model_id, int(dim))
        if key in self._indexed:
            return
        with self._index_lock:
            if key in self._indexed:
                return
            with self.storage.maintenance() as conn:
                exists = conn.execute("SELECT 1 FROM pg_indexes WHERE indexname = %s",
                                      (hnsw_index_name(model_id, dim),)).fetchone()
                if not exists:
                    conn.execute("SELECT pg_advisory_xact_lock(%s)", (_INDEX_LOCK,))
                    build_index_in_memory(conn, hnsw_index_ddl(model_id, dim), "cache_entries")
            self._indexed.add(key)

    def build_vector_indexes(self) -> list[tuple[str, int]]:
        """The HNSW index of every model with stored vectors (``lastline db copy``, after the rows)."""
        with self.storage.maintenance() as conn:
            models = [(str(r[0]), int(r[1])) for r in conn.execute(
                "SELECT DISTINCT model_id, vector_dims(embedding) FROM cache_entries"
                " WHERE embedding IS NOT NULL AND model_id IS NOT NULL ORDER BY 1, 2")]
        for model_id, dim in models:
            self.ensure_model_index(model_id, dim)
        return models

    # -- entries -------------------------------------------------------------------------------
    def insert(self, entries: Sequence[NewEntry], now: float, *, max_entries: int, max_bytes: int
               ) -> InsertResult:
        """Upsert entries and evict LRU entries; one transaction per tenant written to."""
        written_at: dict[int, tuple[str, int, int | None]] = {}
        evicted: list[int] = []
        positions: dict[str, list[int]] = {}
        for n, e in enumerate(entries):
            positions.setdefault(e.tenant, []).append(n)
        for tenant, where in positions.items():
            with self.storage.atomic(tenant) as conn:  # rows, tags and eviction commit together
                out = self._upsert(conn, [entries[n] for n in where], now)
                written_at.update(zip(where, out, strict=True))
                evicted += self._evict_lru(conn, tenant, max_entries, max_bytes)
        return InsertResult([written_at[n] for n in range(len(entries))], evicted)

    def _upsert(self, conn: Any, entries: Sequence[NewEntry], now: float) -> list[tuple[str, int, int | None]]:
        """Write a tenant's entries in a few round trips: the rows in one pipelined ``executemany``.

        Each entry is still its own upsert statement, in order, so a key repeated within the batch
        replaces its earlier self exactly as two separate puts would (the earlier seq is logged as
        deleted by the re-seq trigger), and ``RETURNING id`` gives the key's one public id even when
        another replica inserted it a moment ago.
        """
        # lock order: seq counter, deletion-log counter, then rows (see the module docstring)
        first = int(_row(conn.execute("UPDATE cache_seq SET next = next + %s RETURNING next - %s",
                                      (len(entries), len(entries))))[0])
        conn.execute("SELECT log_next FROM cache_sync FOR UPDATE")
        keys = sorted({(e.context_hash, e.prompt_hash) for e in entries})
        current: dict[tuple[str, str], tuple[int, str]] = {
            (r[0], r[1]): (int(r[2]), str(r[3])) for r in conn.execute(
                "SELECT context_hash, prompt_hash, seq, id FROM cache_entries WHERE tenant = %s"
                " AND (context_hash, prompt_hash) IN (SELECT * FROM unnest(%s::text[], %s::text[]))"
                " ORDER BY seq FOR UPDATE",
                (entries[0].tenant, [k[0] for k in keys], [k[1] for k in keys]))}
        existed = set(current)
        if current:  # their tags go; the upserts below move the rows to new seqs
            conn.execute("DELETE FROM cache_entry_tags WHERE seq = ANY(%s)", ([s for s, _ in current.values()],))
        rows: list[tuple[Any, ...]] = []
        replaced: list[int | None] = []
        last: dict[tuple[str, str], tuple[int, NewEntry]] = {}  # each key's final seq in this batch
        for offset, e in enumerate(entries):
            seq, key = first + offset, (e.context_hash, e.prompt_hash)
            old = current.get(key)
            entry_id = old[1] if old else random_hex_id()  # on conflict the row keeps its own id
            vector = None if e.vector is None else np.asarray(e.vector, dtype=np.float32)
            rows.append((seq, entry_id, e.tenant, e.context_hash, e.prompt, e.prompt_norm, e.prompt_hash,
                         e.response, vector, e.model_id, now, e.expires_at, now, e.nbytes,
                         json.dumps(list(e.tags)), json.dumps(e.metadata) if e.metadata is not None else None,
                         e.values_key))
            replaced.append(old[0] if old else None)
            current[key] = (seq, entry_id)
            last[key] = (seq, e)
        cur = conn.cursor()
        cur.executemany(_UPSERT, rows, returning=True)
        ids: list[str] = []
        while True:
            ids.append(str(_row(cur)[0]))
            if not cur.nextset():
                break
        # A new row's hit row comes from the insert trigger; a key that was stored before keeps its
        # hit row, moved to the new seq by ON UPDATE CASCADE: the replaced answer's hits are not this one's.
        renewed = sorted(last[key][0] for key in keys if key in existed)
        if renewed:
            conn.execute("UPDATE cache_entry_hits SET used_at = %s, hit_count = 0, last_hit_at = NULL"
                         " WHERE seq = ANY(%s)", (now, renewed))
        tags = [(seq, e.tenant, tag) for seq, e in last.values() for tag in e.tags]
        if tags:  # only a key's final row: an earlier one of the batch has already moved on
            cur.executemany("INSERT INTO cache_entry_tags (seq, tenant, tag) VALUES (%s, %s, %s)"
                            " ON CONFLICT DO NOTHING", tags)
        return [(entry_id, first + n, old) for n, (entry_id, old) in enumerate(zip(ids, replaced, strict=True))]

    def _evict_lru(self, conn: Any, tenant: str, max_entries: int, max_bytes: int) -> list[int]:
        """Delete least-recently-used entries until the tenant is within both caps."""
        evicted: list[int] = []
        while True:
            row = conn.execute("SELECT entries, bytes FROM cache_usage WHERE tenant = %s", (tenant,)).fetchone()
            if row is None or (row[0] <= max_entries and row[1] <= max_bytes):
                break
            over = max(int(row[0]) - max_entries, 1)
            # rows another transaction is touching (a hit being recorded, a put replacing the key) are
            # in use, not LRU: skip them (both rows are locked, so neither side waits on the other)
            victims = [int(r[0]) for r in conn.execute(
                "SELECT e.seq FROM cache_entry_hits h JOIN cache_entries e ON e.seq = h.seq WHERE h.tenant = %s"
                " ORDER BY h.used_at, h.seq LIMIT %s FOR UPDATE OF h, e SKIP LOCKED",
                (tenant, over if row[0] > max_entries else min(over, 64)))]
            if not victims:
                break
            conn.execute("DELETE FROM cache_entries WHERE seq = ANY(%s)", (victims,))
            evicted.extend(victims)
        return evicted

    def by_key(self, tenant: str, ctx: str, prompt_hash: str) -> EntryRow | None:
        rows = self.storage.query(
            f"SELECT {_ENTRY_COLS} FROM {_ENTRIES} WHERE e.tenant = %s AND e.context_hash = %s"
            " AND e.prompt_hash = %s",
            (tenant, ctx, prompt_hash), tenant=tenant)
        return EntryRow.from_row(rows[0]) if rows else None

    def by_seqs(self, tenant: str, ctx: str, seqs: Iterable[int]) -> dict[int, EntryRow]:
        """Rows for index ids, re-checked against tenant and context (the database has the last word)."""
        seqs = [int(s) for s in seqs]
        if not seqs:
            return {}
        rows = self.storage.query(
            f"SELECT {_ENTRY_COLS} FROM {_ENTRIES} WHERE e.seq = ANY(%s) AND e.tenant = %s AND e.context_hash = %s",
            (seqs, tenant, ctx), tenant=tenant)
        return {int(row[0]): EntryRow.from_row(row) for row in rows}

    def by_id(self, tenant: str, entry_id: str) -> EntryRow | None:
        rows = self.storage.query(f"SELECT {_ENTRY_COLS} FROM {_ENTRIES} WHERE e.tenant = %s AND e.id = %s",
                                  (tenant, entry_id), tenant=tenant)
        return EntryRow.from_row(rows[0]) if rows else None

    def delete_entry(self, tenant: str, entry_id: str) -> list[int]:
        return self._delete_where(tenant, pgsql.SQL("id = %s"), [entry_id])

    def delete_matching(self, tenant: str, *, tags: Sequence[str] | None = None,
                        created_before: float | None = None, context_hash: str | None = None) -> list[int]:
        where: list[pgsql.Composable] = []
        params: list[Any] = []
        if tags is not None:
            where.append(pgsql.SQL("seq IN (SELECT seq FROM cache_entry_tags WHERE tenant = %s AND tag = ANY(%s))"))
            params += [tenant, list(tags)]
        if created_before is not None:
            where.append(pgsql.SQL("created_at <= %s"))
            params.append(created_before)
        if context_hash is not None:
            where.append(pgsql.SQL("context_hash = %s"))
            params.append(context_hash)
        return self._delete_where(tenant, pgsql.SQL(" AND ").join(where) if where else pgsql.SQL("TRUE"), params)

    def _delete_where(self, tenant: str, where: pgsql.Composable, params: Sequence[Any]) -> list[int]:
        """Delete the tenant's entries matching ``where``; return their seqs (for the index)."""
        with self.storage.atomic(tenant) as conn:
            conn.execute("SELECT log_next FROM cache_sync FOR UPDATE")
            query = pgsql.SQL("SELECT seq FROM cache_entries WHERE tenant = %s AND ({}) ORDER BY seq FOR UPDATE")
            seqs = [int(r[0]) for r in conn.execute(query.format(where), (tenant, *params))]
            if seqs:
                conn.execute("DELETE FROM cache_entries WHERE seq = ANY(%s)", (seqs,))
        return seqs

    def usage(self, tenant: str) -> tuple[int, int]:
        rows = self.storage.query("SELECT entries, bytes FROM cache_usage WHERE tenant = %s", (tenant,),
                                  tenant=tenant)
        return (int(rows[0][0]), int(rows[0][1])) if rows else (0, 0)

    def vectors(self, model_id: str, batch: int = 50_000) -> Iterable[list[VectorRow]]:
        """Every vector of one model, in seq order, in batches (all tenants; a full index build).

        Read in PostgreSQL's binary format: pgvector's text form is parsed float by float in Python,
        ≈0.18 ms of CPU per 512-d vector against ≈0.011 ms (0.65 against 0.07 ms wall, 4,000 rows,
        load 14). A replica rebuilding its index over 100k entries paid ≈18 s of CPU for it, and a
        catch-up of 2,000 rows — after a bulk put, one per lookup — ≈2 s inside that lookup.
        """
        last = -1
        while True:
            with self.storage.maintenance() as conn:
                rows = conn.execute(
                    "SELECT seq, tenant, context_hash, prompt_norm, embedding FROM cache_entries"
                    " WHERE model_id = %s AND embedding IS NOT NULL AND seq > %s ORDER BY seq LIMIT %s",
                    (model_id, last, batch), binary=True).fetchall()
            if not rows:
                return
            last = int(rows[-1][0])
            yield [VectorRow(int(r[0]), r[1], r[2], r[3], _blob(r[4])) for r in rows]

    def vector_seqs(self, model_id: str, limit: int, *, after: int, upto: int) -> list[int]:
        with self.storage.maintenance() as conn:
            return [int(r[0]) for r in conn.execute(
                "SELECT seq FROM cache_entries WHERE model_id = %s AND embedding IS NOT NULL AND seq > %s"
                " AND seq <= %s ORDER BY seq LIMIT %s", (model_id, after, upto, limit))]

    def vectors_at(self, model_id: str, seqs: Sequence[int]) -> list[VectorRow]:
        if not seqs:
            return []
        with self.storage.maintenance() as conn:
            rows = conn.execute(
                "SELECT seq, tenant, context_hash, prompt_norm, embedding FROM cache_entries"
                " WHERE model_id = %s AND embedding IS NOT NULL AND seq = ANY(%s) ORDER BY seq",
                (model_id, [int(s) for s in seqs]), binary=True).fetchall()
        return [VectorRow(int(r[0]), r[1], r[2], r[3], _blob(r[4])) for r in rows]

    def foreign_model_rows(self, model_id: str, limit: int) -> list[tuple[int, str]]:
        with self.storage.maintenance() as conn:
            return [(int(r[0]), r[1]) for r in conn.execute(
                "SELECT seq, prompt FROM cache_entries WHERE embedding IS NOT NULL"
                " AND model_id IS DISTINCT FROM %s ORDER BY seq LIMIT %s", (model_id, limit))]

    def set_vectors(self, model_id: str, seqs: Sequence[int], vectors: np.ndarray) -> None:
        if not len(seqs):
            return
        with self.storage.maintenance() as conn:
            conn.cursor().executemany(
                "UPDATE cache_entries SET embedding = %s, model_id = %s WHERE seq = %s",
                [(np.asarray(v, dtype=np.float32), model_id, int(s)) for s, v in zip(seqs, vectors, strict=True)])

    def recent_prompts(self, limit: int) -> list[str]:
        with self.storage.maintenance() as conn:  # every tenant's rows, as the index build reads them
            return [r[0] for r in conn.execute(
                "SELECT prompt_norm FROM cache_entries ORDER BY seq DESC LIMIT %s", (limit,))]

    def value_candidates(self, tenant: str, ctx: str, values_key: str, limit: int) -> list[int]:
        if not values_key:
            return []
        return [int(r[0]) for r in self.storage.query(
            "SELECT seq FROM cache_entries WHERE tenant = %s AND context_hash = %s AND values_key = %s"
            " AND values_key <> '' AND embedding IS NOT NULL ORDER BY seq DESC LIMIT %s",
            (tenant, ctx, values_key, limit), tenant=tenant)]

    def entries_without_values_key(self, limit: int) -> list[tuple[int, str]]:
        with self.storage.maintenance() as conn:
            return [(int(r[0]), r[1]) for r in conn.execute(
                "SELECT seq, prompt FROM cache_entries WHERE values_key IS NULL ORDER BY seq LIMIT %s", (limit,))]

    def set_values_keys(self, keys: Sequence[tuple[int, str]]) -> None:
        if not keys:
            return
        with self.storage.maintenance() as conn:
            conn.cursor().executemany("UPDATE cache_entries SET values_key = %s WHERE seq = %s",
                                      [(k, int(s)) for s, k in keys])

    # -- kNN in the database (CacheConfig.vector_index = "store") ------------------------------
    def has_vectors(self, tenant: str, ctx: str, model_id: str) -> bool:
        """Whether the partition holds any vector of the model (stops at the first row it finds).

        Every semantic lookup asks this; an uncapped ``count(*)`` cost ≈17 ms at 10k entries.
        """
        rows = self.storage.query(
            "SELECT EXISTS (SELECT 1 FROM cache_entries WHERE tenant = %s AND context_hash = %s"
            " AND model_id = %s AND embedding IS NOT NULL)", (tenant, ctx, model_id), tenant=tenant)
        return bool(rows[0][0])

    def partition_prompts(self, tenant: str, ctx: str, model_id: str, limit: int) -> dict[int, str] | None:
        """The partition's normalized prompts when it holds at most ``limit`` vectors, else None."""
        rows = self.storage.query(
            "SELECT seq, prompt_norm FROM cache_entries WHERE tenant = %s AND context_hash = %s AND model_id = %s"
            " AND embedding IS NOT NULL LIMIT %s", (tenant, ctx, model_id, limit + 1), tenant=tenant)
        return None if len(rows) > limit else {int(r[0]): r[1] for r in rows}

    def nearest(self, tenant: str, ctx: str, model_id: str, vector: np.ndarray, k: int, *,
                exact_scan_limit: int = 20_000, ef_search: int = 64) -> list[tuple[int, float]]:
        """Up to ``k`` (seq, cosine) of the partition's vectors nearest ``vector``, best first.

        Exact (every vector of the partition, read through its btree index) while the partition
        holds at most ``exact_scan_limit`` vectors (FAISS keeps partitions flat up to ``hnsw_threshold``
        too); above, the model's HNSW index, whose answer is
        filtered to the partition after the graph walk — when that leaves fewer than ``k``, the
        exact scan answers instead, so a big table never starves a partition of neighbours.
        """
        query = np.asarray(vector, dtype=np.float32).ravel()
        dim = pgsql.Literal(int(query.shape[0]))
        with self.storage.atomic(tenant) as conn:
            size = int(_row(conn.execute(
                "SELECT count(*) FROM (SELECT 1 FROM cache_entries WHERE tenant = %s AND context_hash = %s"
                " AND model_id = %s AND embedding IS NOT NULL LIMIT %s) AS part",
                (tenant, ctx, model_id, exact_scan_limit + 1)))[0])
            if not size:
                return []
            if size > exact_scan_limit:
                conn.execute("SELECT set_config('hnsw.ef_search', %s, true)", (str(max(ef_search, 4 * k)),))
                found = conn.execute(pgsql.SQL(
                    "SELECT seq, 1 - (embedding::vector({dim}) <=> %s::vector({dim})) FROM cache_entries"
                    " WHERE model_id = {model} AND embedding IS NOT NULL AND tenant = %s AND context_hash = %s"
                    " ORDER BY embedding::vector({dim}) <=> %s::vector({dim}) LIMIT %s").format(
                        dim=dim, model=pgsql.Literal(model_id)), (query, tenant, ctx, query, k)).fetchall()
                if len(found) >= k:
                    return [(int(r[0]), float(r[1])) for r in found]
            # MATERIALIZED: the planner must not walk the HNSW graph (of every tenant) for a small partition
            found = conn.execute(pgsql.SQL(
                "WITH part AS MATERIALIZED (SELECT seq, embedding FROM cache_entries WHERE tenant = %s"
                " AND context_hash = %s AND model_id = %s AND embedding IS NOT NULL)"
                " SELECT seq, 1 - (embedding::vector({dim}) <=> %s::vector({dim})) AS cos FROM part"
                " ORDER BY cos DESC, seq LIMIT %s").format(dim=dim), (tenant, ctx, model_id, query, k)).fetchall()
        return [(int(r[0]), float(r[1])) for r in found]

    def cosines(self, tenant: str, ctx: str, model_id: str, vector: np.ndarray, seqs: Iterable[int]
                ) -> list[tuple[int, float]]:
        """(seq, cosine to ``vector``) of those ``seqs`` that are vectors of the partition, best first."""
        seqs = [int(s) for s in seqs]
        if not seqs:
            return []
        query = np.asarray(vector, dtype=np.float32).ravel()
        rows = self.storage.query(
            pgsql.SQL("SELECT seq, 1 - (embedding::vector({dim}) <=> %s::vector({dim})) AS cos FROM cache_entries"
                      " WHERE seq = ANY(%s) AND tenant = %s AND context_hash = %s AND model_id = %s"
                      " AND embedding IS NOT NULL ORDER BY cos DESC, seq").format(
                dim=pgsql.Literal(int(query.shape[0]))).as_string(None),
            (query, seqs, tenant, ctx, model_id), tenant=tenant)
        return [(int(r[0]), float(r[1])) for r in rows]

    # -- lookups, counters, feedback ----------------------------------------------------------
    def record_lookups(self, records: Sequence[LookupRecord]) -> None:
        """One transaction per tenant of the batch: hit bookkeeping, window counters, lookup records.

        Each tenant's statements go as one script (``PostgresStorage.script``): one round trip,
        however large the batch. Rows are locked in seq order, then counters in key order.
        """
        for tenant, mine in _by_tenant(records).items():
            counts: dict[tuple[str, int, str], int] = {}
            for r in mine:
                key = (r.tenant, r.bucket, r.outcome)
                counts[key] = counts.get(key, 0) + 1
            statements: list[tuple[str, Sequence[Any]]] = []
            for seq in sorted({r.entry_seq for r in mine if r.entry_seq is not None}):
                last = max(r.at for r in mine if r.entry_seq == seq)
                statements.append(("UPDATE cache_entry_hits SET hit_count = hit_count + %s, last_hit_at = %s,"
                                   " used_at = %s WHERE seq = %s",
                                   (sum(r.entry_seq == seq for r in mine), last, last, seq)))
            statements.append((
                "INSERT INTO cache_counters (tenant, bucket, outcome, n) VALUES "
                + ", ".join(["(%s, %s, %s, %s)"] * len(counts))
                + " ON CONFLICT (tenant, bucket, outcome) DO UPDATE SET n = cache_counters.n + excluded.n",
                [v for key, n in sorted(counts.items()) for v in (*key, n)]))
            ids = [(r.lookup_id, r.tenant, r.entry_id, r.layer, r.similarity, r.mode, r.at)
                   for r in mine if r.lookup_id is not None]
            if ids:
                statements.append((
                    "INSERT INTO cache_lookups (id, tenant, entry_id, layer, similarity, mode, created_at) VALUES "
                    + ", ".join(["(%s, %s, %s, %s, %s, %s, %s)"] * len(ids)) + " ON CONFLICT (id) DO NOTHING",
                    [v for row in ids for v in row]))
            self.storage.script(statements, tenant=tenant)

    def prune(self, lookups_before: float, counters_before_bucket: int) -> int:
        """Drop lookup records and counter buckets past their retention, in bounded batches."""
        n = self._prune_batches(
            "DELETE FROM cache_lookups WHERE id IN (SELECT id FROM cache_lookups WHERE created_at < %s"
            " LIMIT %s FOR UPDATE SKIP LOCKED)", lookups_before)
        n += self._prune_batches(
            "DELETE FROM cache_counters WHERE (tenant, bucket, outcome) IN (SELECT tenant, bucket, outcome"
            " FROM cache_counters WHERE bucket < %s LIMIT %s FOR UPDATE SKIP LOCKED)", counters_before_bucket)
        return n

    def prune_expired(self, before: float, batch: int = PRUNE_BATCH) -> list[int]:
        """Delete entries that expired before ``before``, in bounded batches; return their seqs."""
        gone: list[int] = []
        for _ in range(PRUNE_MAX_BATCHES):
            with self.storage.maintenance() as conn:
                conn.execute("SELECT log_next FROM cache_sync FOR UPDATE")
                seqs = [int(r[0]) for r in conn.execute(
                    "DELETE FROM cache_entries WHERE seq IN (SELECT seq FROM cache_entries WHERE expires_at < %s"
                    " ORDER BY seq LIMIT %s FOR UPDATE SKIP LOCKED) RETURNING seq", (before, batch))]
            gone += seqs
            if len(seqs) < batch:
                break
        return gone

    def _prune_batches(self, statement: str, cut: float | int, batch: int = PRUNE_BATCH) -> int:
        total = 0
        for _ in range(PRUNE_MAX_BATCHES):
            with self.storage.maintenance() as conn:
                n = int(conn.execute(statement, (cut, batch)).rowcount)
            total += n
            if n < batch:
                break
        return total

    def lookup_record(self, tenant: str, lookup_id: str) -> tuple[str | None, str | None, float | None] | None:
        rows = self.storage.query("SELECT entry_id, layer, similarity FROM cache_lookups WHERE tenant = %s AND id = %s",
                                  (tenant, lookup_id), tenant=tenant)
        return (rows[0][0], rows[0][1], rows[0][2]) if rows else None

    def add_feedback(self, *, tenant: str, entry_id: str | None, lookup_id: str | None,
                     layer: str | None, similarity: float | None, correct: bool, now: float) -> None:
        with self.storage.atomic(tenant) as conn:
            conn.execute(
                "INSERT INTO cache_feedback (tenant, entry_id, lookup_id, layer, similarity, correct, created_at)"
                " VALUES (%s, %s, %s, %s, %s, %s, %s)", (tenant, entry_id, lookup_id, layer, similarity, correct, now))

    def counters(self, tenant: str, since_bucket: int | None) -> dict[str, int]:
        sql = "SELECT outcome, SUM(n) FROM cache_counters WHERE tenant = %s"
        params: list[Any] = [tenant]
        if since_bucket is not None:
            sql += " AND bucket >= %s"
            params.append(since_bucket)
        return {r[0]: int(r[1]) for r in self.storage.query(sql + " GROUP BY outcome", params, tenant=tenant)}

    def feedback_counts(self, tenant: str, since: float | None) -> dict[str, int]:
        sql = "SELECT correct, COUNT(*) FROM cache_feedback WHERE tenant = %s"
        params: list[Any] = [tenant]
        if since is not None:
            sql += " AND created_at >= %s"
            params.append(since)
        counts = {bool(r[0]): int(r[1]) for r in self.storage.query(sql + " GROUP BY correct", params, tenant=tenant)}
        return {"correct": counts.get(True, 0), "incorrect": counts.get(False, 0)}

    def feedback(self, tenant: str) -> list[FeedbackRow]:
        return [FeedbackRow(r[0], r[1], bool(r[2])) for r in self.storage.query(
            "SELECT layer, similarity, correct FROM cache_feedback WHERE tenant = %s ORDER BY id", (tenant,),
            tenant=tenant)]

    # -- thresholds ----------------------------------------------------------------------------
    def get_threshold(self, tenant: str, model_id: str, mode: str, language: str = "*") -> Threshold | None:
        rows = self.storage.query(
            "SELECT value, calibrated, target, bound, n_negatives, source, partition_size, recalibrate_above"
            " FROM cache_thresholds WHERE tenant = %s AND model_id = %s AND mode = %s AND language = %s",
            (tenant, model_id, mode, language), tenant=tenant)
        if not rows:
            return None
        value, calibrated, target, bound, n_neg, source, size, above = rows[0]
        return Threshold(value=value, calibrated=bool(calibrated), target=target, bound=bound,
                         n_negatives=n_neg, model_id=model_id, mode=mode, source=source,  # type: ignore[arg-type]
                         language=language, partition_size=size, recalibrate_above=above)

    def set_threshold(self, tenant: str, model_id: str, t: Threshold) -> None:
        with self.storage.atomic(tenant) as conn:
            conn.execute(
                "INSERT INTO cache_thresholds (tenant, model_id, mode, language, value, calibrated, target, bound,"
                " n_negatives, source, updated_at, partition_size, recalibrate_above)"
                " VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s)"
                " ON CONFLICT (tenant, model_id, mode, language) DO UPDATE SET value = excluded.value,"
                " calibrated = excluded.calibrated, target = excluded.target, bound = excluded.bound,"
                " n_negatives = excluded.n_negatives, source = excluded.source, updated_at = excluded.updated_at,"
                " partition_size = excluded.partition_size, recalibrate_above = excluded.recalibrate_above",
                (tenant, model_id, t.mode, t.language, float(t.value), bool(t.calibrated), t.target, t.bound,
                 t.n_negatives, t.source, time.time(), t.partition_size, t.recalibrate_above))

    def delete_thresholds(self, tenant: str, model_id: str, modes: Sequence[str], language: str | None = None) -> int:
        sql = "DELETE FROM cache_thresholds WHERE tenant = %s AND model_id = %s AND mode = ANY(%s)"
        params: list[Any] = [tenant, model_id, list(modes)]
        if language is not None:
            sql += " AND language = %s"
            params.append(language)
        with self.storage.atomic(tenant) as conn:
            return int(conn.execute(sql, params).rowcount)

    # -- change tracking -----------------------------------------------------------------------
    def change_token(self) -> tuple[int, int] | None:
        """None: PostgreSQL has no per-connection commit counter; the sync polls :meth:`sync_state`."""
        return None

    def sync_state(self) -> SyncState:
        with self.storage.maintenance() as conn:
            row = _row(conn.execute(
                "SELECT (SELECT next FROM cache_seq) - 1, GREATEST(log_next - 1, pruned_through), pruned_through"
                " FROM cache_sync"))
        return SyncState(int(row[0]), int(row[1]), int(row[2]))

    def deleted_seqs(self, after: int, upto: int) -> list[int]:
        with self.storage.maintenance() as conn:
            return [int(r[0]) for r in conn.execute(
                "SELECT seq FROM cache_deletions WHERE id > %s AND id <= %s", (after, upto))]

    def prune_deletions(self, before: float) -> int:
        """Drop deletion-log rows older than ``before`` (a prefix by id), in bounded batches."""
        total = 0
        for _ in range(PRUNE_MAX_BATCHES):
            with self.storage.maintenance() as conn:
                # one pruner at a time: the prefix and pruned_through must move together
                conn.execute("SELECT pruned_through FROM cache_sync FOR UPDATE")
                keep = conn.execute("SELECT id FROM cache_deletions WHERE deleted_at >= %s ORDER BY id LIMIT 1",
                                    (before,)).fetchone()
                head = _row(conn.execute("SELECT log_next - 1 FROM cache_sync"))[0]
                oldest = _row(conn.execute("SELECT COALESCE(MIN(id), 0) FROM cache_deletions"))[0]
                cut = min(int(keep[0]) - 1 if keep else int(head), int(oldest) + PRUNE_BATCH - 1)
                if cut <= 0:
                    return total
                n = int(conn.execute("DELETE FROM cache_deletions WHERE id <= %s", (cut,)).rowcount)
                conn.execute("UPDATE cache_sync SET pruned_through = GREATEST(pruned_through, %s)", (cut,))
            total += n
            if n < PRUNE_BATCH:
                break
        return total
