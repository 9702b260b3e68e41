"""The KB's in-memory keyword index (BM25 postings per tenant, lastline.kb._bm25) against the store's own search.

Every check compares the index's list with the store's keyword search over the same rows (FTS5's
``bm25()`` on SQLite, BM25 in SQL over the tsvectors on PostgreSQL), on real databases of both
backends. The corpus is deterministic English-like text with inflected words (so stemming
matters) and some Chinese (segmented as the store does); the end-to-end test uses the real model.
"""

from __future__ import annotations

import dataclasses
import random
import uuid
from collections.abc import Sequence
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lastline import Embedder, PostgresStorage, SQLiteStorage
from lastline.kb import Filters, KBConfig, KnowledgeBase, ParsedDocument, chunk_document
from lastline.kb._bm25 import BM25Config, KeywordAccelerator, build_postings
from lastline.kb._index_text import fts_text
from lastline.kb._segment import query_terms
from lastline.kb._store import DocumentWrite, KBStore, Ranked
from lastline.kb._stores import open_kb_store

pytestmark = pytest.mark.backends("sqlite", "postgresql")

INDEX = BM25Config(threshold=200, recheck_s=0.0, background=False)
_STEMS = ["connect", "train", "measur", "protein", "cell", "gene", "signal", "run", "mutat", "treat",
          "respons", "patient", "increas", "reduc", "model", "structur", "bind", "express", "observ", "test"]
_ENDINGS = ["", "s", "ed", "ing", "ion", "ions", "er"]
_WORDS = [s + e for s in _STEMS for e in _ENDINGS] + [f"w{i}" for i in range(150)]
_CHINESE = ["蛋白质结构", "细胞信号", "基因表达", "患者治疗", "模型测试"]


def _text(rng: random.Random) -> str:
    words = [_WORDS[min(int(rng.paretovariate(0.9)) - 1, len(_WORDS) - 1)] if rng.random() < 0.5
             else rng.choice(_WORDS) for _ in range(rng.randint(3, 40))]
    if rng.random() < 0.2:
        words.insert(rng.randrange(len(words) + 1), rng.choice(_CHINESE))
    return " ".join(words)


def _doc(doc_id: str, text: str, *, tags: Sequence[str] = (), metadata: dict[str, object] | None = None
         ) -> DocumentWrite:
    document = ParsedDocument.plain(text, "")
    document.tags = list(tags)
    document.metadata = dict(metadata or {})
    chunks = chunk_document(document)
    return DocumentWrite(doc_id=doc_id, document=document, content_hash=doc_id, source=None, chunks=chunks,
                         keyword_texts=[fts_text("doc", "", c.heading, c.text, "char") for c in chunks],
                         languages=["en"] * len(chunks))


def _fill(store: KBStore, tenant: str, n: int, *, seed: int = 1, collection: str = "default",
          prefix: str = "d") -> list[int]:
    rng = random.Random(seed)
    docs = [_doc(f"{prefix}{i}", _text(rng), tags=["rare"] if i % 25 == 0 else (),
                 metadata={"part": i % 4}) for i in range(n)]
    rowids: list[int] = []
    for start in range(0, n, 200):
        rowids += store.write(tenant, collection, docs[start : start + 200], {})
    return rowids


def _queries(n: int, seed: int = 2) -> list[list[str]]:
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        words = rng.sample(_WORDS, rng.randint(1, 5)) + ([rng.choice(_CHINESE)] if rng.random() < 0.2 else [])
        out.append(query_terms(" ".join(words), "char"))
    return out


def _assert_same_ranking(got: list[Ranked], want: list[Ranked]) -> None:
    """Same length, same scores position by position (1e-6 relative), same ids outside ties at the cut.

    The formula and statistics are the store's, so scores agree to rounding; chunks with equal scores
    may come in another order (FTS5 leaves ties unordered), so ids are compared as sets per score.
    """
    assert len(got) == len(want)
    assert [r.score for r in got] == pytest.approx([r.score for r in want], rel=1e-6)
    if want:
        cut = want[-1].score
        assert ({r.rowid for r in got if r.score > cut * (1 + 1e-6)}
                == {r.rowid for r in want if r.score > cut * (1 + 1e-6)})


def _store(storage: SQLiteStorage | PostgresStorage, config: BM25Config = INDEX) -> tuple[KBStore, KeywordAccelerator]:
    """A store and the in-memory index in front of it (``keyword_search`` on each: the store's own, the index's)."""
    store = open_kb_store(storage)
    return store, KeywordAccelerator(store, config)


def test_a_stopped_build_reads_no_further_and_keeps_nothing(storage: SQLiteStorage | PostgresStorage) -> None:
    """What the KB's close relies on: set ``stopping`` and a build returns at its next batch."""
    store, index = _store(storage, dataclasses.replace(INDEX, background=True))
    _fill(store, "acme", 300)
    index.stop_builds()
    assert build_postings(store, "acme", stop=index.indexes.stopping) is None
    assert build_postings(store, "acme") is not None
    index.indexes.start_build("acme")  # after stop_builds: nothing starts
    assert index.indexes.current("acme") is None and not index.indexes.building("acme")


def test_ranking_equals_the_stores_on_a_fixed_corpus(storage: SQLiteStorage | PostgresStorage) -> None:
    store, index = _store(storage)
    _fill(store, "acme", 600)
    for terms in _queries(60):
        got = index.keyword_search(terms, tenant="acme", filters=Filters(), limit=20)
        want = store.keyword_search(terms, tenant="acme", filters=Filters(), limit=20)
        _assert_same_ranking(got, want)
    assert index.indexes.builds == 1  # every search above was served by the one in-memory index
    assert index.status("acme") | {"built": True, "chunks": 600} == index.status("acme")


def test_a_write_after_the_snapshot_is_found_at_once_without_a_rebuild(
        storage: SQLiteStorage | PostgresStorage) -> None:
    store, index = _store(storage)
    _fill(store, "acme", 400)
    terms = query_terms("zebrafish connected", "char")
    assert "zebrafish" not in {r.rowid for r in index.keyword_search(terms, tenant="acme", filters=Filters(),
                                                                       limit=10)}
    assert index.indexes.builds == 1
    (new,) = store.write("acme", "default", [_doc("late", "zebrafish connecting zebrafish")], {})
    got = index.keyword_search(terms, tenant="acme", filters=Filters(), limit=10)
    assert got[0].rowid == new
    _assert_same_ranking(got, store.keyword_search(terms, tenant="acme", filters=Filters(), limit=10))
    assert index.indexes.builds == 1 and index.status("acme")["appended"] == 1


def test_a_deleted_chunk_is_never_returned_and_the_list_is_refilled(storage: SQLiteStorage | PostgresStorage) -> None:
    store, index = _store(storage)
    _fill(store, "acme", 500)
    keys = store.chunk_keys("acme")
    for terms in _queries(10, seed=5):
        before = index.keyword_search(terms, tenant="acme", filters=Filters(), limit=10)
        if len(before) < 10:
            continue
        doomed = [keys[r.rowid][0] for r in before[:3]]
        assert sorted(store.delete("acme", doomed)) == sorted(doomed)
        after = index.keyword_search(terms, tenant="acme", filters=Filters(), limit=10)
        assert not {r.rowid for r in before[:3]} & {r.rowid for r in after}
        assert len(after) == 10
        _assert_same_ranking(after, store.keyword_search(terms, tenant="acme", filters=Filters(),
                                                               limit=10))
    assert index.indexes.builds == 1


@pytest.mark.parametrize("filters", [
    Filters(collections=["small"]), Filters(tags=["rare"]), Filters(doc_ids=["s3", "d7", "d8", "nope"]),
    Filters(metadata={"part": 2}), Filters(collections=["small"], tags=["rare"]),
], ids=["collection", "tag", "doc ids", "metadata", "collection+tag"])
def test_filters_never_come_back_short(storage: SQLiteStorage | PostgresStorage, filters: Filters) -> None:
    store, index = _store(storage)
    _fill(store, "acme", 400)
    _fill(store, "acme", 60, seed=9, collection="small", prefix="s")
    for terms in _queries(15, seed=3):
        got = index.keyword_search(terms, tenant="acme", filters=filters, limit=30)
        _assert_same_ranking(got, store.keyword_search(terms, tenant="acme", filters=filters, limit=30))
    assert index.indexes.builds == 1


def test_one_index_per_tenant_and_small_tenants_keep_the_stores_search(
        storage: SQLiteStorage | PostgresStorage) -> None:
    store, index = _store(storage)
    _fill(store, "acme", 300)
    store.write("globex", "default", [_doc("g1", "zebrafish signalling"), _doc("g2", "zebrafish")], {})
    terms = query_terms("zebrafish", "char")
    assert index.keyword_search(terms, tenant="acme", filters=Filters(), limit=10) == []
    found = index.keyword_search(terms, tenant="globex", filters=Filters(), limit=10)
    assert len(found) == 2
    assert index.status("acme")["built"] is True
    assert index.status("globex")["built"] is False  # 2 chunks: below the threshold, the store answers
    # acme's statistics are acme's alone, as on PostgreSQL; FTS5 counts the whole file (globex's two
    # chunks too), so on SQLite the scores differ a little and the lists agree on most ids.
    for terms in _queries(10, seed=4):
        got = index.keyword_search(terms, tenant="acme", filters=Filters(), limit=10)
        want = store.keyword_search(terms, tenant="acme", filters=Filters(), limit=10)
        if isinstance(storage, PostgresStorage):
            _assert_same_ranking(got, want)
        else:
            assert len(got) == len(want)
            assert len({r.rowid for r in got} & {r.rowid for r in want}) >= 0.8 * len(want)
            assert [r.score for r in got] == pytest.approx([r.score for r in want], rel=0.01)


def test_by_default_a_small_tenants_ranking_is_its_own_whatever_shares_its_file(
        storage: SQLiteStorage | PostgresStorage) -> None:
    """A tenant of a few dozen chunks gets its own index by default (``BM25Config.threshold``), so its
    scores come from its own statistics: another tenant filling the same file changes none of them.
    Through FTS5, which counts every chunk in the file, they would move (and cost follows the file)."""
    store, index = _store(storage, dataclasses.replace(BM25Config(), recheck_s=0.0, background=False))
    _fill(store, "small", 30, seed=11)
    queries = [terms for terms in _queries(20, seed=12) if store.keyword_search(
        terms, tenant="small", filters=Filters(), limit=5)]
    assert len(queries) >= 10
    before = [index.keyword_search(terms, tenant="small", filters=Filters(), limit=5) for terms in queries]
    assert index.status("small")["built"] is True
    _fill(store, "big", 400, seed=13)
    after = [index.keyword_search(terms, tenant="small", filters=Filters(), limit=5) for terms in queries]
    assert after == before
    if isinstance(storage, SQLiteStorage):  # the store's own search counts big's chunks too: it moved
        moved = [store.keyword_search(terms, tenant="small", filters=Filters(), limit=5) for terms in queries]
        assert [[r.score for r in ranked] for ranked in moved] != [[r.score for r in ranked] for ranked in before]


def test_switched_off_the_store_answers(storage: SQLiteStorage | PostgresStorage, embedder: Embedder) -> None:
    kb = KnowledgeBase(storage, embedder, KBConfig(keywords=BM25Config(enabled=False)))
    for i, text in enumerate(_text(random.Random(6)) for _ in range(220)):
        kb.add_document(title="", text=text, doc_id=f"k{i}")
    assert kb.keyword_index is None and kb.keywords is kb.store
    assert kb.status(tenant="default")["keyword_index"] == {"enabled": False}
    _, index = _store(storage)  # a second store object on the same database, with the index
    for terms in _queries(10, seed=6):
        _assert_same_ranking(kb.keywords.keyword_search(terms, tenant="default", filters=Filters(), limit=10),
                             index.keyword_search(terms, tenant="default", filters=Filters(), limit=10))
    assert index.indexes.builds == 1


def test_another_store_objects_writes_and_deletes_are_seen(storage: SQLiteStorage | PostgresStorage) -> None:
    """Two store objects on one database stand for two processes (a CLI beside a server, two replicas)."""
    (_, reader), writer = _store(storage), open_kb_store(storage)
    rowids = _fill(writer, "acme", 300)
    terms = query_terms("zebrafish", "char")
    assert reader.keyword_search(terms, tenant="acme", filters=Filters(), limit=5) == []
    (new,) = writer.write("acme", "default", [_doc("late", "zebrafish")], {})
    assert [r.rowid for r in reader.keyword_search(terms, tenant="acme", filters=Filters(), limit=5)] == [new]
    writer.delete("acme", ["late"])
    assert reader.keyword_search(terms, tenant="acme", filters=Filters(), limit=5) == []
    assert rowids and reader.indexes.builds == 1


_OPS = st.lists(st.one_of(
    st.tuples(st.just("add"), st.integers(0, 10_000)),
    st.tuples(st.just("delete"), st.integers(0, 10_000)),
), min_size=1, max_size=12)


@pytest.mark.backends("sqlite")
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(ops=_OPS)
def test_random_adds_and_deletes_keep_it_equal_to_the_store(tmp_path: Path, ops: list[tuple[str, int]]) -> None:
    path = tmp_path / f"{uuid.uuid4().hex}.db"  # a fresh file per example: FTS5's statistics are the file's
    storage = SQLiteStorage(path)
    try:
        store, index = _store(storage, BM25Config(threshold=20, recheck_s=0.0, background=False, max_segments=3))
        _fill(store, "acme", 40, seed=7)
        docs = set(store.documents("acme"))
        queries = _queries(4, seed=8)
        for number, (op, value) in enumerate(ops):
            if op == "add":
                store.write("acme", "default", [_doc(f"n{number}", _text(random.Random(value)))], {})
                docs.add(f"n{number}")
            elif docs:
                victim = sorted(docs)[value % len(docs)]
                store.delete("acme", [victim])
                docs.discard(victim)
            for terms in queries:
                _assert_same_ranking(index.keyword_search(terms, tenant="acme", filters=Filters(), limit=8),
                                     store.keyword_search(terms, tenant="acme", filters=Filters(), limit=8))
    finally:
        storage.close()


def test_the_knowledge_base_searches_through_it_and_shows_its_status(
        storage: SQLiteStorage | PostgresStorage, embedder: Embedder) -> None:
    kb = KnowledgeBase(storage, embedder, KBConfig(keywords=INDEX))
    rng = random.Random(3)
    for i in range(220):
        kb.add_document(title="", text=_text(rng), doc_id=f"k{i}")
    results = kb.search("connected proteins signalling", k=5, mode="keyword")
    expected = kb.store.keyword_search(query_terms("connected proteins signalling", "char"),
                                       tenant="default", filters=Filters(), limit=100)
    assert [r.score for r in results] == pytest.approx([round(r.score, 6) for r in expected[:5]], abs=1e-6)
    status = kb.status(tenant="default")["keyword_index"]
    assert status["built"] is True and status["chunks"] == 220
    assert kb.search("connected proteins signalling", k=5)  # hybrid, fused from the same keyword list
