"""The KB store seam: SQL lives only in store modules; each backend's store keeps every index in step."""

from __future__ import annotations

import re
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import pytest

from lastline import Embedder, PostgresStorage, SQLiteStorage
from lastline.kb import Filters, KBConfig, KnowledgeBase, ParsedDocument, SQLiteKBStore, chunk_document
from lastline.kb._index_text import fts_text
from lastline.kb._pg_store import PostgresKBStore
from lastline.kb._spaces import ENGLISH, PRIMARY
from lastline.kb._store import DocumentWrite
from lastline.kb._stores import open_kb_store
from lastline.kb._vectors import space_model

pytest_plugins = ["_storages"]  # the reopen fixture
pytestmark = pytest.mark.backends("sqlite", "postgresql")

ROOT = Path(__file__).resolve().parents[1]
# SQL keywords as the project writes them (upper case); prose never spells "SELECT … FROM" so.
SQL = re.compile(r"\b(SELECT\b.*\bFROM|INSERT\s+INTO|DELETE\s+FROM|UPDATE\s+\w+\s+SET|CREATE\s+(VIRTUAL\s+)?TABLE|"
                 r"DROP\s+TABLE|\bMATCH\s+\?)")
STORE_MODULES = {"_sqlite_store.py", "_schema.py", "_pg_store.py", "_pg_schema.py"}


def test_no_sql_outside_the_kb_store_modules() -> None:
    offenders = [
        f"{path.name}:{n}" for path in sorted((ROOT / "kb").glob("*.py")) if path.name not in STORE_MODULES
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1) if SQL.search(line)
    ]
    assert offenders == []


def test_the_sql_pattern_finds_sql() -> None:  # the guard above must be able to fail
    assert SQL.search('rows = conn.execute("SELECT id FROM kb_chunks")')
    assert SQL.search("DELETE FROM kb_fts WHERE rowid = ?")
    assert not SQL.search("select the best passage from the results")


def _write(doc_id: str, text: str, title: str = "") -> DocumentWrite:
    document = ParsedDocument.plain(text, title)
    chunks = chunk_document(document)
    return DocumentWrite(
        doc_id=doc_id, document=document, content_hash=doc_id, source=None, chunks=chunks,
        keyword_texts=[fts_text("doc", title, c.heading, c.text, "char") for c in chunks],
        languages=["zh" if "退款" in text else "en"] * len(chunks),
    )


def test_each_backend_gets_its_own_store(storage: SQLiteStorage | PostgresStorage) -> None:
    expected = PostgresKBStore if isinstance(storage, PostgresStorage) else SQLiteKBStore
    assert type(open_kb_store(storage)) is expected


def test_a_written_batch_is_searchable_by_keyword_and_vector_and_deleted_from_both(
    storage: SQLiteStorage | PostgresStorage,
) -> None:
    store = open_kb_store(storage)
    index = store.vector_index(PRIMARY)
    assert index.reset(3, seen=None)
    vectors = np.eye(3, dtype=np.float32)[:2]
    rowids = store.write("acme", "default", [_write("a", "refunds take five days"), _write("b", "退款 五天")],
                         {PRIMARY: ([0, 1], vectors)})
    assert len(rowids) == 2
    found = store.keyword_search(["refunds"], tenant="acme", filters=Filters(), limit=5)
    assert [r.rowid for r in found] == [rowids[0]]
    hits = index.search(np.array([1, 0, 0], np.float32), tenant="acme", filters=Filters(), limit=5)
    assert hits[0].rowid == rowids[0] and hits[0].score == pytest.approx(1.0)
    assert index.search(np.array([1, 0, 0], np.float32), tenant="globex", filters=Filters(), limit=5) == []
    assert store.delete("acme", ["a", "nope"]) == ["a"]
    assert store.keyword_search(["refunds"], tenant="acme", filters=Filters(), limit=5) == []
    assert [r.rowid for r in index.search(vectors[0], tenant="acme", filters=Filters(), limit=5)] == [rowids[1]]
    assert set(store.documents("acme")) == {"b"}


def test_a_language_space_lists_only_its_missing_chunks_and_skips_deleted_ones(
    storage: SQLiteStorage | PostgresStorage,
) -> None:
    store = open_kb_store(storage)
    english = store.vector_index(ENGLISH)
    assert english.reset(2, seen=None)
    rowids = store.write("t", "default", [_write("en", "refunds"), _write("zh", "退款")], {})
    assert english.pending() == 1
    [todo] = english.missing(10)
    assert todo.rowid == rowids[0] and todo.text == "refunds"
    store.delete("t", ["en"])  # deleted while its vector was being computed
    english.insert([(todo.rowid, "t", "default")], np.ones((1, 2), np.float32))
    assert english.count() == 0 and english.pending() == 0


def test_a_reset_from_a_look_taken_before_another_replica_built_the_space_drops_nothing(
    reopen: Callable[[], SQLiteStorage | PostgresStorage], embedder: Embedder,
) -> None:
    starting = open_kb_store(reopen()).vector_index(PRIMARY)  # replica B, starting together with A
    seen = starting.model()
    assert seen is None  # a fresh database: B is about to build the space
    first = KnowledgeBase(reopen(), embedder)  # replica A builds it meanwhile, then ingests
    first.add_document(tenant="t", doc_id="refunds", title="", text="Refunds take five business days.")
    assert not starting.reset(embedder.dim, seen=seen)  # B's look is stale: no drop
    assert starting.model() == (space_model(embedder, KBConfig().reads(PRIMARY)), embedder.dim)
    assert starting.count() == 1
    second = KnowledgeBase(reopen(), embedder)  # B goes on starting: the space is already built
    [hit] = second.search("how long until I get my refund", tenant="t", mode="vector", k=1)
    assert hit.doc_id == "refunds"


def test_replicas_starting_at_once_on_a_fresh_database_keep_every_ingested_vector(
    reopen: Callable[[], SQLiteStorage | PostgresStorage], embedder: Embedder,
) -> None:
    texts = [f"Question number {i} about parcels and refunds." for i in range(12)]
    storages = [reopen() for _ in range(4)]

    def replica(n: int) -> int:
        kb = KnowledgeBase(storages[n], embedder)
        for i in range(n, len(texts), 4):  # ingests as soon as it is up, while others still start
            kb.add_document(tenant="t", doc_id=f"d{i}", title="", text=texts[i])
        kb.build_search_indexes()  # and serves: the space's index, built once among the four
        return len(texts[n::4])

    with ThreadPoolExecutor(4) as pool:
        assert sum(pool.map(replica, range(4))) == len(texts)
    index = open_kb_store(reopen()).vector_index(PRIMARY)
    assert index.model() == (space_model(embedder, KBConfig().reads(PRIMARY)), embedder.dim)
    assert index.count() == len(texts) and index.pending() == 0


def test_the_knowledge_base_runs_on_a_store_passed_in(
    storage: SQLiteStorage | PostgresStorage, embedder: Embedder,
) -> None:
    kb = KnowledgeBase(storage, embedder, store=open_kb_store(storage))
    kb.add_document(title="Refunds", text="Refunds are paid back within five days.", doc_id="r")
    assert kb.search("when are refunds paid", k=1)[0].doc_id == "r"
