"""The KB's approximate index (HNSW per tenant, lastline.kb._ann) on a real SQLite store.

Vectors are clustered synthetic ones written through the store (the index only sees vectors; the
real model is used by the end-to-end test at the bottom). Every check compares the approximate
list with the store's exact kNN over the same rows.
"""

from __future__ import annotations

from pathlib import Path

import faiss
import numpy as np
import pytest

from lastline import Embedder, SQLiteStorage
from lastline.kb import Filters, KBConfig, KnowledgeBase, ParsedDocument, SQLiteKBStore, chunk_document
from lastline.kb._ann import AnnConfig
from lastline.kb._index_text import fts_text
from lastline.kb._spaces import PRIMARY
from lastline.kb._sqlite_store import SQLiteVectorIndex
from lastline.kb._store import DocumentWrite

DIM = 32
ANN = AnnConfig(threshold=500, exact_limit=100, recheck_s=0.0, background=False)


def _vectors(n: int, seed: int, centers: int = 40) -> np.ndarray:
    rng = np.random.default_rng(seed)
    middle = rng.normal(size=(centers, DIM))
    points = middle[rng.integers(0, centers, n)] + 0.6 * rng.normal(size=(n, DIM))
    return (points / np.linalg.norm(points, axis=1, keepdims=True)).astype(np.float32)


def _doc(doc_id: str, tags: list[str] | None = None) -> DocumentWrite:
    document = ParsedDocument.plain(f"passage {doc_id}", "")
    document.tags = list(tags or [])
    chunks = chunk_document(document)
    return DocumentWrite(doc_id=doc_id, document=document, content_hash=doc_id, source=None, chunks=chunks,
                         keyword_texts=[fts_text("doc", "", c.heading, c.text, "char") for c in chunks],
                         languages=["en"] * len(chunks))


def _fill(store: SQLiteKBStore, tenant: str, vectors: np.ndarray, *, collection: str = "default",
          prefix: str = "d", tag_every: int = 0) -> list[int]:
    """One single-chunk document per vector; every ``tag_every``-th one tagged ``rare``."""
    rowids: list[int] = []
    for start in range(0, len(vectors), 500):
        batch = vectors[start : start + 500]
        docs = [_doc(f"{prefix}{start + i}", ["rare"] if tag_every and (start + i) % tag_every == 0 else None)
                for i in range(len(batch))]
        rowids += store.write(tenant, collection, docs, {PRIMARY: (list(range(len(batch))), batch)})
    return rowids


def _space(store: SQLiteKBStore) -> SQLiteVectorIndex:
    index = store.vector_index(PRIMARY)
    assert index.reset(DIM, seen=index.model())
    index.mark_built("test-model")
    return index


def _ids(ranked: list) -> list[int]:  # type: ignore[type-arg]
    return [r.rowid for r in ranked]


def _recall(approx: list[int], exact: list[int]) -> float:
    return len(set(approx) & set(exact)) / max(1, len(exact))


@pytest.fixture
def store(db_path: Path) -> SQLiteKBStore:
    return SQLiteKBStore(SQLiteStorage(db_path), ann=ANN)


def test_past_the_threshold_search_is_approximate_and_agrees_with_exact(store: SQLiteKBStore) -> None:
    index = _space(store)
    _fill(store, "acme", _vectors(3000, 1))
    assert index.ann is not None
    queries = _vectors(40, 2)
    recalls = []
    for query in queries:
        approx = index.search(query, tenant="acme", filters=Filters(), limit=10)
        exact = index.exact(query, tenant="acme", filters=Filters(), limit=10)
        assert len(approx) == 10
        assert [r.score for r in approx] == sorted((r.score for r in approx), reverse=True)
        recalls.append(_recall(_ids(approx), _ids(exact)))
    assert index.ann.graphs.builds == 1 and index.ann.graph("acme") is not None
    assert isinstance(index.ann.graph("acme").index, faiss.IndexHNSW)  # 3,000 > exact_limit: walked
    assert np.mean(recalls) >= 0.95


def test_below_the_threshold_search_stays_exact(store: SQLiteKBStore) -> None:
    index = _space(store)
    _fill(store, "small", _vectors(200, 3))
    query = _vectors(1, 4)[0]
    assert index.search(query, tenant="small", filters=Filters(), limit=10) == index.exact(
        query, tenant="small", filters=Filters(), limit=10)
    assert index.ann is not None and index.ann.graph("small") is None and index.ann.graphs.builds == 0


def test_a_tenant_never_meets_another_tenants_vectors(store: SQLiteKBStore) -> None:
    index = _space(store)
    same = _vectors(1500, 5)  # identical vectors in both tenants: only the partition can keep them apart
    acme = set(_fill(store, "acme", same))
    globex = set(_fill(store, "globex", same, prefix="g"))
    for query in _vectors(20, 6):
        assert set(_ids(index.search(query, tenant="acme", filters=Filters(), limit=50))) <= acme
        assert set(_ids(index.search(query, tenant="globex", filters=Filters(), limit=50))) <= globex
    assert index.ann is not None and index.ann.graphs.builds == 2


def test_filters_apply_inside_the_search_selective_ones_exactly(store: SQLiteKBStore) -> None:
    index = _space(store)
    _fill(store, "acme", _vectors(1500, 7), collection="manuals", tag_every=50)  # 30 tagged "rare"
    _fill(store, "acme", _vectors(1500, 8), collection="faq", prefix="f")
    rare = Filters(tags=["rare"])
    manuals = Filters(collections=["manuals"])
    for query in _vectors(20, 9):
        # 30 positions ≤ exact_limit: scored exactly on the graph's vectors, so the lists are equal.
        assert _ids(index.search(query, tenant="acme", filters=rare, limit=10)) == _ids(
            index.exact(query, tenant="acme", filters=rare, limit=10))
        # half the graph: a filtered walk; only manuals come back, and as many as asked for.
        approx = index.search(query, tenant="acme", filters=manuals, limit=10)
        exact = index.exact(query, tenant="acme", filters=manuals, limit=10)
        assert len(approx) == 10 and _recall(_ids(approx), _ids(exact)) >= 0.8
        assert set(_ids(approx)) <= set(_ids(index.exact(query, tenant="acme", filters=manuals, limit=1500)))
    assert index.search(_vectors(1, 10)[0], tenant="acme", filters=Filters(collections=["none"]), limit=10) == []


def test_a_graph_of_at_most_exact_limit_live_positions_is_scored_whole_not_walked(db_path: Path) -> None:
    """Past the threshold, within ``exact_limit``: the lists are the exact search's, deletes and filters too.

    Such a tenant is held as a flat copy of its vectors: building graph links nothing walks cost
    seconds at a few thousand vectors.
    """
    store = SQLiteKBStore(SQLiteStorage(db_path), ann=AnnConfig(threshold=500, exact_limit=5_000, recheck_s=0.0,
                                                                background=False))
    index = _space(store)
    vectors = _vectors(1500, 21)
    _fill(store, "acme", vectors, collection="manuals")
    _fill(store, "acme", _vectors(300, 22), collection="faq", prefix="f")

    def equal_to_exact() -> None:
        faiss.cvar.hnsw_stats.reset()
        for filters in (Filters(), Filters(collections=["faq"])):
            for query in _vectors(20, 23):
                found = index.search(query, tenant="acme", filters=filters, limit=10)
                exact = index.exact(query, tenant="acme", filters=filters, limit=10)
                assert _ids(found) == _ids(exact)
                assert [r.score for r in found] == pytest.approx([r.score for r in exact], abs=1e-5)
        assert faiss.cvar.hnsw_stats.ndis == 0  # no graph walk compared a single vector

    equal_to_exact()
    assert index.ann is not None and index.ann.graph("acme") is not None
    graph = index.ann.graph("acme")
    assert graph is not None and type(graph.index) is faiss.IndexFlatIP and graph.index.ntotal == 1800
    keys = store.chunk_keys("acme")
    nearest = _ids(index.search(vectors[0], tenant="acme", filters=Filters(), limit=10))
    store.delete("acme", [keys[rowid][0] for rowid in nearest])  # a few dead positions, found and masked
    equal_to_exact()
    assert index.ann.graphs.builds == 1


def test_deleted_chunks_never_come_back_and_the_list_stays_full(store: SQLiteKBStore) -> None:
    index = _space(store)
    vectors = _vectors(2000, 11)
    rowids = _fill(store, "acme", vectors)
    query = vectors[0]
    first = _ids(index.search(query, tenant="acme", filters=Filters(), limit=10))
    keys = store.chunk_keys("acme")
    store.delete("acme", [keys[rowid][0] for rowid in first])
    again = index.search(query, tenant="acme", filters=Filters(), limit=10)
    assert len(again) == 10 and not set(_ids(again)) & set(first)
    assert _recall(_ids(again), _ids(index.exact(query, tenant="acme", filters=Filters(), limit=10))) >= 0.8
    # Deleting past rebuild_fraction of the graph rebuilds it from the store.
    store.delete("acme", [keys[rowid][0] for rowid in rowids[:300]])
    for q in vectors[:300]:
        assert not set(_ids(index.search(q, tenant="acme", filters=Filters(), limit=10))) & set(rowids[:300])
    assert index.ann is not None and index.ann.graphs.builds == 2


def test_writes_after_the_build_are_searchable_at_once_even_from_another_connection(
    store: SQLiteKBStore, db_path: Path
) -> None:
    index = _space(store)
    _fill(store, "acme", _vectors(1000, 12))
    index.search(_vectors(1, 13)[0], tenant="acme", filters=Filters(), limit=10)  # builds the graph
    other = SQLiteKBStore(SQLiteStorage(db_path), ann=AnnConfig(enabled=False))  # another process's writer
    target = _vectors(1, 14)
    (new,) = _fill(other, "acme", target, prefix="late")
    hits = index.search(target[0], tenant="acme", filters=Filters(), limit=10)
    assert hits[0].rowid == new and hits[0].score == pytest.approx(1.0, abs=1e-5)
    assert index.ann is not None and index.ann.graphs.builds == 1  # one new chunk: no rebuild needed


def test_chunk_ids_are_never_handed_out_twice(store: SQLiteKBStore) -> None:
    _space(store)
    rowids = _fill(store, "acme", _vectors(3, 15))
    store.delete("acme", ["d2"])  # the chunk with the highest id
    (again,) = _fill(store, "acme", _vectors(1, 16), prefix="new")
    assert again > max(rowids)


def test_resetting_the_space_drops_its_graphs(store: SQLiteKBStore) -> None:
    index = _space(store)
    _fill(store, "acme", _vectors(800, 17))
    index.search(_vectors(1, 18)[0], tenant="acme", filters=Filters(), limit=5)
    assert index.ann is not None and index.ann.graph("acme") is not None
    assert index.reset(DIM, seen=index.model())
    assert index.search(_vectors(1, 18)[0], tenant="acme", filters=Filters(), limit=5) == []


def test_hybrid_search_through_the_kb_is_the_same_with_the_accelerator(embedder: Embedder, tmp_path: Path) -> None:
    texts = [f"Note {i}: the {w} service restarts after {i} minutes when its {v} fails."
             for i, (w, v) in enumerate((w, v) for w in ("billing", "search", "upload", "login", "export",
                                                          "report", "backup", "mail")
                                        for v in ("disk", "network", "database", "queue", "cache"))]
    results = {}
    for name, ann in (("exact", AnnConfig(enabled=False)), ("ann", AnnConfig(threshold=20, background=False,
                                                                               recheck_s=0.0))):
        config = KBConfig(ann=ann)
        kb = KnowledgeBase(SQLiteStorage(tmp_path / f"{name}.db"), embedder, config)
        for i, text in enumerate(texts):
            kb.add_document(title=f"note {i}", text=text, doc_id=f"n{i}")
        results[name] = [[r.chunk_id for r in kb.search(q, k=5)]
                         for q in ("backup fails on disk", "login network", "how long until export restarts")]
        index = kb.store.vector_index(PRIMARY)
        assert isinstance(index, SQLiteVectorIndex)
        assert (index.ann is not None and index.ann.graph("default") is not None) == (name == "ann")
    assert results["ann"] == results["exact"]
