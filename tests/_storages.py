"""``reopen``: more storages on the test's own database (another process's or replica's connections).

Imported by the test modules that need a second storage on one database — two instances on one
SQLite file, or two replicas on one PostgreSQL database — on whichever backend the test runs.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from lastline import PostgresStorage, SQLiteStorage, open_storage

Storage = SQLiteStorage | PostgresStorage


@pytest.fixture
def reopen(request: pytest.FixtureRequest, backend: str, db_path: Path) -> Iterator[Callable[[], Storage]]:
    """A function opening one more storage on this test's database; all are closed after the test."""
    made: list[Storage] = []

    def open_one() -> Storage:
        if backend == "sqlite":
            made.append(open_storage(db_path))
        else:
            app, owner = request.getfixturevalue("pg_urls")
            made.append(open_storage(app, owner_url=owner))
        return made[-1]

    yield open_one
    for s in made:
        s.close()
