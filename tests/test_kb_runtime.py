"""``Runtime.kb``: LASTLINE_KB_SEED fills an empty KB once, a wrong seed path fails by name, and a serving
start warms every tenant's search structures."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from lastline import ConfigError, Embedder, SQLiteStorage, load_settings
from lastline.api.ladder.runtime import Runtime
from lastline.kb import KnowledgeBase
from lastline.kb._spaces import PRIMARY

DEMO = Path(__file__).resolve().parents[1] / "data" / "demo"


def test_seed_fills_an_empty_kb_once_and_never_overwrites(tmp_path: Path) -> None:
    db = tmp_path / "seed.db"
    runtime = Runtime.open(load_settings(db=db, kb_seed=DEMO))
    try:
        seeded = runtime.kb.count()
        assert seeded >= 24
        runtime.kb.delete_document("overview.md")
    finally:
        runtime.close()
    again = Runtime.open(load_settings(db=db, kb_seed=DEMO))
    try:
        assert again.kb.count() == seeded - 1  # not empty: the seed is not ingested again
    finally:
        again.close()


def test_missing_seed_folder_is_a_config_error_naming_the_setting(tmp_path: Path) -> None:
    runtime = Runtime.open(load_settings(db=tmp_path / "x.db", kb_seed=tmp_path / "nope"))
    try:
        with pytest.raises(ConfigError, match="LASTLINE_KB_SEED"):
            _ = runtime.kb
    finally:
        runtime.close()


def test_a_serving_start_builds_each_tenants_in_memory_search_structures_before_it_is_ready(
        tmp_path: Path, embedder: Embedder) -> None:
    """Left to a tenant's first search, they were built in the background while a flood was searched by
    FTS5 and sqlite-vec; a ready replica has them."""
    db = tmp_path / "warm.db"
    faq = tmp_path / "faq.csv"
    with faq.open("w", encoding="utf-8", newline="") as out:
        writer = csv.writer(out)
        writer.writerow(["question", "answer"])
        writer.writerows([f"How do I reset password number {i}?", f"Open settings page {i}."] for i in range(600))
    storage = SQLiteStorage(db)
    kb = KnowledgeBase(storage, embedder)
    kb.ingest(faq, tenant="acme")  # 600 chunks: past AnnConfig.threshold (500)
    kb.ingest(DEMO / "faq.csv", tenant="globex")  # a few dozen: postings only
    storage.close()

    runtime = Runtime.open(load_settings(db=db, api_keys={"k1": "acme", "k2": "globex"}, kb_english_embedder="none"))
    try:
        structures = runtime.kb.keyword_index
        vectors = runtime.kb.store.vector_index(PRIMARY).ann
        assert structures is not None and vectors is not None
        assert structures.indexes.current("acme") is None and vectors.graphs.current("acme") is None
        runtime.build()
        assert runtime.kb_warmed == {"keyword": 2, "vector": 1}
        assert structures.indexes.current("acme") is not None and structures.indexes.current("globex") is not None
        copy = vectors.graphs.current("acme")
        assert copy is not None and len(copy) == 600
        assert vectors.graphs.current("globex") is None  # below the threshold: sqlite-vec answers
    finally:
        runtime.close()
