"""SQLite storage: WAL, migrations, atomic blocks, threads."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest

from lastline import ConfigError, Migration, SQLiteStorage, StorageError, open_storage


def _create_items(conn: object) -> None:
    conn.execute("CREATE TABLE items (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE)")  # type: ignore[attr-defined]


MIGRATIONS = [Migration("test_0001_items", _create_items)]


def test_connection_uses_wal_and_foreign_keys(storage: SQLiteStorage) -> None:
    assert storage.query("PRAGMA journal_mode")[0][0] == "wal"
    assert storage.query("PRAGMA foreign_keys")[0][0] == 1
    assert storage.query("PRAGMA busy_timeout")[0][0] >= 1000


def test_sqlite_vec_and_fts5_are_available(storage: SQLiteStorage) -> None:
    versions = storage.versions()
    assert versions["sqlite_vec"].startswith("v")
    assert storage.fts5_available()


def test_migrations_apply_once_and_are_recorded(db_path: Path) -> None:
    store = open_storage(db_path)
    assert store.migrate(MIGRATIONS) == ["test_0001_items"]
    assert store.migrate(MIGRATIONS) == []
    store.close()
    reopened = open_storage(db_path)
    assert reopened.migrate(MIGRATIONS) == []
    assert "test_0001_items" in reopened.applied_migrations()
    reopened.close()


def test_failed_migration_leaves_no_trace(storage: SQLiteStorage) -> None:
    def broken(conn: object) -> None:
        conn.execute("CREATE TABLE half (x)")  # type: ignore[attr-defined]
        conn.execute("THIS IS NOT SQL")  # type: ignore[attr-defined]

    with pytest.raises(StorageError):
        storage.migrate([Migration("test_0002_broken", broken)])
    assert "test_0002_broken" not in storage.applied_migrations()
    assert storage.query("SELECT name FROM sqlite_master WHERE name = 'half'") == []


def test_atomic_block_rolls_back_on_error(storage: SQLiteStorage) -> None:
    storage.migrate(MIGRATIONS)
    with pytest.raises(RuntimeError), storage.atomic() as conn:
        conn.execute("INSERT INTO items (name) VALUES ('a')")
        raise RuntimeError("boom")
    assert storage.query("SELECT count(*) FROM items")[0][0] == 0


def test_nested_atomic_rolls_back_only_the_inner_block(storage: SQLiteStorage) -> None:
    storage.migrate(MIGRATIONS)
    with storage.atomic() as conn:
        conn.execute("INSERT INTO items (name) VALUES ('outer')")
        with pytest.raises(StorageError), storage.atomic() as inner:
            inner.execute("INSERT INTO items (name) VALUES ('inner')")
            inner.execute("INSERT INTO items (name) VALUES ('inner')")  # UNIQUE violation
    assert [r[0] for r in storage.query("SELECT name FROM items")] == ["outer"]


def test_acknowledged_write_is_visible_to_a_new_connection(db_path: Path) -> None:
    store = open_storage(db_path)
    store.migrate(MIGRATIONS)
    with store.atomic() as conn:
        conn.execute("INSERT INTO items (name) VALUES ('durable')")
    other = open_storage(db_path)
    assert other.query("SELECT name FROM items")[0][0] == "durable"
    store.close()
    other.close()


def test_concurrent_writers_from_threads_all_land(storage: SQLiteStorage) -> None:
    storage.migrate(MIGRATIONS)

    def work(worker: int) -> None:
        for i in range(25):
            with storage.atomic() as conn:
                conn.execute("INSERT INTO items (name) VALUES (?)", (f"{worker}-{i}",))

    threads = [threading.Thread(target=work, args=(w,)) for w in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert storage.query("SELECT count(*) FROM items")[0][0] == 200


def test_storages_opened_together_on_a_new_file_all_open(tmp_path: Path) -> None:
    # Two servers started at once on a new file: SQLite refuses the WAL switch of one of them at
    # once while the other makes it (before the switch was retried, about one round in six failed).
    def open_together(path: Path, count: int = 4) -> list[BaseException]:
        start = threading.Barrier(count)
        failures: list[BaseException] = []
        opened: list[SQLiteStorage] = []

        def open_one() -> None:
            start.wait()
            try:
                opened.append(SQLiteStorage(path))
            except BaseException as exc:  # collected for the assertion below
                failures.append(exc)

        threads = [threading.Thread(target=open_one) for _ in range(count)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        for store in opened:
            assert store.query("PRAGMA journal_mode")[0][0] == "wal"
            store.close()
        return failures

    failures = [exc for round_ in range(50) for exc in open_together(tmp_path / f"{round_}.db")]
    assert failures == []


def test_unopenable_path_is_a_config_error_naming_the_setting(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("x")
    with pytest.raises(ConfigError, match="LASTLINE_DB"):
        open_storage(blocker / "sub" / "db.sqlite")


def test_closing_under_another_threads_read_interrupts_it_instead_of_crashing(db_path: Path) -> None:
    """Closing a connection frees the statement another thread is stepping through (a segmentation
    fault in SQLite's cursor, seen when a KB build was reading as its storage closed)."""
    storage = SQLiteStorage(db_path)
    started, failures = threading.Event(), []

    def long_read() -> None:
        storage.connection()
        started.set()
        try:  # seconds of counting, unless interrupted
            storage.query("WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c LIMIT 300000000)"
                          " SELECT count(*) FROM c")
        except StorageError as exc:
            failures.append(str(exc))

    reader = threading.Thread(target=long_read)
    reader.start()
    assert started.wait(10)
    time.sleep(0.2)  # the read is stepping now
    storage.close()
    reader.join(20)
    assert not reader.is_alive() and failures and "interrupted" in failures[0]
    reopened = SQLiteStorage(db_path)  # the file is whole
    assert reopened.query("SELECT count(*) FROM schema_migrations")[0][0] >= 0
    reopened.close()
