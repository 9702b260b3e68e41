"""Moving an existing SQLite database into PostgreSQL, table by table (``lastline db copy``).

Each tier's rows are read from the SQLite file and written, as the owner role
(:meth:`~lastline.postgres.PostgresStorage.maintenance`: across tenants, the tenant column copied as
is), to the tables the tier's PostgreSQL store created on the target. Which tables, and the few columns
whose names differ, each tier declares beside its PostgreSQL schema
(:class:`~lastline.postgres.TierTables`). Columns are matched by name; values are converted by the target column's type
(SQLite's 0/1 to ``boolean``, a float32 blob to pgvector's ``vector``, JSON text to ``jsonb``).
Identity and serial columns keep their values and their sequences move past them.

What is derived from the rows is not copied but rebuilt: the cache's per-tenant usage by its
triggers; the knowledge base's keyword index and vector spaces by the knowledge base itself, which
re-indexes and re-embeds a store whose ``kb_meta`` does not say how it was built (the copy leaves it
empty), the next time it opens the database.

A target that already holds rows in any table to copy is refused: a copy never merges into live data.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from psycopg import sql as pgsql
from psycopg.types.json import Jsonb

from lastline import Conflict
from lastline.postgres import PostgresStorage, TableCopySpec, TierTables
from lastline.storage import SQLiteStorage

__all__ = ["Progress", "TableCopy", "copy_tables", "count_rows"]

_BATCH = 1000

#: Called after each batch with (table, rows copied of that table so far, that table's row count).
Progress = Callable[[str, int, int], None]


@dataclass(frozen=True)
class TableCopy:
    """What was copied into one table."""

    table: str
    rows: int


def _sqlite_columns(source: SQLiteStorage, table: str) -> list[str]:
    return [str(r[1]) for r in source.query(f"PRAGMA table_info({table})")]


def _pg_columns(target: PostgresStorage, table: str) -> dict[str, str]:
    """``{column: type name}`` of the target table, in order."""
    with target.maintenance() as conn:
        rows = conn.execute(
            "SELECT column_name, udt_name FROM information_schema.columns"
            " WHERE table_schema = current_schema() AND table_name = %s ORDER BY ordinal_position",
            (table,),
        ).fetchall()
    return {str(name): str(udt) for name, udt in rows}


def count_rows(storage: SQLiteStorage | PostgresStorage, table: str) -> int:
    """Rows of ``table`` across every tenant (0 when there is no such table)."""
    if isinstance(storage, SQLiteStorage):
        exists = storage.query("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", (table,))
        return int(storage.query(f"SELECT count(*) FROM {table}")[0][0]) if exists else 0
    with storage.maintenance() as conn:
        if conn.execute("SELECT to_regclass(%s)", (table,)).fetchone() == (None,):
            return 0
        row = conn.execute(pgsql.SQL("SELECT count(*) FROM {}").format(pgsql.Identifier(table))).fetchone()
    return int(row[0]) if row else 0


def _converter(udt: str) -> Callable[[Any], Any]:
    if udt == "bool":
        return lambda v: None if v is None else bool(v)
    if udt == "vector":
        return lambda v: None if v is None else np.frombuffer(v, dtype=np.float32)
    if udt == "jsonb":
        return lambda v: None if v is None else Jsonb(json.loads(v) if isinstance(v, str | bytes) else v)
    return lambda v: v


def copy_tables(source: SQLiteStorage, target: PostgresStorage, tiers: Sequence[TierTables], *,
                progress: Progress | None = None) -> list[TableCopy]:
    """Copy every table of ``tiers`` from ``source`` into the migrated, empty ``target``."""
    specs = [spec for tier in tiers for spec in tier.tables]
    for spec in specs:
        if not _pg_columns(target, spec.table):
            raise Conflict(f"the target database has no table {spec.table}: was it migrated?")
    occupied = {s.table: n for s in specs if (n := count_rows(target, s.table))}
    if occupied:
        held = ", ".join(f"{t}: {n} rows" for t, n in occupied.items())
        raise Conflict(f"the target database already holds data ({held}); copy into an empty database")
    done = [TableCopy(spec.table, _copy_table(source, target, spec, progress)) for spec in specs]
    with target.maintenance() as conn:
        for tier in tiers:
            for statement in tier.after:
                conn.execute(statement)
    return done


def _copy_table(source: SQLiteStorage, target: PostgresStorage, spec: TableCopySpec,
                progress: Progress | None) -> int:
    total = count_rows(source, spec.table)
    if not total:
        return 0
    target_columns = _pg_columns(target, spec.table)
    present = set(_sqlite_columns(source, spec.table))
    columns = [c for c in target_columns if c in spec.expressions or c in present]
    exprs = [spec.expressions.get(c, f'"{c}"') for c in columns]
    convert = [_converter(target_columns[c]) for c in columns]
    insert = pgsql.SQL("INSERT INTO {} ({}) OVERRIDING SYSTEM VALUE VALUES ({})").format(
        pgsql.Identifier(spec.table), pgsql.SQL(", ").join(map(pgsql.Identifier, columns)),
        pgsql.SQL(", ").join(pgsql.Placeholder() * len(columns)),
    )
    select = (f"SELECT rowid, {', '.join(exprs)} FROM {spec.table}"
              " WHERE rowid > ? ORDER BY rowid LIMIT ?")
    copied, last = 0, -(2**63)
    while rows := source.query(select, (last, _BATCH)):
        last = rows[-1][0]
        with target.maintenance() as conn, conn.cursor() as cur:
            cur.executemany(insert, [[f(v) for f, v in zip(convert, row[1:], strict=True)] for row in rows])
        copied += len(rows)
        if progress is not None:
            progress(spec.table, copied, total)
    with target.maintenance() as conn:  # the next generated id follows the copied ones
        for column in columns:
            row = conn.execute("SELECT pg_get_serial_sequence(%s, %s)", (spec.table, column)).fetchone()
            if row and row[0]:
                conn.execute(pgsql.SQL("SELECT setval(%s, (SELECT max({}) FROM {}))").format(
                    pgsql.Identifier(column), pgsql.Identifier(spec.table)), (row[0],))
    return copied
