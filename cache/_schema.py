"""The cache's tables, created only through named migrations (``cache_0001_…``).

``cache_entries`` is the truth: the FAISS index is rebuilt from its ``vector`` blobs. ``seq`` (the
integer row id) is the FAISS id; ``id`` is the public entry id. Per-tenant usage (entries, bytes)
is kept by triggers so the LRU caps cost one row read per put instead of a COUNT(*).
"""

from __future__ import annotations

from lastline import Migration

__all__ = ["MIGRATIONS"]


def _entries(conn: object) -> None:
    run = conn.execute  # type: ignore[attr-defined]
    run(
        """CREATE TABLE cache_entries (
            seq          INTEGER PRIMARY KEY,
            id           TEXT NOT NULL UNIQUE,
            tenant       TEXT NOT NULL,
            context_hash TEXT NOT NULL,
            prompt       TEXT NOT NULL,
            prompt_norm  TEXT NOT NULL,
            prompt_hash  TEXT NOT NULL,
            response     TEXT NOT NULL,
            vector       BLOB,
            model_id     TEXT,
            created_at   REAL NOT NULL,
            expires_at   REAL,
            last_hit_at  REAL,
            used_at      REAL NOT NULL,
            hit_count    INTEGER NOT NULL DEFAULT 0,
            bytes        INTEGER NOT NULL,
            tags         TEXT NOT NULL DEFAULT '[]',
            metadata     TEXT
        )"""
    )
    run("CREATE UNIQUE INDEX cache_entries_key ON cache_entries (tenant, context_hash, prompt_hash)")
    run("CREATE INDEX cache_entries_lru ON cache_entries (tenant, used_at)")
    run("CREATE INDEX cache_entries_created ON cache_entries (tenant, created_at)")
    run(
        """CREATE TABLE cache_entry_tags (
            seq    INTEGER NOT NULL REFERENCES cache_entries (seq) ON DELETE CASCADE,
            tenant TEXT NOT NULL,
            tag    TEXT NOT NULL,
            PRIMARY KEY (seq, tag)
        )"""
    )
    run("CREATE INDEX cache_entry_tags_tag ON cache_entry_tags (tenant, tag)")
    run(
        """CREATE TABLE cache_usage (
            tenant  TEXT PRIMARY KEY,
            entries INTEGER NOT NULL DEFAULT 0,
            bytes   INTEGER NOT NULL DEFAULT 0
        )"""
    )
    run(
        """CREATE TRIGGER cache_usage_insert AFTER INSERT ON cache_entries BEGIN
            INSERT INTO cache_usage (tenant, entries, bytes) VALUES (NEW.tenant, 1, NEW.bytes)
            ON CONFLICT (tenant) DO UPDATE SET entries = entries + 1, bytes = bytes + NEW.bytes;
        END"""
    )
    run(
        """CREATE TRIGGER cache_usage_delete AFTER DELETE ON cache_entries BEGIN
            UPDATE cache_usage SET entries = entries - 1, bytes = bytes - OLD.bytes
            WHERE tenant = OLD.tenant;
        END"""
    )
    run(
        """CREATE TRIGGER cache_usage_update AFTER UPDATE OF bytes ON cache_entries BEGIN
            UPDATE cache_usage SET bytes = bytes - OLD.bytes + NEW.bytes WHERE tenant = NEW.tenant;
        END"""
    )


def _lookups(conn: object) -> None:
    run = conn.execute  # type: ignore[attr-defined]
    run(
        """CREATE TABLE cache_lookups (
            id         TEXT PRIMARY KEY,
            tenant     TEXT NOT NULL,
            entry_id   TEXT,
            layer      TEXT,
            similarity REAL,
            mode       TEXT NOT NULL,
            created_at REAL NOT NULL
        )"""
    )
    run("CREATE INDEX cache_lookups_time ON cache_lookups (created_at)")
    run(
        """CREATE TABLE cache_feedback (
            id         INTEGER PRIMARY KEY,
            tenant     TEXT NOT NULL,
            entry_id   TEXT,
            lookup_id  TEXT,
            layer      TEXT,
            similarity REAL,
            correct    INTEGER NOT NULL,
            created_at REAL NOT NULL
        )"""
    )
    run("CREATE INDEX cache_feedback_tenant ON cache_feedback (tenant, created_at)")
    run(
        """CREATE TABLE cache_counters (
            tenant  TEXT NOT NULL,
            bucket  INTEGER NOT NULL,
            outcome TEXT NOT NULL,
            n       INTEGER NOT NULL DEFAULT 0,
            PRIMARY KEY (tenant, bucket, outcome)
        )"""
    )


def _thresholds(conn: object) -> None:
    conn.execute(  # type: ignore[attr-defined]
        """CREATE TABLE cache_thresholds (
            tenant      TEXT NOT NULL,
            model_id    TEXT NOT NULL,
            mode        TEXT NOT NULL,
            value       REAL NOT NULL,
            calibrated  INTEGER NOT NULL,
            target      REAL,
            bound       REAL,
            n_negatives INTEGER,
            source      TEXT NOT NULL,
            updated_at  REAL NOT NULL,
            PRIMARY KEY (tenant, model_id, mode)
        )"""
    )


def _seq_counter(conn: object) -> None:
    """Never reuse a row id: FAISS ids must not come back after a delete (HNSW tombstones them)."""
    run = conn.execute  # type: ignore[attr-defined]
    run("CREATE TABLE cache_seq (id INTEGER PRIMARY KEY CHECK (id = 1), next INTEGER NOT NULL)")
    run("INSERT INTO cache_seq (id, next) SELECT 1, COALESCE(MAX(seq), 0) + 1 FROM cache_entries")


def _deletion_log(conn: object) -> None:
    """Every deleted vector row leaves its seq here, so other processes can drop it from their index.

    A trigger rather than code in each delete path: LRU eviction, ``delete``, ``invalidate`` (tags,
    age, context) and replace-on-same-key all delete from ``cache_entries``, and so would any future
    path. ``AUTOINCREMENT`` keeps log ids rising even after pruning empties the table (a reader's
    watermark must never see an id again); ``cache_sync.pruned_through`` is the highest id pruned,
    so a reader whose watermark is below it knows it missed deletions and rebuilds.
    """
    run = conn.execute  # type: ignore[attr-defined]
    run(
        """CREATE TABLE cache_deletions (
            id         INTEGER PRIMARY KEY AUTOINCREMENT,
            seq        INTEGER NOT NULL,
            deleted_at REAL NOT NULL
        )"""
    )
    run(
        """CREATE TRIGGER cache_deletions_log AFTER DELETE ON cache_entries WHEN OLD.vector IS NOT NULL BEGIN
            INSERT INTO cache_deletions (seq, deleted_at)
            VALUES (OLD.seq, (julianday('now') - 2440587.5) * 86400.0);
        END"""
    )
    run("CREATE TABLE cache_sync (id INTEGER PRIMARY KEY CHECK (id = 1), pruned_through INTEGER NOT NULL)")
    run("INSERT INTO cache_sync (id, pruned_through) VALUES (1, 0)")


def _values_key(conn: object) -> None:
    """The key of an entry's normalized values (``cache/_values.py``), for value-aware candidates.

    ``NULL`` means "not computed yet" (rows written before this migration): the cache fills it in
    at start-up, as it re-embeds rows of another model. ``''`` means "no values".
    """
    run = conn.execute  # type: ignore[attr-defined]
    run("ALTER TABLE cache_entries ADD COLUMN values_key TEXT")
    run("CREATE INDEX cache_entries_values ON cache_entries (tenant, context_hash, values_key) WHERE values_key != ''")


def _thresholds_by_language(conn: object) -> None:
    """Thresholds keyed by language too (``'*'`` = any), with the partition size they were measured at.

    Rows from before keep their values under ``'*'``, which every language falls back to.
    """
    run = conn.execute  # type: ignore[attr-defined]
    run(
        """CREATE TABLE cache_thresholds_v2 (
            tenant            TEXT NOT NULL,
            model_id          TEXT NOT NULL,
            mode              TEXT NOT NULL,
            language          TEXT NOT NULL DEFAULT '*',
            value             REAL NOT NULL,
            calibrated        INTEGER NOT NULL,
            target            REAL,
            bound             REAL,
            n_negatives       INTEGER,
            source            TEXT NOT NULL,
            updated_at        REAL NOT NULL,
            partition_size    INTEGER,
            recalibrate_above INTEGER,
            PRIMARY KEY (tenant, model_id, mode, language)
        )"""
    )
    run("INSERT INTO cache_thresholds_v2 (tenant, model_id, mode, language, value, calibrated, target, bound,"
        " n_negatives, source, updated_at) SELECT tenant, model_id, mode, '*', value, calibrated, target, bound,"
        " n_negatives, source, updated_at FROM cache_thresholds")
    run("DROP TABLE cache_thresholds")
    run("ALTER TABLE cache_thresholds_v2 RENAME TO cache_thresholds")


MIGRATIONS = [
    Migration("cache_0001_entries", _entries),
    Migration("cache_0002_lookups_feedback_counters", _lookups),
    Migration("cache_0003_thresholds", _thresholds),
    Migration("cache_0004_seq_counter", _seq_counter),
    Migration("cache_0005_deletion_log", _deletion_log),
    Migration("cache_0006_values_key", _values_key),
    Migration("cache_0007_thresholds_by_language", _thresholds_by_language),
]
