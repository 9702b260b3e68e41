"""Moving an existing SQLite database into PostgreSQL, table by table (``lastline db copy``).

The target is migrated first by opening every tier's store on it (the stores' factories run their
named migrations), so the copy writes into exactly the schema the service uses. Each listed table is
then read from the SQLite file and written to the table of the same name as the owner role
(:meth:`~lastline.postgres.PostgresStorage.maintenance`: across tenants, the tenant column copied
as is). Columns are matched by name; values are converted by the target column's type (SQLite's
0/1 to ``boolean``, a float32 blob to pgvector's ``vector``, JSON text to ``jsonb``). Identity
columns keep their values and their sequences are moved past them.

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
from lastline.postgres import PostgresStorage
from lastline.storage import SQLiteStorage

__all__ = ["TableCopy", "copy_tables", "count_rows"]

_BATCH = 1000

#: Called after each batch with (table, rows copied of that table so far, that table's row count).
Progress = Callable[[str, int, int], None]


@dataclass(frozen=True)
class TableCopy:
    """What was copied of one table."""

    table: str
    rows: int
    columns: tuple[str, ...]


def _sqlite_columns(source: SQLiteStorage, table: str) -> list[str]:
    return [str(r[1]) for r in source.query(f"PRAGMA table_info({table})")]


def _pg_columns(target: PostgresStorage, table: str) -> dict[str, tuple[str, bool]]:
    """``{column: (type name, is identity)}`` of the target table."""
    with target.maintenance() as conn:
        rows = conn.execute(
            "SELECT column_name, udt_name, is_identity = 'YES' FROM information_schema.columns"
            " WHERE table_schema = current_schema() AND table_name = %s ORDER BY ordinal_position",
            (table,),
        ).fetchall()
    return {str(name): (str(udt), bool(identity)) for name, udt, identity in rows}


def count_rows(storage: SQLiteStorage | PostgresStorage, table: str) -> int:
    """Rows of ``table`` across every tenant (0 when the SQLite file has no such table)."""
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
    if udt == "bytea":
        return lambda v: None if v is None else bytes(v)
    return lambda v: v


def copy_tables(source: SQLiteStorage, target: PostgresStorage, tables: Sequence[str], *,
                progress: Progress | None = None) -> list[TableCopy]:
    """Copy ``tables`` (in order: parents before children) from ``source`` into the migrated ``target``."""
    occupied = {t: n for t in tables if (n := count_rows(target, t))}
    if occupied:
        held = ", ".join(f"{t}: {n} rows" for t, n in occupied.items())
        raise Conflict(f"the target database already holds data ({held}); copy into an empty database")
    done: list[TableCopy] = []
    for table in tables:
        total = count_rows(source, table)
        target_columns = _pg_columns(target, table)
        if not target_columns:
            raise Conflict(f"the target database has no table {table}: was it migrated?")
        columns = [c for c in _sqlite_columns(source, table) if c in target_columns] if total else []
        if not columns:
            done.append(TableCopy(table, 0, ()))
            continue
        convert = [_converter(target_columns[c][0]) for c in columns]
        identity = [c for c in columns if target_columns[c][1]]
        insert = pgsql.SQL("INSERT INTO {} ({}) {} VALUES ({})").format(
            pgsql.Identifier(table), pgsql.SQL(", ").join(map(pgsql.Identifier, columns)),
            pgsql.SQL("OVERRIDING SYSTEM VALUE" if identity else ""),
            pgsql.SQL(", ").join(pgsql.Placeholder() * len(columns)),
        )
        select = f"SELECT rowid, {', '.join(columns)} FROM {table} WHERE rowid > ? ORDER BY rowid LIMIT ?"
        copied, last = 0, -(2**63)
        while rows := source.query(select, (last, _BATCH)):
            last = rows[-1][0]
            with target.maintenance() as conn, conn.cursor() as cur:
                cur.executemany(insert, [[f(v) for f, v in zip(convert, row[1:], strict=True)] for row in rows])
            copied += len(rows)
            if progress is not None:
                progress(table, copied, total)
        with target.maintenance() as conn:
            for column in identity:  # the next generated id follows the copied ones
                conn.execute(
                    pgsql.SQL("SELECT setval(pg_get_serial_sequence(%s, %s), (SELECT max({}) FROM {}))").format(
                        pgsql.Identifier(column), pgsql.Identifier(table)),
                    (table, column),
                )
        done.append(TableCopy(table, copied, tuple(columns)))
    return done
