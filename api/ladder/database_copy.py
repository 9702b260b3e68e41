"""``lastline db copy``: an existing SQLite file's every tier moved into a PostgreSQL database.

Both sides are opened as a :class:`~lastline.api.ladder.runtime.Runtime` and every tier is built on
each, so both databases carry the current schema (a SQLite file from an older version is migrated
first) before :func:`~lastline.api.ladder.copy_store.copy_tables` moves the rows. The target must be
empty; the copy is refused otherwise. The caches a replica keeps in memory are rebuilt from the
database when the service starts on it, so nothing but rows needs moving.
"""

from __future__ import annotations

from pathlib import Path

from lastline import ConfigError, PostgresStorage, SQLiteStorage, load_settings

from .copy_store import Progress, TableCopy, copy_tables, count_rows
from .runtime import Runtime

__all__ = ["TIERS", "copy_database"]

#: Each tier's tables, parents before children. Indexes derived from them (FTS5, the FAISS
#: accelerator, the KB's vector spaces) are rebuilt by the target's own store.
TIERS: dict[str, tuple[str, ...]] = {
    "rules": ("rule_packs",),
    "defaults": ("api_defaults",),
    "events": ("api_events",),
    "cache": ("cache_entries", "cache_entry_tags", "cache_feedback", "cache_thresholds_v2"),
    "kb": ("kb_documents", "kb_doc_tags", "kb_chunks", "kb_faq"),
}


def _build(runtime: Runtime, tier: str) -> None:
    """Open ``tier`` on ``runtime`` (its store migrates the database)."""
    getattr(runtime, tier)  # each tier is a cached property named as in TIERS


def copy_database(source: Path, target_url: str, *, owner_url: str | None = None,
                  progress: Progress | None = None) -> list[TableCopy]:
    """Copy every tier of the SQLite file ``source`` into the empty database ``target_url``."""
    if not source.is_file():
        raise ConfigError(f"--from: no SQLite file at {source}")
    src = Runtime.open(load_settings(db=source, database_url=None, database_owner_url=None, kb_seed=None))
    try:
        dst = Runtime.open(load_settings(database_url=target_url, database_owner_url=owner_url, kb_seed=None))
        try:
            assert isinstance(src.storage, SQLiteStorage) and isinstance(dst.storage, PostgresStorage)
            tables: list[str] = []
            for tier, names in TIERS.items():
                _build(src, tier)
                try:
                    _build(dst, tier)
                except ConfigError:
                    if any(count_rows(src.storage, t) for t in names):
                        raise
                    continue  # nothing of this tier to move
                tables.extend(names)
            return copy_tables(src.storage, dst.storage, tables, progress=progress)
        finally:
            dst.close()
    finally:
        src.close()
