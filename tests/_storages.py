"""``reopen``: more storages on the test's own database (another process's or replica's connections).

Imported by the test modules that need a second storage on one database — two instances on one
SQLite file, or two replicas on one PostgreSQL database — on whichever backend the test runs.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from conftest import open_test_storage

from lastline import PostgresStorage, SQLiteStorage

Storage = SQLiteStorage | PostgresStorage


@pytest.fixture
def reopen(request: pytest.FixtureRequest, backend: str, db_path: Path) -> Iterator[Callable[[], Storage]]:
    """A function opening one more storage on this test's database; all are closed after the test."""
    made: list[Storage] = []

    def open_one() -> Storage:
        made.append(open_test_storage(request, backend, db_path))
        return made[-1]

    yield open_one
    for s in made:
        s.close()
