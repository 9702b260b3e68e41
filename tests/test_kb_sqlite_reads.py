"""What the SQLite KB store's search-time reads cost and return: work follows the rows asked for, not the tenant.

At 100k chunks these reads were most of a search (bench/kb_scale.py): hydrating 10 results walked
the tenant's index over every chunk it has, a result's cosine was one vec0 point read each, and
keyword search joined every FTS5 match to its chunk row before ranking. Work is counted in SQLite
virtual-machine steps (a progress handler) and in statements run (a trace callback): both are
exact and do not depend on how busy the machine is, unlike a stopwatch.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import numpy as np
import pytest

from lastline import SQLiteStorage
from lastline.kb import Filters, ParsedDocument, SQLiteKBStore, chunk_document
from lastline.kb._ann import AnnConfig
from lastline.kb._index_text import fts_text
from lastline.kb._spaces import PRIMARY
from lastline.kb._store import DocumentWrite

DIM = 16
ANN = AnnConfig(threshold=300, exact_limit=50, recheck_s=0.0, background=False)


def _doc(doc_id: str, text: str, tags: list[str] | None = None) -> DocumentWrite:
    document = ParsedDocument.plain(text, "")
    document.tags = list(tags or [])
    chunks = chunk_document(document)
    return DocumentWrite(doc_id=doc_id, document=document, content_hash=doc_id, source=None, chunks=chunks,
                         keyword_texts=[fts_text("doc", "", c.heading, c.text, "char") for c in chunks],
                         languages=["en"] * len(chunks))


def _fill(store: SQLiteKBStore, tenant: str, texts: list[str], *, collection: str = "default",
          prefix: str = "d", tags: list[str] | None = None, seed: int = 0) -> list[int]:
    rng = np.random.default_rng(seed)
    rowids: list[int] = []
    for start in range(0, len(texts), 500):
        batch = texts[start : start + 500]
        vectors = rng.normal(size=(len(batch), DIM)).astype(np.float32)
        vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
        rowids += store.write(tenant, collection, [_doc(f"{prefix}{start + i}", t, tags) for i, t in enumerate(batch)],
                              {PRIMARY: (list(range(len(batch))), vectors)})
    return rowids


@pytest.fixture
def store(db_path: Path) -> SQLiteKBStore:
    kb_store = SQLiteKBStore(SQLiteStorage(db_path), ann=ANN)
    index = kb_store.vector_index(PRIMARY)
    assert index.reset(DIM, seen=index.model())
    index.mark_built("test-model")
    return kb_store


@contextmanager
def vm_steps(store: SQLiteKBStore) -> Iterator[list[int]]:
    """Count the SQLite VM steps run inside the block (in hundreds)."""
    counted = [0]

    def step() -> int:
        counted[0] += 1
        return 0

    conn = store.storage.connection()
    conn.set_progress_handler(step, 100)
    try:
        yield counted
    finally:
        conn.set_progress_handler(None, 100)


@contextmanager
def statements(store: SQLiteKBStore) -> Iterator[list[str]]:
    seen: list[str] = []
    conn = store.storage.connection()
    conn.set_trace_callback(seen.append)
    try:
        yield seen
    finally:
        conn.set_trace_callback(None)


def test_hydrating_results_costs_the_same_in_a_small_and_a_large_tenant(store: SQLiteKBStore) -> None:
    small = _fill(store, "small", [f"note {i}" for i in range(100)], prefix="s")
    large = _fill(store, "large", [f"note {i}" for i in range(3000)], prefix="l")
    costs = {}
    for name, rowids in (("small", small), ("large", large)):
        wanted = rowids[5:15]
        with vm_steps(store) as counted:
            rows = store.chunk_rows(name, wanted)
        assert sorted(rows) == sorted(wanted)
        costs[name] = counted[0]
    assert costs["large"] <= 2 * costs["small"] + 2, costs  # a walk over the tenant's 3,000 rows: ≈ 30×
    assert store.chunk_rows("small", large[:10]) == {}  # another tenant's ids still never come back


def test_cosines_of_chunks_in_the_graph_are_read_from_it_not_the_table(store: SQLiteKBStore) -> None:
    rowids = _fill(store, "acme", [f"note {i}" for i in range(400)])
    index = store.vector_index(PRIMARY)
    query = np.ones(DIM, dtype=np.float32) / np.sqrt(DIM)
    assert index.search(query, tenant="acme", filters=Filters(), limit=5)  # builds the tenant's graph
    assert index.ann is not None and index.ann.graph("acme") is not None
    later = _fill(store, "acme", ["a later note"], prefix="late")  # written after the build: not in the graph
    wanted = rowids[:20] + later
    with statements(store) as seen:
        cosines = index.cosines(query, wanted, tenant="acme")
    vector_reads = [s for s in seen if "embedding" in s]
    assert len(vector_reads) == 1, seen  # only the chunk the graph does not hold
    expected = {r.rowid: r.score for r in index.exact(query, tenant="acme", filters=Filters(), limit=401)}
    assert set(cosines) == set(wanted)
    assert all(abs(cosines[r] - expected[r]) < 1e-5 for r in wanted)
    assert index.cosines(query, wanted, tenant="other") == {}  # the graph is the tenant's own


def _keyword(store: SQLiteKBStore, word: str, tenant: str, limit: int, filters: Filters | None = None) -> list[int]:
    return [r.rowid for r in store.keyword_search([word], tenant=tenant, filters=filters or Filters(), limit=limit)]


def test_keyword_search_is_full_when_another_tenant_outranks_every_chunk(store: SQLiteKBStore) -> None:
    # globex's chunks say "turbine" three times in four words: each outranks every acme chunk, so the
    # first look at FTS5's ranking (and the deeper second one) holds no acme row at all.
    _fill(store, "globex", ["turbine turbine turbine blade"] * 2000, prefix="g")
    acme = _fill(store, "acme", [f"the turbine of plant {i} was inspected in spring" for i in range(30)])
    found = store.keyword_search(["turbine"], tenant="acme", filters=Filters(), limit=20)
    assert len(found) == 20 and {r.rowid for r in found} <= set(acme)
    assert [r.score for r in found] == sorted((r.score for r in found), reverse=True)
    assert set(_keyword(store, "turbine", "acme", 100)) == set(acme)  # fewer matches than asked: all of them


def test_keyword_search_looks_deeper_when_the_top_rows_are_another_tenants(store: SQLiteKBStore) -> None:
    _fill(store, "globex", ["rotor rotor rotor blade"] * 100, prefix="g")  # the first 20 rows are all globex's
    acme = _fill(store, "acme", [f"the rotor of plant {i} was inspected" for i in range(30)])
    found = store.keyword_search(["rotor"], tenant="acme", filters=Filters(), limit=20)
    assert len(found) == 20 and {r.rowid for r in found} <= set(acme)


def test_keyword_search_applies_filters_before_the_limit(store: SQLiteKBStore) -> None:
    _fill(store, "acme", ["pump pump pump seal"] * 500, collection="manuals", prefix="m")
    tagged = _fill(store, "acme", [f"the pump in hall {i} leaks" for i in range(40)], collection="faq", prefix="f",
                   tags=["water"])
    assert set(_keyword(store, "pump", "acme", 25, Filters(collections=["faq"]))) <= set(tagged)
    assert len(_keyword(store, "pump", "acme", 25, Filters(tags=["water"]))) == 25
    assert set(_keyword(store, "pump", "acme", 100, Filters(tags=["water"]))) == set(tagged)


def test_keyword_search_ranks_as_bm25_does_over_the_tenants_matches(store: SQLiteKBStore) -> None:
    # One tenant, so its ranking is FTS5's own: more occurrences in a shorter chunk rank higher.
    texts = [" ".join(["valve"] * (1 + i % 5) + ["word"] * (3 + i % 7)) for i in range(300)]
    rowids = _fill(store, "acme", texts)
    found = store.keyword_search(["valve"], tenant="acme", filters=Filters(), limit=300)
    assert {r.rowid for r in found} == set(rowids)
    top = found[0].rowid
    assert texts[rowids.index(top)].split().count("valve") == 5
    assert texts[rowids.index(top)].split().count("word") == 3
