"""Raw looks at a KB database on either backend, for tests that check the stored rows themselves.

On PostgreSQL these run as the owner role (``storage.maintenance()``): a test counting every row of
a table means every tenant's, which the application role — bound by row-level security — cannot see.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import numpy as np

from lastline import PostgresStorage, SQLiteStorage

Storage = SQLiteStorage | PostgresStorage


def rows(storage: Storage, sql: str) -> list[tuple[Any, ...]]:
    """All rows of ``sql`` (portable SQL without parameters), across tenants."""
    if isinstance(storage, SQLiteStorage):
        return [tuple(r) for r in storage.query(sql)]
    with storage.maintenance() as conn:
        return [tuple(r) for r in conn.execute(sql).fetchall()]


def execute(storage: Storage, sql: str) -> None:
    if isinstance(storage, SQLiteStorage):
        with storage.atomic() as conn:
            conn.execute(sql)
        return
    with storage.maintenance() as conn:
        conn.execute(sql)


def ids(storage: Storage, sql: str) -> set[int]:
    return {int(r[0]) for r in rows(storage, sql)}


def count(storage: Storage, table: str) -> int:
    return int(rows(storage, f"SELECT count(*) FROM {table}")[0][0])


def keyword_rows(storage: Storage) -> int:
    """Rows of the keyword index: FTS5's own table, or the chunks carrying a tsvector on PostgreSQL."""
    if isinstance(storage, SQLiteStorage):
        return count(storage, "kb_fts")
    return int(rows(storage, "SELECT count(*) FROM kb_chunks WHERE tsv IS NOT NULL")[0][0])


def vectors(storage: Storage, table: str) -> dict[int, bytes]:
    """Chunk id → the stored vector's float32 bytes (sqlite-vec blobs and pgvector arrays alike)."""
    out = {}
    for chunk_id, embedding in rows(storage, f"SELECT chunk_id, embedding FROM {table}"):
        if not isinstance(embedding, bytes):  # pgvector's Vector (or a numpy array, by adapter version)
            array = embedding.to_numpy() if hasattr(embedding, "to_numpy") else embedding
            embedding = np.asarray(array, dtype=np.float32).tobytes()
        out[int(chunk_id)] = embedding
    return out


@contextmanager
def failing_chunk_insert(storage: Storage, ord_: int) -> Iterator[None]:
    """Every insert of a chunk with ordinal ``ord_`` fails inside the database, as a crash mid-write would."""
    if isinstance(storage, SQLiteStorage):
        conn = storage.connection()
        conn.execute(f"CREATE TEMP TRIGGER crash BEFORE INSERT ON kb_chunks WHEN NEW.ord = {int(ord_)}"
                     " BEGIN SELECT RAISE(ABORT, 'simulated crash'); END")
        try:
            yield
        finally:
            conn.execute("DROP TRIGGER crash")
        return
    execute(storage, "CREATE FUNCTION kb_crash() RETURNS trigger LANGUAGE plpgsql AS"
                     f" $$ BEGIN IF NEW.ord = {int(ord_)} THEN RAISE EXCEPTION 'simulated crash'; END IF;"
                     " RETURN NEW; END $$")
    execute(storage, "CREATE TRIGGER crash BEFORE INSERT ON kb_chunks FOR EACH ROW EXECUTE FUNCTION kb_crash()")
    try:
        yield
    finally:
        execute(storage, "DROP TRIGGER crash ON kb_chunks")
        execute(storage, "DROP FUNCTION kb_crash()")


@contextmanager
def module_pg_database(superuser_url: str) -> Iterator[tuple[str, str]]:
    """(application URL, owner URL) of a fresh database for a module-scoped fixture, dropped after.

    The same database ``pg_urls`` makes per test (``tests/pg_cluster.py``, which also creates the two
    roles); module fixtures (one ingest shared by many read-only tests) cannot use a function-scoped one.
    """
    import pg_cluster

    app, owner = pg_cluster.create_database(superuser_url)
    try:
        yield app, owner
    finally:
        pg_cluster.drop_database(superuser_url, app)


@contextmanager
def module_storage(request: Any, backend: str, tmp: Any) -> Iterator[Storage]:
    """A fresh database on ``backend`` for a module-scoped fixture (``tmp``: its own directory)."""
    from lastline import open_storage

    if backend == "sqlite":
        storage: Storage = open_storage(tmp / "kb.db")
        try:
            yield storage
        finally:
            storage.close()
        return
    with module_pg_database(request.getfixturevalue("pg_superuser_url")) as (app, owner):
        storage = open_storage(app, owner_url=owner)
        try:
            yield storage
        finally:
            storage.close()
