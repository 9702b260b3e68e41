"""The knowledge base on PostgreSQL: replicas sharing one database, isolation by the database, parity with SQLite.

Real PostgreSQL 16 + pgvector (tests/pg_cluster.py), the real bundled model. A "replica" is what a
second ``lastline serve`` process holds: its own ``PostgresStorage`` (own pool) and ``KnowledgeBase``
on the same database — nothing shared in memory with the first.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import numpy as np
import psycopg
import pytest
from _kb_db import module_storage
from _kb_files import write_folder

from lastline import Embedder, PostgresStorage, SQLiteStorage, load_settings, open_storage
from lastline.api.ladder.runtime import Runtime
from lastline.kb import Filters, KnowledgeBase
from lastline.kb._pg_schema import TENANT_TABLES
from lastline.kb._pg_store import SPACE_LOCK
from lastline.kb._spaces import ENGLISH, PRIMARY
from lastline.kb._store import StoredFile, VectorIndex


@pytest.fixture
def replicas(pg_urls: tuple[str, str], embedder: Embedder) -> Iterator[tuple[KnowledgeBase, KnowledgeBase]]:
    app, owner = pg_urls
    first, second = open_storage(app, owner_url=owner), open_storage(app, owner_url=owner)
    yield KnowledgeBase(first, embedder), KnowledgeBase(second, embedder)
    first.close()
    second.close()


def test_a_document_written_through_one_replica_is_found_and_deleted_through_the_other(
    replicas: tuple[KnowledgeBase, KnowledgeBase],
) -> None:
    a, b = replicas
    assert a.storage is not b.storage and a.store is not b.store
    a.add_document(title="Refunds", text="Refunds are paid back within five working days.", doc_id="refunds")
    for mode in ("keyword", "vector", "hybrid"):
        assert [r.doc_id for r in b.search("when are refunds paid", k=3, mode=mode)] == ["refunds"]  # type: ignore[arg-type]
    assert b.get_document("refunds") is not None and b.count() == 1
    b.add_document(title="退款", text="退款会在五个工作日内退回原支付账户。", doc_id="refunds-zh")
    assert a.search("退款多久到账", k=1)[0].doc_id == "refunds-zh"
    assert b.delete_document("refunds")
    assert all(r.doc_id != "refunds" for r in a.search("when are refunds paid", k=10))
    assert a.get_document("refunds") is None and a.count() == 1
    assert a.delete_document("refunds") is False  # already gone, through the other replica


def test_a_replica_ingesting_a_folder_is_seen_by_the_other_incrementally(
    replicas: tuple[KnowledgeBase, KnowledgeBase], tmp_path: Path,
) -> None:
    a, b = replicas
    folder = write_folder(tmp_path / "docs")
    added = a.ingest(folder).added
    again = b.ingest(folder)  # b sees a's documents and file records: nothing to do
    assert again.added == [] and again.updated == [] and sorted(again.unchanged) == sorted(added)
    (folder / "notes.txt").unlink()
    assert "notes.txt" in b.ingest(folder, sync=True).removed
    assert a.get_document("notes.txt") is None


def test_two_replicas_replacing_the_same_document_at_once_leave_one_copy(
    replicas: tuple[KnowledgeBase, KnowledgeBase],
) -> None:
    import threading

    errors: list[BaseException] = []

    def write(kb: KnowledgeBase, text: str) -> None:
        try:
            for round_ in range(5):
                kb.add_document(title="Hours", text=f"{text} round {round_}.", doc_id="hours")
        except BaseException as exc:  # reported below
            errors.append(exc)

    threads = [threading.Thread(target=write, args=(kb, text))
               for kb, text in zip(replicas, ("We open at nine", "We open at ten"), strict=True)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    a, b = replicas
    doc = b.get_document("hours")
    assert a.count() == 1 and doc is not None and doc["text"].endswith("round 4.")
    assert a.status(tenant="default")["chunks"] == doc["chunks"] == 1
    assert [r.doc_id for r in a.search("when do you open", k=5)] == ["hours"]


def test_raw_sql_as_the_application_role_with_tenant_a_reads_none_of_tenant_bs_rows(
    pg_urls: tuple[str, str], embedder: Embedder, english_embedder: Embedder,
) -> None:
    app, owner = pg_urls
    storage = open_storage(app, owner_url=owner)
    assert isinstance(storage, PostgresStorage) and storage.rls_enforced
    kb = KnowledgeBase(storage, embedder, english_embedder=english_embedder)
    kb.add_document(tenant="acme", title="Acme", text="The acme launch code is swordfish.", doc_id="a",
                    tags=["secret"])
    kb.add_document(tenant="globex", title="Globex", text="The globex launch code is marlin.", doc_id="g",
                    tags=["secret"])
    kb.store.record_files("globex", [StoredFile("/g.txt", "default", 1, 1, "x", "1:1:1")])
    tables = (*TENANT_TABLES, PRIMARY.table, ENGLISH.table)
    with psycopg.connect(app, autocommit=False) as conn:  # the application role, no lastline code at all
        conn.execute("SELECT set_config('lastline.tenant', 'acme', true)")
        for table in tables:
            tenants = {r[0] for r in conn.execute(f"SELECT tenant FROM {table}").fetchall()}
            assert tenants <= {"acme"}, table
        assert {r[0] for r in conn.execute("SELECT text FROM kb_chunks")} == {"The acme launch code is swordfish."}
        assert conn.execute("SELECT count(*) FROM kb_chunks WHERE tenant = 'globex'").fetchone() == (0,)
        assert conn.execute("SELECT count(*) FROM kb_chunks WHERE tsv @@ plainto_tsquery('simple', 'marlin')"
                            ).fetchone() == (0,)
        assert conn.execute("DELETE FROM kb_documents WHERE tenant = 'globex'").rowcount == 0
        with pytest.raises(psycopg.errors.InsufficientPrivilege):  # the policy's WITH CHECK
            conn.execute("INSERT INTO kb_doc_tags (doc, tenant, tag) VALUES (1, 'globex', 'x')")
    with psycopg.connect(app, autocommit=True) as conn:  # no tenant set: no tenant rows at all
        for table in tables:
            assert conn.execute(f"SELECT count(*) FROM {table}").fetchone() == (0,), table
        with pytest.raises(psycopg.errors.InsufficientPrivilege):  # not the owner: no schema changes
            conn.execute("ALTER TABLE kb_chunks DISABLE ROW LEVEL SECURITY")
    assert [r.doc_id for r in kb.search("launch code marlin", tenant="globex", k=5)] == ["g"]
    assert [r.doc_id for r in kb.search("launch code marlin", tenant="acme", k=5)] == ["a"]
    storage.close()


def test_every_kb_table_with_a_tenant_column_has_row_level_security(pg_urls: tuple[str, str],
                                                                    embedder: Embedder) -> None:
    app, owner = pg_urls
    storage = open_storage(app, owner_url=owner)
    KnowledgeBase(storage, embedder)
    with psycopg.connect(owner, autocommit=True) as conn:
        with_tenant = {r[0] for r in conn.execute(
            "SELECT table_name FROM information_schema.columns WHERE column_name = 'tenant'"
            " AND table_name LIKE 'kb%%'")}
        secured = {r[0] for r in conn.execute(
            "SELECT relname FROM pg_class WHERE relrowsecurity AND relname LIKE 'kb%%'")}
    assert with_tenant == set(TENANT_TABLES) | {PRIMARY.table}
    assert with_tenant <= secured
    storage.close()


def test_a_vector_search_in_a_small_tenant_of_a_big_graph_returns_all_it_has(
    pg_urls: tuple[str, str], embedder: Embedder,
) -> None:
    """HNSW filters after its walk: a tenant with few vectors among many must still get every one."""
    app, owner = pg_urls
    with psycopg.connect(owner, autocommit=True) as conn:  # make the planner walk the HNSW graph at this size
        dbname = conn.execute("SELECT current_database()").fetchone()[0]  # type: ignore[index]
        conn.execute(f"ALTER DATABASE {dbname} SET enable_seqscan = off")
    storage = open_storage(app, owner_url=owner)
    kb = KnowledgeBase(storage, embedder)
    for i in range(150):
        kb.add_document(tenant="big", title=f"Refunds {i}", text=f"Refunds policy number {i} for gift cards.",
                        doc_id=f"b{i}")
    for i in range(3):
        kb.add_document(tenant="small", title=f"Weather {i}", text=f"Sunny weather report {i}.", doc_id=f"s{i}")
    assert kb.build_search_indexes() == ["vector"]  # a serving replica's start: the graph over the rows there
    with storage.maintenance() as conn:  # leave the planner no cheaper road than the graph
        conn.execute("DROP INDEX kb_vec_tenant")
    with storage.atomic("small") as conn:
        plan = " ".join(r[0] for r in conn.execute(
            "EXPLAIN SELECT chunk_id FROM kb_vec WHERE tenant = 'small'"
            " ORDER BY embedding <=> (SELECT embedding FROM kb_vec LIMIT 1) LIMIT 10"))
    assert "kb_vec_hnsw" in plan  # the index is what the search below meets first
    hits = kb.search("refund policy for gift cards", tenant="small", k=10, mode="vector")
    assert sorted(h.doc_id for h in hits) == ["s0", "s1", "s2"]
    assert len(kb.search("refund policy for gift cards", tenant="big", k=120, mode="vector")) == 120
    storage.close()


def _exact_top(index: VectorIndex, vector: np.ndarray, tenant: str, rowids: list[int], k: int) -> list[int]:
    cosines = index.cosines(vector, rowids, tenant=tenant)
    return sorted(cosines, key=lambda rowid: (-cosines[rowid], rowid))[:k]


def test_writes_keep_no_hnsw_graph_search_is_exact_until_a_serving_start_builds_it_over_the_rows_there(
    pg_urls: tuple[str, str], embedder: Embedder,
) -> None:
    app, owner = pg_urls
    storage = open_storage(app, owner_url=owner)
    loader = KnowledgeBase(storage, embedder)  # a bulk load (lastline kb ingest): writes only
    for i in range(40):
        loader.add_document(tenant="t", title=f"Note {i}", text=f"Parcel {i} ships in {i % 7 + 1} days.",
                            doc_id=f"d{i}")
    loader.add_document(tenant="other", title="Other", text="Parcels ship tomorrow.", doc_id="o")
    index = loader.store.vector_index(PRIMARY)
    assert not index.has_search_index()  # no graph kept up row by row
    vector = np.asarray(embedder.encode(["how long does my parcel take to ship"]))[0]
    rowids = list(loader.store.chunk_keys("t"))
    exact = _exact_top(index, vector, "t", rowids, 10)
    assert [r.rowid for r in index.search(vector, tenant="t", filters=Filters(), limit=10)] == exact
    serving = KnowledgeBase(open_storage(app, owner_url=owner), embedder)
    def rows_known() -> float:  # the planner's row count of the space's table
        with storage.maintenance() as conn:
            return float(conn.execute("SELECT reltuples FROM pg_class WHERE oid = %s::regclass",
                                      (PRIMARY.table,)).fetchone()[0])

    assert rows_known() < 0  # never analyzed: autovacuum's job, up to a minute after the load
    assert serving.build_search_indexes() == ["vector"]
    assert rows_known() == len(rowids) + 1  # analyzed with the build: the planner walks the graph at once
    assert index.has_search_index() and serving.build_search_indexes() == []  # once
    assert [r.rowid for r in index.search(vector, tenant="t", filters=Filters(), limit=10)] == exact
    loader.add_document(tenant="t", title="Late", text="A late parcel note: ships in one hour.", doc_id="late")
    assert serving.search("late parcel note ships in one hour", tenant="t", k=1, mode="vector")[0].doc_id == "late"
    serving.storage.close()
    storage.close()


def test_a_serving_runtime_builds_the_kb_hnsw_index_and_a_cli_one_does_not(
    pg_urls: tuple[str, str], embedder: Embedder,
) -> None:
    app, owner = pg_urls
    settings = load_settings(database_url=app, database_owner_url=owner, kb_seed=None, kb_english_embedder="none")
    storages = [open_storage(app, owner_url=owner) for _ in range(2)]
    cli = Runtime(settings=settings, storage=storages[0], embedder=embedder)
    cli.kb.add_document(title="Hours", text="We open at nine.", doc_id="hours")
    assert not cli.kb.store.vector_index(PRIMARY).has_search_index()
    serving = Runtime(settings=settings, storage=storages[1], embedder=embedder, background=True)
    serving.build()  # what lastline serve runs before it says it is ready
    assert cli.kb.store.vector_index(PRIMARY).has_search_index()
    for storage in storages:
        storage.close()


@pytest.mark.backends("postgresql")
def test_a_background_space_gets_its_hnsw_index_once_its_filler_completes_it_on_a_serving_replica(
    storage: PostgresStorage, embedder: Embedder, english_embedder: Embedder,
) -> None:
    kb = KnowledgeBase(storage, embedder, english_embedder=english_embedder, background_spaces=True)
    kb.add_document(title="Warranty", text="Every device has a two year warranty.", doc_id="w")
    english = kb.store.vector_index(ENGLISH)
    assert kb.build_search_indexes() == ["vector"]  # the English space is still filling: no graph yet
    assert not english.has_search_index()
    kb.fill_spaces()
    assert english.has_search_index()
    assert kb.search("is there a warranty on devices", k=1)[0].english_rank == 1


def test_resetting_a_space_locks_its_own_table_only_so_readers_of_the_chunks_never_hold_it_up(
    pg_urls: tuple[str, str], embedder: Embedder,
) -> None:
    """A reset used to ``DROP`` the table, which also locks ``kb_chunks`` (the foreign key) after the
    space's table — the opposite order to a fill's, so the two deadlocked; it locks the table alone."""
    import threading

    app, owner = pg_urls
    storage = open_storage(app, owner_url=owner)
    kb = KnowledgeBase(storage, embedder)
    kb.add_document(title="Hours", text="We open at nine.", doc_id="hours")
    index = kb.store.vector_index(PRIMARY)
    seen = index.model()
    done = threading.Event()
    with psycopg.connect(owner) as reader:  # another replica's transaction, between two reads of kb_chunks
        assert reader.execute("SELECT count(*) FROM kb_chunks").fetchone() == (1,)
        thread = threading.Thread(target=lambda: (index.reset(3, seen=seen), done.set()))
        thread.start()
        finished = done.wait(20)
    thread.join()
    assert finished  # never waited for the reader's lock on kb_chunks
    assert index.model() is None and index.building() == 3 and index.pending() == 1
    [todo] = index.missing(5)
    index.insert([(todo.rowid, todo.tenant, todo.collection)], np.array([[1, 0, 0]], np.float32))  # the new dim
    index.mark_built("three-d")
    assert index.search(np.array([1, 0, 0], np.float32), tenant="default", filters=Filters(), limit=3)[0].score \
        == pytest.approx(1.0)
    storage.close()


@pytest.mark.backends("postgresql")
def test_marking_a_space_built_waits_for_the_space_lock_a_reset_holds_over_its_look(
    storage: PostgresStorage, embedder: Embedder,
) -> None:
    """A reset's look read the model and the build state in two statements; a ``mark_built`` landing
    between them made a complete space look resettable, and the reset dropped every replica's vectors."""
    import threading

    index = KnowledgeBase(storage, embedder).store.vector_index(PRIMARY)
    done = threading.Event()
    with psycopg.connect(storage.owner_url) as resetter:  # holds the lock as a reset's look does
        resetter.execute("SELECT pg_advisory_xact_lock(%s, hashtext(%s))", (SPACE_LOCK, PRIMARY.table))
        thread = threading.Thread(target=lambda: (index.mark_built(embedder.model_id), done.set()))
        thread.start()
        waited = not done.wait(1.0)
    thread.join()
    assert waited and done.is_set()


@pytest.fixture(scope="module", params=["sqlite", "postgresql"])
def both(request: pytest.FixtureRequest, embedder: Embedder, english_embedder: Embedder,
         tmp_path_factory: pytest.TempPathFactory) -> Iterator[KnowledgeBase]:
    tmp = tmp_path_factory.mktemp("kb_parity")
    with module_storage(request, request.param, tmp) as storage:
        kb = KnowledgeBase(storage, embedder, english_embedder=english_embedder)
        kb.ingest(write_folder(tmp / "docs"))
        yield kb


@pytest.fixture(scope="module")
def sqlite_scores(embedder: Embedder, tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, float]]:
    """Keyword rankings of the same folder on SQLite, the reference the PostgreSQL BM25 must equal."""
    tmp = tmp_path_factory.mktemp("kb_parity_ref")
    storage = SQLiteStorage(tmp / "ref.db")
    kb = KnowledgeBase(storage, embedder)
    kb.ingest(write_folder(tmp / "docs"))
    out = {q: _keyword(kb, q) for q in QUERIES}
    storage.close()
    return out


QUERIES = ("gift cards refunded", "shipped worldwide", "收货地址怎么改", "warranty devices two years",
           "退款 发票", "support hours")


def _keyword(kb: KnowledgeBase, query: str) -> dict[str, float]:
    return {r.chunk_id: r.score for r in kb.search(query, k=20, mode="keyword")}


@pytest.mark.parametrize("query", QUERIES)
def test_keyword_scores_are_the_same_bm25_on_both_backends(
    both: KnowledgeBase, sqlite_scores: dict[str, dict[str, float]], query: str,
) -> None:
    """The same chunks with the same scores, to float rounding: a search is answered by the store or,
    once its background build is done, by the tenant's in-memory postings, whose sums run in another order."""
    got, want = _keyword(both, query), sqlite_scores[query]
    assert want and got.keys() == want.keys()
    assert [got[chunk] for chunk in sorted(want)] == pytest.approx([want[chunk] for chunk in sorted(want)], rel=1e-6)


@pytest.mark.parametrize(("query", "expected"), [
    ("Is there a warranty on devices?", {"warranty.pdf"}),
    ("are gift cards refunded", {"handbook.md", "refunds.docx"}),
    ("when can I reach support", {"notes.txt"}),
    ("收货地址怎么改", {"在订单详情页点击修改地址即可。"}),
    ("怎样取消订单", {"发货前可以在订单页取消。"}),
    ("退款多久到账", {"handbook.md"}),
])
def test_chinese_and_english_queries_rank_the_right_chunk_first_on_both_backends(
    both: KnowledgeBase, query: str, expected: set[str],
) -> None:
    top = both.search(query, k=3)[0]
    assert {top.doc_id, top.answer} & expected, (top.doc_id, top.text)
