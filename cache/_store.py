"""The SQLite implementation of :class:`~lastline.cache._store_api.CacheStore`.

Plain SQL, one method per statement group, every multi-step write inside ``storage.atomic()``.
Nothing here knows about FAISS; :mod:`lastline.cache._cache` keeps the index in step. This module
and ``_schema.py`` are the only places of the cache that speak SQL.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

from lastline import SQLiteStorage
from lastline.ids import random_hex_id

from ._config import Threshold
from ._rows import EntryRow, FeedbackRow, InsertResult, LookupRecord, NewEntry, SyncState, VectorRow
from ._schema import MIGRATIONS

__all__ = ["SQLiteCacheStore"]

_ENTRY_COLS = (
    "seq, id, tenant, context_hash, prompt, prompt_norm, prompt_hash, response, model_id, "
    "created_at, expires_at, last_hit_at, hit_count, bytes, tags, metadata"
)


class SQLiteCacheStore:
    """SQL for the cache tables; runs the cache migrations on construction."""

    local_reads = True  # an embedded file: a read by key takes tens of microseconds

    def __init__(self, storage: SQLiteStorage) -> None:
        self.storage = storage
        storage.migrate(MIGRATIONS)

    # -- entries -------------------------------------------------------------------------------
    def insert(self, entries: Sequence[NewEntry], now: float, *, max_entries: int, max_bytes: int
               ) -> InsertResult:
        """Write entries (same key replaced, same public id) and evict LRU entries; one transaction."""
        with self.storage.atomic():  # rows, tags and LRU eviction commit together
            written = self._insert(entries, now)
            evicted: list[int] = []
            for tenant in dict.fromkeys(e.tenant for e in entries):
                evicted += self._evict_lru(tenant, max_entries, max_bytes)
        return InsertResult(written, evicted)

    def _insert(self, entries: Sequence[NewEntry], now: float) -> list[tuple[str, int, int | None]]:
        out: list[tuple[str, int, int | None]] = []
        with self.storage.atomic() as conn:
            for e in entries:
                old = conn.execute(
                    "SELECT seq, id FROM cache_entries WHERE tenant = ? AND context_hash = ? AND prompt_hash = ?",
                    (e.tenant, e.context_hash, e.prompt_hash),
                ).fetchone()
                entry_id = old[1] if old else random_hex_id()
                if old:
                    conn.execute("DELETE FROM cache_entries WHERE seq = ?", (old[0],))
                blob = None if e.vector is None else np.asarray(e.vector, dtype=np.float32).tobytes()
                seq = int(conn.execute("UPDATE cache_seq SET next = next + 1 RETURNING next - 1").fetchone()[0])
                conn.execute(
                    "INSERT INTO cache_entries (seq, id, tenant, context_hash, prompt, prompt_norm, prompt_hash,"
                    " response, vector, model_id, created_at, expires_at, used_at, bytes, tags, metadata, values_key)"
                    " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    (seq, entry_id, e.tenant, e.context_hash, e.prompt, e.prompt_norm, e.prompt_hash, e.response,
                     blob, e.model_id, now, e.expires_at, now, e.nbytes, json.dumps(list(e.tags)),
                     json.dumps(e.metadata) if e.metadata is not None else None, e.values_key),
                )
                conn.executemany(
                    "INSERT OR IGNORE INTO cache_entry_tags (seq, tenant, tag) VALUES (?, ?, ?)",
                    [(seq, e.tenant, tag) for tag in e.tags],
                )
                out.append((entry_id, seq, old[0] if old else None))
        return out

    def by_key(self, tenant: str, ctx: str, prompt_hash: str) -> EntryRow | None:
        rows = self.storage.query(
            f"SELECT {_ENTRY_COLS} FROM cache_entries WHERE tenant = ? AND context_hash = ? AND prompt_hash = ?",
            (tenant, ctx, prompt_hash),
        )
        return EntryRow.from_row(rows[0]) if rows else None

    def by_seqs(self, tenant: str, ctx: str, seqs: Iterable[int]) -> dict[int, EntryRow]:
        """Rows for FAISS ids, re-checked against tenant and context (SQLite has the last word)."""
        seqs = list(seqs)
        if not seqs:
            return {}
        marks = ",".join("?" * len(seqs))
        rows = self.storage.query(
            # unary + keeps SQLite on the primary key: with the (tenant, context_hash, …) index it
            # scanned the whole partition (≈2 ms per lookup at 3k entries, ≈170 ms at 100k)
            f"SELECT {_ENTRY_COLS} FROM cache_entries WHERE seq IN ({marks}) AND +tenant = ? AND +context_hash = ?",
            (*seqs, tenant, ctx),
        )
        return {row[0]: EntryRow.from_row(row) for row in rows}

    def by_id(self, tenant: str, entry_id: str) -> EntryRow | None:
        rows = self.storage.query(
            f"SELECT {_ENTRY_COLS} FROM cache_entries WHERE tenant = ? AND id = ?", (tenant, entry_id)
        )
        return EntryRow.from_row(rows[0]) if rows else None

    def delete_entry(self, tenant: str, entry_id: str) -> list[int]:
        return self._delete_where(tenant, "id = ?", (entry_id,))

    def delete_matching(self, tenant: str, *, tags: Sequence[str] | None = None,
                        created_before: float | None = None, context_hash: str | None = None) -> list[int]:
        where: list[str] = []
        params: list[Any] = []
        if tags is not None:
            marks = ",".join("?" * len(tags))
            where.append(f"seq IN (SELECT seq FROM cache_entry_tags WHERE tenant = ? AND tag IN ({marks}))")
            params += [tenant, *tags]
        if created_before is not None:
            where.append("created_at <= ?")
            params.append(created_before)
        if context_hash is not None:
            where.append("context_hash = ?")
            params.append(context_hash)
        return self._delete_where(tenant, " AND ".join(where) or "1", params)

    def _delete_where(self, tenant: str, where: str, params: Sequence[Any]) -> list[int]:
        """Delete the tenant's entries matching ``where``; return their seqs (for the index)."""
        with self.storage.atomic() as conn:
            seqs = [r[0] for r in conn.execute(
                f"SELECT seq FROM cache_entries WHERE tenant = ? AND ({where})", (tenant, *params)
            ).fetchall()]
            conn.executemany("DELETE FROM cache_entries WHERE seq = ?", [(s,) for s in seqs])
        return seqs

    def _evict_lru(self, tenant: str, max_entries: int, max_bytes: int) -> list[int]:
        """Delete least-recently-used entries until the tenant is within both caps."""
        evicted: list[int] = []
        with self.storage.atomic() as conn:
            while True:
                row = conn.execute(
                    "SELECT entries, bytes FROM cache_usage WHERE tenant = ?", (tenant,)
                ).fetchone()
                if row is None or (row[0] <= max_entries and row[1] <= max_bytes):
                    break
                over = max(row[0] - max_entries, 1)
                victims = conn.execute(
                    "SELECT seq FROM cache_entries WHERE tenant = ? ORDER BY used_at, seq LIMIT ?",
                    (tenant, over if row[0] > max_entries else min(over, 64)),
                ).fetchall()
                if not victims:
                    break
                conn.executemany("DELETE FROM cache_entries WHERE seq = ?", victims)
                evicted.extend(v[0] for v in victims)
        return evicted

    def usage(self, tenant: str) -> tuple[int, int]:
        rows = self.storage.query("SELECT entries, bytes FROM cache_usage WHERE tenant = ?", (tenant,))
        return (int(rows[0][0]), int(rows[0][1])) if rows else (0, 0)

    def vectors(self, model_id: str, batch: int = 50_000) -> Iterable[list[VectorRow]]:
        """Every vector of one model, in seq order, in batches (a full index build)."""
        last = -1
        while True:
            rows = self.storage.query(
                "SELECT seq, tenant, context_hash, prompt_norm, vector FROM cache_entries"
                " WHERE model_id = ? AND vector IS NOT NULL AND seq > ? ORDER BY seq LIMIT ?",
                (model_id, last, batch),
            )
            if not rows:
                return
            last = rows[-1][0]
            yield [VectorRow(*row) for row in rows]

    def vector_seqs(self, model_id: str, limit: int, *, after: int, upto: int) -> list[int]:
        return [int(r[0]) for r in self.storage.query(
            "SELECT seq FROM cache_entries WHERE model_id = ? AND vector IS NOT NULL AND seq > ? AND seq <= ?"
            " ORDER BY seq LIMIT ?", (model_id, after, upto, limit))]

    def vectors_at(self, model_id: str, seqs: Sequence[int]) -> list[VectorRow]:
        if not seqs:
            return []
        marks = ",".join("?" * len(seqs))
        rows = self.storage.query(  # on the primary key, as in by_seqs
            "SELECT seq, tenant, context_hash, prompt_norm, vector FROM cache_entries"
            f" WHERE seq IN ({marks}) AND +model_id = ? AND vector IS NOT NULL ORDER BY seq",
            (*(int(s) for s in seqs), model_id))
        return [VectorRow(*row) for row in rows]

    def foreign_model_rows(self, model_id: str, limit: int) -> list[tuple[int, str]]:
        """Entries embedded by another model (to re-embed with this one; never mixed)."""
        return [(r[0], r[1]) for r in self.storage.query(
            "SELECT seq, prompt FROM cache_entries WHERE vector IS NOT NULL AND model_id IS NOT ?"
            " ORDER BY seq LIMIT ?", (model_id, limit))]

    def recent_prompts(self, limit: int) -> list[str]:
        return [r[0] for r in self.storage.query(
            "SELECT prompt_norm FROM cache_entries ORDER BY seq DESC LIMIT ?", (limit,))]

    def value_candidates(self, tenant: str, ctx: str, values_key: str, limit: int) -> list[int]:
        if not values_key:
            return []
        return [int(r[0]) for r in self.storage.query(
            "SELECT seq FROM cache_entries WHERE tenant = ? AND context_hash = ? AND values_key = ?"
            " AND values_key != '' AND vector IS NOT NULL ORDER BY seq DESC LIMIT ?",
            (tenant, ctx, values_key, limit))]

    def entries_without_values_key(self, limit: int) -> list[tuple[int, str]]:
        return [(int(r[0]), r[1]) for r in self.storage.query(
            "SELECT seq, prompt FROM cache_entries WHERE values_key IS NULL ORDER BY seq LIMIT ?", (limit,))]

    def set_values_keys(self, keys: Sequence[tuple[int, str]]) -> None:
        with self.storage.atomic() as conn:
            conn.executemany("UPDATE cache_entries SET values_key = ? WHERE seq = ?", [(k, s) for s, k in keys])

    def set_vectors(self, model_id: str, seqs: Sequence[int], vectors: np.ndarray) -> None:
        with self.storage.atomic() as conn:
            conn.executemany(
                "UPDATE cache_entries SET vector = ?, model_id = ? WHERE seq = ?",
                [(v.astype(np.float32).tobytes(), model_id, s) for s, v in zip(seqs, vectors, strict=True)],
            )

    # -- lookups, counters, feedback ----------------------------------------------------------
    def record_lookups(self, records: Sequence[LookupRecord]) -> None:
        """One transaction per batch: hit bookkeeping, the window counters, and the lookup records."""
        if not records:
            return
        counts: dict[tuple[str, int, str], int] = {}
        for r in records:
            key = (r.tenant, r.bucket, r.outcome)
            counts[key] = counts.get(key, 0) + 1
        with self.storage.atomic() as conn:
            conn.executemany(
                "UPDATE cache_entries SET hit_count = hit_count + 1, last_hit_at = ?, used_at = ? WHERE seq = ?",
                [(r.at, r.at, r.entry_seq) for r in records if r.entry_seq is not None],
            )
            conn.executemany(
                "INSERT INTO cache_counters (tenant, bucket, outcome, n) VALUES (?, ?, ?, ?)"
                " ON CONFLICT (tenant, bucket, outcome) DO UPDATE SET n = n + excluded.n",
                [(*key, n) for key, n in counts.items()],
            )
            conn.executemany(
                "INSERT INTO cache_lookups (id, tenant, entry_id, layer, similarity, mode, created_at)"
                " VALUES (?, ?, ?, ?, ?, ?, ?)",
                [(r.lookup_id, r.tenant, r.entry_id, r.layer, r.similarity, r.mode, r.at)
                 for r in records if r.lookup_id is not None],
            )

    def prune(self, lookups_before: float, counters_before_bucket: int) -> int:
        """Drop lookup records and counter buckets past their retention."""
        with self.storage.atomic() as conn:
            n = conn.execute("DELETE FROM cache_lookups WHERE created_at < ?", (lookups_before,)).rowcount
            n += conn.execute("DELETE FROM cache_counters WHERE bucket < ?", (counters_before_bucket,)).rowcount
        return int(n)

    def prune_expired(self, before: float, batch: int = 1_000) -> list[int]:
        """Delete entries that expired before ``before``, ``batch`` per transaction (at most 50 batches)."""
        gone: list[int] = []
        for _ in range(50):
            with self.storage.atomic() as conn:
                seqs = [int(r[0]) for r in conn.execute(
                    "DELETE FROM cache_entries WHERE seq IN (SELECT seq FROM cache_entries WHERE expires_at < ?"
                    " ORDER BY seq LIMIT ?) RETURNING seq", (before, batch)).fetchall()]
            gone += seqs
            if len(seqs) < batch:
                break
        return gone

    def lookup_record(self, tenant: str, lookup_id: str) -> tuple[str | None, str | None, float | None] | None:
        rows = self.storage.query(
            "SELECT entry_id, layer, similarity FROM cache_lookups WHERE tenant = ? AND id = ?",
            (tenant, lookup_id),
        )
        return (rows[0][0], rows[0][1], rows[0][2]) if rows else None

    def add_feedback(self, *, tenant: str, entry_id: str | None, lookup_id: str | None,
                     layer: str | None, similarity: float | None, correct: bool, now: float) -> None:
        with self.storage.atomic() as conn:
            conn.execute(
                "INSERT INTO cache_feedback (tenant, entry_id, lookup_id, layer, similarity, correct, created_at)"
                " VALUES (?, ?, ?, ?, ?, ?, ?)",
                (tenant, entry_id, lookup_id, layer, similarity, int(correct), now),
            )

    def counters(self, tenant: str, since_bucket: int | None) -> dict[str, int]:
        rows = self._tenant_groups("SELECT outcome, SUM(n) FROM cache_counters", "bucket", since_bucket, "outcome",
                                   tenant)
        return {r[0]: int(r[1]) for r in rows}

    def feedback_counts(self, tenant: str, since: float | None) -> dict[str, int]:
        rows = self._tenant_groups("SELECT correct, COUNT(*) FROM cache_feedback", "created_at", since, "correct",
                                   tenant)
        counts = {int(r[0]): int(r[1]) for r in rows}
        return {"correct": counts.get(1, 0), "incorrect": counts.get(0, 0)}

    def _tenant_groups(self, select: str, since_column: str, since: float | None, group: str,
                       tenant: str) -> list[Any]:
        """``select`` over one tenant's rows (those at or after ``since`` when given), grouped by ``group``."""
        sql = f"{select} WHERE tenant = ?"
        params: list[Any] = [tenant]
        if since is not None:
            sql += f" AND {since_column} >= ?"
            params.append(since)
        return self.storage.query(f"{sql} GROUP BY {group}", params)

    def feedback(self, tenant: str) -> list[FeedbackRow]:
        """Every feedback row of the tenant, oldest first: calibration can use it."""
        return [FeedbackRow(r[0], r[1], bool(r[2])) for r in self.storage.query(
            "SELECT layer, similarity, correct FROM cache_feedback WHERE tenant = ? ORDER BY id", (tenant,))]

    # -- thresholds ----------------------------------------------------------------------------
    def get_threshold(self, tenant: str, model_id: str, mode: str, language: str = "*") -> Threshold | None:
        rows = self.storage.query(
            "SELECT value, calibrated, target, bound, n_negatives, source, partition_size, recalibrate_above"
            " FROM cache_thresholds WHERE tenant = ? AND model_id = ? AND mode = ? AND language = ?",
            (tenant, model_id, mode, language),
        )
        if not rows:
            return None
        value, calibrated, target, bound, n_neg, source, size, above = rows[0]
        return Threshold(value=value, calibrated=bool(calibrated), target=target, bound=bound,
                         n_negatives=n_neg, model_id=model_id, mode=mode, source=source,  # type: ignore[arg-type]
                         language=language, partition_size=size, recalibrate_above=above)

    def set_threshold(self, tenant: str, model_id: str, t: Threshold) -> None:
        with self.storage.atomic() as conn:
            conn.execute(
                "INSERT INTO cache_thresholds (tenant, model_id, mode, language, value, calibrated, target, bound,"
                " n_negatives, source, updated_at, partition_size, recalibrate_above)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
                " ON CONFLICT (tenant, model_id, mode, language) DO UPDATE SET value = excluded.value,"
                " calibrated = excluded.calibrated, target = excluded.target, bound = excluded.bound,"
                " n_negatives = excluded.n_negatives, source = excluded.source, updated_at = excluded.updated_at,"
                " partition_size = excluded.partition_size, recalibrate_above = excluded.recalibrate_above",
                (tenant, model_id, t.mode, t.language, float(t.value), int(t.calibrated), t.target, t.bound,
                 t.n_negatives, t.source, time.time(), t.partition_size, t.recalibrate_above),
            )

    def delete_thresholds(self, tenant: str, model_id: str, modes: Sequence[str], language: str | None = None) -> int:
        removed = 0
        with self.storage.atomic() as conn:
            for mode in modes:
                if language is None:
                    removed += conn.execute(
                        "DELETE FROM cache_thresholds WHERE tenant = ? AND model_id = ? AND mode = ?",
                        (tenant, model_id, mode)).rowcount
                else:
                    removed += conn.execute(
                        "DELETE FROM cache_thresholds WHERE tenant = ? AND model_id = ? AND mode = ? AND language = ?",
                        (tenant, model_id, mode, language)).rowcount
        return removed

    def build_vector_indexes(self) -> list[tuple[str, int]]:
        """None in SQLite: the FAISS index is built by each process from the rows."""
        return []

    # -- change tracking -----------------------------------------------------------------------
    def change_token(self) -> tuple[int, int]:
        """``PRAGMA data_version`` (changes only when *another* connection commits) and this thread's
        connection's ``total_changes`` (changes when it writes itself)."""
        version = self.storage.query("PRAGMA data_version")[0][0]  # errors surface as StorageError
        return int(version), int(self.storage.connection().total_changes)

    def sync_state(self) -> SyncState:
        row = self.storage.query(
            "SELECT (SELECT next FROM cache_seq) - 1,"
            " MAX((SELECT COALESCE(MAX(id), 0) FROM cache_deletions), (SELECT pruned_through FROM cache_sync)),"
            " (SELECT pruned_through FROM cache_sync)"
        )[0]
        return SyncState(int(row[0] if row[0] is not None else 0), int(row[1]), int(row[2]))

    def deleted_seqs(self, after: int, upto: int) -> list[int]:
        return [int(r[0]) for r in self.storage.query(
            "SELECT seq FROM cache_deletions WHERE id > ? AND id <= ?", (after, upto))]

    def prune_deletions(self, before: float) -> int:
        with self.storage.atomic() as conn:
            # ids rise with time: walk up from the oldest row to the first one to keep, so the scan
            # is as long as what gets deleted, not the whole log
            keep = conn.execute("SELECT id FROM cache_deletions WHERE deleted_at >= ? ORDER BY id LIMIT 1",
                                (before,)).fetchone()
            cut = keep[0] - 1 if keep else conn.execute("SELECT MAX(id) FROM cache_deletions").fetchone()[0]
            if cut is None or cut <= 0:
                return 0
            n = conn.execute("DELETE FROM cache_deletions WHERE id <= ?", (cut,)).rowcount
            conn.execute("UPDATE cache_sync SET pruned_through = MAX(pruned_through, ?)", (cut,))
        return int(n)
