"""Encoding in worker processes (lastline.encoder_pool) gives the rows the in-process model gives."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from _pools import wait_for_pools

from lastline import Embedder, ModelUnavailable, SQLiteStorage
from lastline.encoder_pool import EncoderPool
from lastline.kb import KnowledgeBase
from lastline.kb._ingest import WRITE_BATCH
from lastline.kb._parsed import ParsedDocument
from lastline.kb._spaces import PRIMARY
from lastline.kb._writer import POOL_MIN_TEXTS

TEXTS = [
    "How do I reset my password?",
    "甲方应于2024年6月15日前支付人民币伍拾万元整。",
    "Refunds are issued to the original payment method within five business days of approval. " * 4,
    "ok",
    "The service restarts its workers when the queue backs up.",
]


def test_pool_rows_match_the_model_in_this_process_in_order(embedder: Embedder) -> None:
    with EncoderPool("use", 2, model_id=embedder.model_id) as pool:
        rows = pool.encode(TEXTS)
        assert pool.encode([]).shape[0] == 0
    expected = embedder.encode(TEXTS)
    assert rows.shape == expected.shape
    assert np.allclose(rows, expected, atol=1e-5)
    assert np.allclose(np.linalg.norm(rows, axis=1), 1.0, atol=1e-5)


def test_a_pool_of_another_model_refuses_to_start() -> None:
    with pytest.raises(ModelUnavailable, match="expected"):
        EncoderPool("use", 1, model_id="some-other-model")


def test_a_pool_started_without_waiting_checks_its_model_before_the_first_batch() -> None:
    pool = EncoderPool("use", 1, model_id="some-other-model", wait=False)  # returns while the worker loads
    with pytest.raises(ModelUnavailable, match="expected"):
        pool.submit(["anything"])


def test_ingest_with_workers_stores_the_same_vectors(embedder: Embedder, tmp_path: Path) -> None:
    folder = tmp_path / "docs"
    folder.mkdir()
    # Two batches: the first starts the pool (and is encoded here while its workers load), the second
    # and any after go to the workers.
    notes = [f"{TEXTS[i % len(TEXTS)]} (note {i})" for i in range(WRITE_BATCH + POOL_MIN_TEXTS + 6)]
    for i, text in enumerate(notes):
        (folder / f"{i:03d}.md").write_text(f"# Note {i}\n\n{text}\n", encoding="utf-8")
    stored = []
    for workers in (1, 2):
        kb = KnowledgeBase(SQLiteStorage(tmp_path / f"w{workers}.db"), embedder)
        pooled: set[int] = set()
        report = kb.ingest(folder, workers=workers, progress=wait_for_pools(kb, pooled))
        assert report.chunks == len(notes)
        assert pooled == ({2} if workers == 2 else set())
        # the second batch was encoded by the pool's workers, the first in this process
        assert kb.indexer.pooled_texts == (len(notes) - WRITE_BATCH if workers == 2 else 0)
        assert (kb.indexer.workers, kb.indexer.pools) == (1, {})  # and they ended with the ingest
        index = kb.store.vector_index(PRIMARY)
        ids, matrix, _, _ = index.vectors()  # type: ignore[attr-defined]
        keys = kb.store.chunk_keys("default")
        stored.append({keys[int(i)]: row for i, row in zip(ids, matrix, strict=True)})
    assert stored[0].keys() == stored[1].keys()
    for key, row in stored[0].items():
        assert np.allclose(row, stored[1][key], atol=1e-5)


def test_a_pipeline_that_fails_drops_the_batch_in_flight_and_keeps_the_ones_written(
    embedder: Embedder, tmp_path: Path
) -> None:
    kb = KnowledgeBase(SQLiteStorage(tmp_path / "kb.db"), embedder)
    batches = [[(f"d{b}-{i}", ParsedDocument.plain(f"{TEXTS[i]} (batch {b})", f"t{i}"), f"h{b}{i}", None)
                for i in range(len(TEXTS))] for b in range(3)]
    with pytest.raises(RuntimeError, match="disk gone"), kb.indexer.pipeline() as pipe:
        assert pipe.write("default", "default", batches[0]) == 0  # started, nothing written yet
        assert pipe.write("default", "default", batches[1]) == len(TEXTS)  # the first, written meanwhile
        raise RuntimeError("disk gone")
    assert sorted(kb.store.documents("default")) == sorted(doc_id for doc_id, *_ in batches[0])
    with kb.indexer.pipeline() as pipe:
        pipe.write("default", "default", batches[2])
    assert len(kb.store.documents("default")) == 2 * len(TEXTS)  # the block's end wrote the last batch


def test_an_ingest_of_one_batch_starts_no_worker_processes(embedder: Embedder, tmp_path: Path) -> None:
    folder = tmp_path / "docs"
    folder.mkdir()
    for i in range(POOL_MIN_TEXTS + 6):  # enough for the pool, but no batch follows that could use it
        text = f"# Only {i}\n\n{TEXTS[i % len(TEXTS)]} (only batch {i})\n"
        (folder / f"{i:03d}.md").write_text(text, encoding="utf-8")
    kb = KnowledgeBase(SQLiteStorage(tmp_path / "kb.db"), embedder)
    seen: set[int] = set()
    report = kb.ingest(folder, workers=2, progress=wait_for_pools(kb, seen))
    assert report.chunks == POOL_MIN_TEXTS + 6
    assert (seen, kb.indexer.pooled_texts) == (set(), 0)
