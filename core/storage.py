"""SQLite storage: the source of truth, one file, WAL, migrations recorded in the database.

Connection strategy: one connection per thread (SQLite connections must not be shared across
threads mid-transaction), all opened the same way — WAL, foreign keys, a busy timeout, sqlite-vec
loaded. Readers never block in WAL mode; writers take ``BEGIN IMMEDIATE`` inside :meth:`atomic`
and wait up to the busy timeout for each other. Nested ``atomic()`` blocks become savepoints.

Python's built-in ``sqlite3`` cannot load extensions on many builds, so connections come from
``sqlean`` (same DB-API, extension loading enabled) and sqlite-vec is loaded into each.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

import sqlean
import sqlite_vec

from .errors import ConfigError, StorageError

__all__ = ["DEFAULT_BUSY_TIMEOUT_MS", "Migration", "SQLiteStorage", "Storage"]

DEFAULT_BUSY_TIMEOUT_MS = 10_000

Connection = Any  # sqlean.Connection: the DB-API of sqlite3


class Storage(Protocol):
    """What every backend offers beside its own SQL: SQLite (embedded default) or PostgreSQL.

    Transactions and queries are each backend's own (their SQL differs, and only store modules
    speak it); the stores of each tier are written against one backend class. Callers above the
    stores see only this.
    """

    backend: str

    def migrate(self, migrations: Sequence[Migration]) -> list[str]: ...
    def applied_migrations(self) -> list[str]: ...
    def versions(self) -> dict[str, str]: ...
    def checkpoint(self) -> None: ...
    def close(self) -> None: ...


@dataclass(frozen=True)
class Migration:
    """One schema step; ``name`` is recorded once applied and never reused."""

    name: str
    apply: Callable[[Connection], None]


class SQLiteStorage:
    """A SQLite file with per-thread connections, ``atomic()`` blocks and named migrations."""

    backend = "sqlite"

    def __init__(self, path: str | Path, busy_timeout_ms: int = DEFAULT_BUSY_TIMEOUT_MS) -> None:
        self.path = Path(path).expanduser()
        self.busy_timeout_ms = busy_timeout_ms
        self._local = threading.local()
        self._all: list[tuple[threading.Thread, Connection]] = []  # each connection and its thread
        self._all_lock = threading.Lock()
        self._migrate_lock = threading.Lock()
        conn = self.connection()  # fail now, by name, if the file cannot be used
        conn.execute(
            "CREATE TABLE IF NOT EXISTS schema_migrations ("
            " name TEXT PRIMARY KEY, applied_at REAL NOT NULL)"
        )

    def _open(self) -> Connection:
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            conn = sqlean.connect(str(self.path), isolation_level=None, check_same_thread=False)
            conn.enable_load_extension(True)
            sqlite_vec.load(conn)
            conn.enable_load_extension(False)
            conn.execute(f"PRAGMA busy_timeout = {int(self.busy_timeout_ms)}")
            mode = self._enter_wal(conn)
            if str(mode).lower() != "wal":
                raise StorageError(f"could not enable WAL on {self.path} (journal_mode={mode})")
            conn.execute("PRAGMA synchronous = NORMAL")
            conn.execute("PRAGMA foreign_keys = ON")
        except (sqlean.Error, OSError) as exc:
            raise ConfigError(f"LASTLINE_DB: cannot open {self.path}: {exc}") from exc
        return conn

    def _enter_wal(self, conn: Connection) -> str:
        """Switch ``conn`` to WAL, waiting out another process that is switching the same new file.

        SQLite answers ``PRAGMA journal_mode = WAL`` with ``SQLITE_BUSY`` ("database is locked") at
        once, without its busy handler, while another connection holds the lock it needs to make
        the switch; two servers started together on a new file meet exactly that. The switch is
        retried for as long as any other write would wait (the busy timeout).
        """
        deadline = time.monotonic() + self.busy_timeout_ms / 1000
        pause_s = 0.001
        while True:
            try:
                return str(conn.execute("PRAGMA journal_mode = WAL").fetchone()[0])
            except sqlean.OperationalError as exc:
                if exc.sqlite_errorcode & 0xFF != sqlean.SQLITE_BUSY or time.monotonic() + pause_s > deadline:
                    raise
            time.sleep(pause_s)
            pause_s = min(pause_s * 2, 0.05)

    def connection(self) -> Connection:
        """This thread's connection, opened on first use."""
        conn = getattr(self._local, "conn", None)
        if conn is None:
            conn = self._open()
            self._local.conn = conn
            self._local.depth = 0
            with self._all_lock:
                self._all.append((threading.current_thread(), conn))
        return conn

    @contextmanager
    def atomic(self) -> Iterator[Connection]:
        """All-or-nothing block; nests as savepoints. Storage errors surface as StorageError."""
        conn = self.connection()
        depth: int = self._local.depth
        savepoint = f"sp{depth}"
        try:
            conn.execute("BEGIN IMMEDIATE" if depth == 0 else f"SAVEPOINT {savepoint}")
        except sqlean.Error as exc:
            raise StorageError(f"cannot start a write on {self.path}: {exc}") from exc
        self._local.depth = depth + 1
        try:
            yield conn
        except BaseException as exc:
            self._local.depth = depth
            if depth == 0:
                conn.execute("ROLLBACK")
            else:
                conn.execute(f"ROLLBACK TO {savepoint}")
                conn.execute(f"RELEASE {savepoint}")
            if isinstance(exc, sqlean.Error):
                raise StorageError(f"write to {self.path} failed: {exc}") from exc
            raise
        else:
            self._local.depth = depth
            try:
                conn.execute("COMMIT" if depth == 0 else f"RELEASE {savepoint}")
            except sqlean.Error as exc:
                if depth == 0:
                    conn.execute("ROLLBACK")
                raise StorageError(f"commit to {self.path} failed: {exc}") from exc

    def query(self, sql: str, params: Sequence[Any] | dict[str, Any] = ()) -> list[Any]:
        """Run a read and return all rows (tuples)."""
        try:
            return list(self.connection().execute(sql, params).fetchall())
        except sqlean.Error as exc:
            raise StorageError(f"read from {self.path} failed: {exc}") from exc

    def migrate(self, migrations: Sequence[Migration]) -> list[str]:
        """Apply, in order, the migrations not yet recorded; return the names applied now."""
        applied_now: list[str] = []
        with self._migrate_lock:
            done = {row[0] for row in self.query("SELECT name FROM schema_migrations")}
            for migration in migrations:
                if migration.name in done:
                    continue
                with self.atomic() as conn:
                    if conn.execute(
                        "SELECT 1 FROM schema_migrations WHERE name = ?", (migration.name,)
                    ).fetchone():
                        continue  # another process applied it meanwhile
                    migration.apply(conn)
                    conn.execute(
                        "INSERT INTO schema_migrations (name, applied_at) VALUES (?, ?)",
                        (migration.name, time.time()),
                    )
                applied_now.append(migration.name)
        return applied_now

    def applied_migrations(self) -> list[str]:
        return [row[0] for row in self.query("SELECT name FROM schema_migrations ORDER BY applied_at, name")]

    def versions(self) -> dict[str, str]:
        sqlite_version, vec_version = self.query("SELECT sqlite_version(), vec_version()")[0]
        return {"sqlite": str(sqlite_version), "sqlite_vec": str(vec_version)}

    def fts5_available(self) -> bool:
        try:
            conn = self.connection()
            conn.execute("CREATE VIRTUAL TABLE IF NOT EXISTS temp._fts5_probe USING fts5(x)")
            conn.execute("DROP TABLE temp._fts5_probe")
        except sqlean.Error:
            return False
        return True

    def checkpoint(self) -> None:
        """Fold the WAL back into the database file (at shutdown: a clean restart reads one file)."""
        try:
            self.connection().execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
        except sqlean.Error as exc:
            raise StorageError(f"checkpoint of {self.path} failed: {exc}") from exc

    def close(self) -> None:
        """Close every thread's connection; one that another live thread may be reading on is
        interrupted instead, and closes when that thread lets go of it.

        Why: closing a connection frees the statements of its cursors, also one another thread is
        stepping through. That crashed the process (a segmentation fault in SQLite's cursor: a KB
        build thread reading its rows while a test closed the storage). ``interrupt`` is SQLite's
        thread-safe way to stop such a read: it fails with the StorageError its caller handles.
        """
        current = threading.current_thread()
        with self._all_lock:
            for owner, conn in self._all:
                if owner is current or not owner.is_alive():
                    conn.close()
                else:
                    conn.interrupt()  # an idle one is closed as the thread-locals below are dropped
            self._all.clear()
        self._local = threading.local()


