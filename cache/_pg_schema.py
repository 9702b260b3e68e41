"""The cache's PostgreSQL tables, created only through named migrations (``cache_pg_0001_…``).

The same tables and meaning as the SQLite schema (``_schema.py``), in PostgreSQL's terms:

- ``cache_entries.embedding`` is a pgvector ``vector`` without a fixed dimension, so entries of
  several models can coexist while one is re-embedded into another; each model gets its own partial
  HNSW index over ``embedding::vector(dim)`` (:func:`hnsw_index_ddl`), created when a replica that
  searches in the database (``vector_index="store"``) starts with that model, or by ``lastline db
  copy`` (see ``PostgresCacheStore.ensure_model_index``).
- every table with a ``tenant`` column has row-level security (:func:`lastline.postgres.tenant_isolation`);
  the two one-row counter tables (``cache_seq``, ``cache_sync``) hold no tenant data.
- ``seq`` is not a PostgreSQL sequence but the ``cache_seq`` row, incremented inside the writing
  transaction: its row lock makes seqs visible in the order they were handed out, which the
  index catch-up relies on (``_sync.py``: everything at or below a counter read is committed). A
  sequence would hand out 7 to a transaction that commits after the one holding 8.
- deletions are logged by a statement-level trigger that takes its log ids from ``cache_sync`` the
  same way, so the log head is a watermark too.
- an entry's hit count, last hit and LRU time live in a narrow ``cache_entry_hits`` row beside it
  (``cache_pg_0005``), so recording a hit never rewrites the row that holds the vector.
"""

from __future__ import annotations

import hashlib
from typing import Any

from lastline.postgres import TableCopySpec, TierTables, tenant_isolation
from lastline.storage import Migration

__all__ = ["COPIED_TABLES", "MIGRATIONS", "TENANT_TABLES", "hnsw_index_ddl", "hnsw_index_name"]

_SECURED_BY_0004 = ("cache_entries", "cache_entry_tags", "cache_usage", "cache_deletions", "cache_lookups",
                    "cache_feedback", "cache_counters", "cache_thresholds")
#: Every cache table with a tenant column (each has a row-level security policy).
TENANT_TABLES = (*_SECURED_BY_0004, "cache_entry_hits")


def _entries(conn: Any) -> None:
    run = conn.execute
    run(
        """CREATE TABLE cache_entries (
            seq          BIGINT PRIMARY KEY,
            id           TEXT NOT NULL UNIQUE,
            tenant       TEXT NOT NULL,
            context_hash TEXT NOT NULL,
            prompt       TEXT NOT NULL,
            prompt_norm  TEXT NOT NULL,
            prompt_hash  TEXT NOT NULL,
            response     TEXT NOT NULL,
            embedding    vector,
            model_id     TEXT,
            created_at   DOUBLE PRECISION NOT NULL,
            expires_at   DOUBLE PRECISION,
            last_hit_at  DOUBLE PRECISION,
            used_at      DOUBLE PRECISION NOT NULL,
            hit_count    BIGINT NOT NULL DEFAULT 0,
            bytes        BIGINT NOT NULL,
            tags         TEXT NOT NULL DEFAULT '[]',
            metadata     TEXT,
            values_key   TEXT,
            CONSTRAINT cache_entries_key UNIQUE (tenant, context_hash, prompt_hash)
        )"""
    )
    run("CREATE INDEX cache_entries_lru ON cache_entries (tenant, used_at, seq)")
    run("CREATE INDEX cache_entries_created ON cache_entries (tenant, created_at)")
    run("CREATE INDEX cache_entries_partition ON cache_entries (tenant, context_hash, model_id)"
        " WHERE embedding IS NOT NULL")
    run("CREATE INDEX cache_entries_model ON cache_entries (model_id, seq) WHERE embedding IS NOT NULL")
    run("CREATE INDEX cache_entries_values ON cache_entries (tenant, context_hash, values_key)"
        " WHERE values_key <> ''")
    run("CREATE INDEX cache_entries_unkeyed ON cache_entries (seq) WHERE values_key IS NULL")
    run("CREATE INDEX cache_entries_expires ON cache_entries (expires_at) WHERE expires_at IS NOT NULL")
    run(
        """CREATE TABLE cache_entry_tags (
            seq    BIGINT NOT NULL REFERENCES cache_entries (seq) ON DELETE CASCADE,
            tenant TEXT NOT NULL,
            tag    TEXT NOT NULL,
            PRIMARY KEY (seq, tag)
        )"""
    )
    run("CREATE INDEX cache_entry_tags_tag ON cache_entry_tags (tenant, tag)")
    run(
        """CREATE TABLE cache_usage (
            tenant  TEXT PRIMARY KEY,
            entries BIGINT NOT NULL DEFAULT 0,
            bytes   BIGINT NOT NULL DEFAULT 0
        )"""
    )
    # Per-tenant usage kept by triggers, as on SQLite: the LRU caps cost one row read per put.
    run(
        """CREATE FUNCTION cache_usage_track() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            IF TG_OP = 'INSERT' THEN
                INSERT INTO cache_usage (tenant, entries, bytes) VALUES (NEW.tenant, 1, NEW.bytes)
                ON CONFLICT (tenant) DO UPDATE SET entries = cache_usage.entries + 1,
                                                   bytes = cache_usage.bytes + NEW.bytes;
                RETURN NEW;
            ELSIF TG_OP = 'DELETE' THEN
                UPDATE cache_usage SET entries = entries - 1, bytes = bytes - OLD.bytes WHERE tenant = OLD.tenant;
                RETURN OLD;
            ELSE
                UPDATE cache_usage SET bytes = bytes - OLD.bytes + NEW.bytes WHERE tenant = NEW.tenant;
                RETURN NEW;
            END IF;
        END $$"""
    )
    run("CREATE TRIGGER cache_usage_insert AFTER INSERT ON cache_entries"
        " FOR EACH ROW EXECUTE FUNCTION cache_usage_track()")
    run("CREATE TRIGGER cache_usage_delete AFTER DELETE ON cache_entries"
        " FOR EACH ROW EXECUTE FUNCTION cache_usage_track()")
    run("CREATE TRIGGER cache_usage_update AFTER UPDATE OF bytes ON cache_entries"
        " FOR EACH ROW WHEN (OLD.bytes IS DISTINCT FROM NEW.bytes) EXECUTE FUNCTION cache_usage_track()")
    run("CREATE TABLE cache_seq (id INTEGER PRIMARY KEY CHECK (id = 1), next BIGINT NOT NULL)")
    run("INSERT INTO cache_seq (id, next) VALUES (1, 1)")


def _deletion_log(conn: Any) -> None:
    """Every deleted vector row leaves its seq here, so other replicas drop it from their index.

    A trigger, as on SQLite, so every delete path (eviction, delete, invalidate, replace, TTL
    pruning) is logged. Statement-level with a transition table: one ``cache_sync`` update per
    statement, however many rows it deletes.
    """
    run = conn.execute
    run(
        """CREATE TABLE cache_deletions (
            id         BIGINT PRIMARY KEY,
            tenant     TEXT NOT NULL,
            seq        BIGINT NOT NULL,
            deleted_at DOUBLE PRECISION NOT NULL
        )"""
    )
    run("CREATE INDEX cache_deletions_time ON cache_deletions (deleted_at)")
    run(
        """CREATE TABLE cache_sync (
            id             INTEGER PRIMARY KEY CHECK (id = 1),
            log_next       BIGINT NOT NULL,
            pruned_through BIGINT NOT NULL
        )"""
    )
    run("INSERT INTO cache_sync (id, log_next, pruned_through) VALUES (1, 1, 0)")
    run(
        """CREATE FUNCTION cache_log_deletions() RETURNS trigger LANGUAGE plpgsql AS $$
        DECLARE
            n    BIGINT;
            base BIGINT;
        BEGIN
            SELECT count(*) INTO n FROM gone WHERE embedding IS NOT NULL;
            IF n > 0 THEN
                UPDATE cache_sync SET log_next = log_next + n RETURNING log_next - n INTO base;
                INSERT INTO cache_deletions (id, tenant, seq, deleted_at)
                SELECT base + row_number() OVER (ORDER BY seq) - 1, tenant, seq, extract(epoch FROM clock_timestamp())
                FROM gone WHERE embedding IS NOT NULL;
            END IF;
            RETURN NULL;
        END $$"""
    )
    run("CREATE TRIGGER cache_deletions_log AFTER DELETE ON cache_entries REFERENCING OLD TABLE AS gone"
        " FOR EACH STATEMENT EXECUTE FUNCTION cache_log_deletions()")
    # an upsert that replaces a key moves the row to a new seq: the old seq is gone for every index
    run(
        """CREATE FUNCTION cache_log_reseq() RETURNS trigger LANGUAGE plpgsql AS $$
        DECLARE
            base BIGINT;
        BEGIN
            UPDATE cache_sync SET log_next = log_next + 1 RETURNING log_next - 1 INTO base;
            INSERT INTO cache_deletions (id, tenant, seq, deleted_at)
            VALUES (base, OLD.tenant, OLD.seq, extract(epoch FROM clock_timestamp()));
            RETURN NULL;
        END $$"""
    )
    run("CREATE TRIGGER cache_deletions_reseq AFTER UPDATE OF seq ON cache_entries FOR EACH ROW"
        " WHEN (OLD.seq <> NEW.seq AND OLD.embedding IS NOT NULL) EXECUTE FUNCTION cache_log_reseq()")


def _lookups_feedback_counters_thresholds(conn: Any) -> None:
    run = conn.execute
    run(
        """CREATE TABLE cache_lookups (
            id         TEXT PRIMARY KEY,
            tenant     TEXT NOT NULL,
            entry_id   TEXT,
            layer      TEXT,
            similarity DOUBLE PRECISION,
            mode       TEXT NOT NULL,
            created_at DOUBLE PRECISION NOT NULL
        )"""
    )
    run("CREATE INDEX cache_lookups_time ON cache_lookups (created_at)")
    run(
        """CREATE TABLE cache_feedback (
            id         BIGSERIAL PRIMARY KEY,
            tenant     TEXT NOT NULL,
            entry_id   TEXT,
            lookup_id  TEXT,
            layer      TEXT,
            similarity DOUBLE PRECISION,
            correct    BOOLEAN NOT NULL,
            created_at DOUBLE PRECISION NOT NULL
        )"""
    )
    run("CREATE INDEX cache_feedback_tenant ON cache_feedback (tenant, created_at)")
    run(
        """CREATE TABLE cache_counters (
            tenant  TEXT NOT NULL,
            bucket  BIGINT NOT NULL,
            outcome TEXT NOT NULL,
            n       BIGINT NOT NULL DEFAULT 0,
            PRIMARY KEY (tenant, bucket, outcome)
        )"""
    )
    run("CREATE INDEX cache_counters_bucket ON cache_counters (bucket)")
    run(
        """CREATE TABLE cache_thresholds (
            tenant            TEXT NOT NULL,
            model_id          TEXT NOT NULL,
            mode              TEXT NOT NULL,
            language          TEXT NOT NULL DEFAULT '*',
            value             DOUBLE PRECISION NOT NULL,
            calibrated        BOOLEAN NOT NULL,
            target            DOUBLE PRECISION,
            bound             DOUBLE PRECISION,
            n_negatives       INTEGER,
            source            TEXT NOT NULL,
            updated_at        DOUBLE PRECISION NOT NULL,
            partition_size    INTEGER,
            recalibrate_above INTEGER,
            PRIMARY KEY (tenant, model_id, mode, language)
        )"""
    )


def _row_level_security(conn: Any) -> None:
    for table in _SECURED_BY_0004:  # a table made later gets its policy in its own migration
        for statement in tenant_isolation(table):
            conn.execute(statement)


def _entry_hits(conn: Any) -> None:
    """Hit count, last hit and LRU time move to a narrow row per entry, out of the vector row.

    A hit's bookkeeping rewrote the whole ``cache_entries`` row: ``used_at`` is indexed (LRU), so the
    update could not be HOT and every index got a new entry — the model's HNSW graph included,
    10–39 ms an exact hit (bench/backends.py). Now it updates this row, whose two btree indexes
    are all it touches. Every entry has one: a trigger makes it from the inserted row's own columns
    (so every path that inserts — a put, ``lastline db copy`` with SQLite's counts, a replica of the
    previous version — gets it), this migration backfills the rows there; ``ON UPDATE CASCADE``
    follows an upsert's move to a new seq, ``ON DELETE CASCADE`` every delete.

    The three columns stay in ``cache_entries`` (migrations only add; a replica of the previous
    version still writes them until it is replaced) but are read only by that trigger; their LRU
    index goes.
    """
    run = conn.execute
    run(
        """CREATE TABLE cache_entry_hits (
            seq         BIGINT PRIMARY KEY REFERENCES cache_entries (seq) ON UPDATE CASCADE ON DELETE CASCADE,
            tenant      TEXT NOT NULL,
            used_at     DOUBLE PRECISION NOT NULL,
            hit_count   BIGINT NOT NULL DEFAULT 0,
            last_hit_at DOUBLE PRECISION
        )"""
    )
    run("CREATE INDEX cache_entry_hits_lru ON cache_entry_hits (tenant, used_at, seq)")
    run("INSERT INTO cache_entry_hits (seq, tenant, used_at, hit_count, last_hit_at)"
        " SELECT seq, tenant, used_at, hit_count, last_hit_at FROM cache_entries")
    run(
        """CREATE FUNCTION cache_entry_hits_create() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            INSERT INTO cache_entry_hits (seq, tenant, used_at, hit_count, last_hit_at)
            VALUES (NEW.seq, NEW.tenant, NEW.used_at, NEW.hit_count, NEW.last_hit_at);
            RETURN NULL;
        END $$"""
    )
    run("CREATE TRIGGER cache_entry_hits_insert AFTER INSERT ON cache_entries"
        " FOR EACH ROW EXECUTE FUNCTION cache_entry_hits_create()")
    run("DROP INDEX cache_entries_lru")
    for statement in tenant_isolation("cache_entry_hits"):
        run(statement)


MIGRATIONS = [
    Migration("cache_pg_0001_entries", _entries),
    Migration("cache_pg_0002_deletion_log", _deletion_log),
    Migration("cache_pg_0003_lookups_feedback_counters_thresholds", _lookups_feedback_counters_thresholds),
    Migration("cache_pg_0004_row_level_security", _row_level_security),
    Migration("cache_pg_0005_entry_hits", _entry_hits),
]

#: What ``lastline db copy`` moves from a SQLite file. Rebuilt instead: the per-tenant usage and the
#: hit rows (the triggers make them, hit counts included, as the entries arrive), the seq counter
#: (moved past the copied seqs) and the replicas' deletion log and sync row, which start empty.
COPIED_TABLES = TierTables(
    (TableCopySpec("cache_entries", expressions={"embedding": "vector"}), TableCopySpec("cache_entry_tags"),
     TableCopySpec("cache_lookups"), TableCopySpec("cache_feedback"), TableCopySpec("cache_counters"),
     TableCopySpec("cache_thresholds")),
    # the next entry's seq follows the copied ones (the cache hands seqs out from this row)
    after=("UPDATE cache_seq SET next = (SELECT coalesce(max(seq), 0) + 1 FROM cache_entries)",),
    rebuilt=("cache_usage", "cache_entry_hits", "cache_seq", "cache_deletions", "cache_sync"),
)


def hnsw_index_name(model_id: str, dim: int) -> str:
    """A stable, valid identifier per (model, dimension): model ids hold ``/``, ``:`` and dots."""
    return f"cache_entries_hnsw_{hashlib.sha256(model_id.encode()).hexdigest()[:16]}_{int(dim)}"


def hnsw_index_ddl(model_id: str, dim: int) -> str:
    """The partial HNSW index of one model: cosine distance over ``embedding::vector(dim)``.

    Partial on ``model_id`` (a literal, so the planner can match it) and cast to a fixed dimension,
    because an HNSW index needs one; kNN queries use the very same expression and predicate.
    DDL takes no bind parameters, so the literal is quoted here. pgvector's default graph
    parameters (m 16, ef_construction 64).
    """
    literal = "'" + model_id.replace("'", "''") + "'"
    return (f"CREATE INDEX IF NOT EXISTS {hnsw_index_name(model_id, dim)} ON cache_entries"
            f" USING hnsw ((embedding::vector({int(dim)})) vector_cosine_ops)"
            f" WHERE model_id = {literal} AND embedding IS NOT NULL")
