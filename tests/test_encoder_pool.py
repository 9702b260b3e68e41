"""Encoding in worker processes (lastline.encoder_pool) gives the rows the in-process model gives."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from lastline import Embedder, ModelUnavailable, SQLiteStorage
from lastline.encoder_pool import EncoderPool
from lastline.kb import KnowledgeBase
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


def test_ingest_with_workers_stores_the_same_vectors(embedder: Embedder, tmp_path: Path) -> None:
    folder = tmp_path / "docs"
    folder.mkdir()
    notes = [f"{TEXTS[i % len(TEXTS)]} (note {i})" for i in range(POOL_MIN_TEXTS + 6)]  # one batch: pooled
    for i, text in enumerate(notes):
        (folder / f"{i}.md").write_text(f"# Note {i}\n\n{text}\n", encoding="utf-8")
    stored = []
    for workers in (1, 2):
        kb = KnowledgeBase(SQLiteStorage(tmp_path / f"w{workers}.db"), embedder)
        pooled: set[int] = set()

        def watch(done: int, total: int, source: str, kb: KnowledgeBase = kb, pooled: set[int] = pooled) -> None:
            pooled.update(p.workers for p in kb.indexer.pools.values())

        report = kb.ingest(folder, workers=workers, progress=watch)
        assert report.chunks == len(notes)
        assert pooled == ({2} if workers == 2 else set())  # the batch was encoded by the pool's workers
        assert (kb.indexer.workers, kb.indexer.pools) == (1, {})  # and they ended with the ingest
        index = kb.store.vector_index(PRIMARY)
        ids, matrix, _, _ = index.vectors()  # type: ignore[attr-defined]
        keys = kb.store.chunk_keys("default")
        stored.append({keys[int(i)]: row for i, row in zip(ids, matrix, strict=True)})
    assert stored[0].keys() == stored[1].keys()
    for key, row in stored[0].items():
        assert np.allclose(row, stored[1][key], atol=1e-5)
