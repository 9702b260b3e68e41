"""Shared fixtures: the real bundled model once per session, a fresh SQLite file per test."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

from lastline import Embedder, SQLiteStorage, get_embedder, open_storage  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
SHARED_DATA = ROOT.parent / "shared" / "data"


@pytest.fixture(scope="session")
def embedder() -> Embedder:
    """The default bundled embedder, loaded once for the whole run."""
    emb = get_embedder("use", 1)
    emb.load()
    return emb


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    return tmp_path / "lastline.db"


@pytest.fixture
def storage(db_path: Path) -> Iterator[SQLiteStorage]:
    store = open_storage(db_path)
    yield store
    store.close()


@pytest.fixture
def shared_data() -> Path:
    """The evaluation data beside the project; tests that need it skip loudly when it is absent."""
    if not SHARED_DATA.is_dir():
        pytest.skip(f"evaluation data not found at {SHARED_DATA}")
    return SHARED_DATA
