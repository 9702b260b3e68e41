"""How much of a chunk each vector space's model is fed, and what an ingest says each stage cost.

The default space reads the first ``KBConfig.vector_chars`` characters of a chunk's embedded text
(the keyword index every word); the English MiniLM space is cut before tokenizing at a length past
its 256-token window, which must not change a vector of natural text.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from _pools import wait_for_pools

from lastline import Embedder, SQLiteStorage
from lastline.kb import KBConfig, KnowledgeBase
from lastline.kb._index_text import embedding_text
from lastline.kb._ingest import WRITE_BATCH
from lastline.kb._spaces import ENGLISH, PRIMARY
from lastline.kb._vectors import space_model
from lastline.kb._writer import POOL_MIN_TEXTS

OPENING = "Refunds are paid back to the original card within five business days of approval."
LATER = " The warehouse in Rotterdam ships parcels to every country of the European Union."


def _stored(kb: KnowledgeBase, space: object = PRIMARY) -> dict[str, np.ndarray]:
    """Each chunk's stored vector in ``space``, by chunk id."""
    ids, matrix, _, _ = kb.store.vector_index(space).vectors()  # type: ignore[arg-type, attr-defined]
    keys = kb.store.chunk_keys("default")
    return {f"{keys[int(i)][0]}:{keys[int(i)][1]}": matrix[n] for n, i in enumerate(ids)}


def _text(kb: KnowledgeBase, doc_id: str) -> str:
    rows = kb.store.chunk_rows("default", sorted(kb.store.chunk_keys("default")))
    row = next(r for r in rows.values() if r.doc_id == doc_id)
    return embedding_text(row.kind, row.title, row.heading, row.text, row.question)


def test_the_default_space_reads_the_first_vector_chars_and_the_keyword_index_every_word(
    embedder: Embedder, tmp_path: Path
) -> None:
    text = OPENING + LATER * 6
    kb = KnowledgeBase(SQLiteStorage(tmp_path / "kb.db"), embedder, KBConfig(vector_chars=len(OPENING)))
    kb.add_document(doc_id="refunds", title="", text=text)
    [vector] = _stored(kb).values()
    fed = _text(kb, "refunds")[: len(OPENING)]
    assert fed == OPENING
    assert np.allclose(vector, embedder.encode([OPENING])[0], atol=1e-5)
    assert not np.allclose(vector, embedder.encode([text])[0], atol=1e-3)  # the whole text would differ
    [hit] = kb.search("Rotterdam warehouse", mode="keyword", k=1)  # words past the cut are indexed
    assert hit.doc_id == "refunds"


def test_none_feeds_the_whole_chunk(embedder: Embedder, tmp_path: Path) -> None:
    text = OPENING + LATER * 3
    kb = KnowledgeBase(SQLiteStorage(tmp_path / "kb.db"), embedder, KBConfig(vector_chars=None))
    kb.add_document(doc_id="refunds", title="", text=text)
    [vector] = _stored(kb).values()
    assert np.allclose(vector, embedder.encode([text])[0], atol=1e-5)
    assert kb.store.vector_index(PRIMARY).model() == (embedder.model_id, embedder.dim)


def test_another_cut_rebuilds_the_space_so_whole_and_cut_vectors_never_mix(embedder: Embedder, tmp_path: Path) -> None:
    path = tmp_path / "kb.db"
    text = OPENING + LATER * 4
    first = KnowledgeBase(SQLiteStorage(path), embedder, KBConfig(vector_chars=None))
    first.add_document(doc_id="refunds", title="", text=text)
    cut = 120
    second = KnowledgeBase(SQLiteStorage(path), embedder, KBConfig(vector_chars=cut))
    assert second.store.vector_index(PRIMARY).model() == (space_model(embedder, cut), embedder.dim)
    [vector] = _stored(second).values()
    assert np.allclose(vector, embedder.encode([text[:cut]])[0], atol=1e-5)
    [hit] = second.search("refund to my card", mode="vector", k=1)
    assert hit.doc_id == "refunds"


def test_the_background_filler_feeds_each_space_what_ingest_would(
    embedder: Embedder, english_embedder: Embedder, tmp_path: Path
) -> None:
    text = OPENING + LATER * 6
    kb = KnowledgeBase(SQLiteStorage(tmp_path / "kb.db"), embedder, KBConfig(vector_chars=100),
                       english_embedder=english_embedder, background_spaces=True)
    kb.add_document(doc_id="refunds", title="", text=text)
    assert kb.fill_spaces() == 1
    [primary] = _stored(kb).values()
    [english] = _stored(kb, ENGLISH).values()
    assert np.allclose(primary, embedder.encode([text[:100]])[0], atol=1e-5)
    assert np.allclose(english, english_embedder.encode([text])[0], atol=1e-5)  # its own window, not the cut


def test_minilm_cut_before_tokenizing_keeps_every_token_the_model_reads(english_embedder: Embedder) -> None:
    backend = english_embedder.load()
    max_chars, max_tokens = backend.max_chars, backend.max_tokens  # type: ignore[attr-defined]
    sentence = "Mitochondrial dysfunction alters insulin signalling in skeletal muscle of older adults. "
    long_text = sentence * (2 * max_chars // len(sentence))
    assert len(long_text) > max_chars
    tokenizer = backend._tokenizer  # type: ignore[attr-defined]
    assert len(tokenizer.encode(long_text[:max_chars]).ids) == max_tokens  # the cut still fills the window
    whole, cut = english_embedder.encode([long_text, long_text[:max_chars]])
    assert np.allclose(whole, cut, atol=1e-6)
    assert np.allclose(whole, english_embedder.encode([long_text * 20])[0], atol=1e-6)  # nothing past it counts


@pytest.mark.parametrize("workers", [1, 2])
def test_ingest_reports_cpu_per_stage_worker_processes_included(
    embedder: Embedder, tmp_path: Path, workers: int
) -> None:
    folder = tmp_path / "docs"
    folder.mkdir()
    notes = WRITE_BATCH + POOL_MIN_TEXTS  # two batches: with 2 workers the second is encoded in the pool
    for i in range(notes):  # texts no other test encodes (the session model's memo would answer them)
        text = f"# Note {i} of {workers}\n\n{OPENING} Note {i}, {workers} workers.{LATER}\n"
        (folder / f"{i:03d}.md").write_text(text, encoding="utf-8")
    kb = KnowledgeBase(SQLiteStorage(tmp_path / "kb.db"), embedder)
    report = kb.ingest(folder, workers=workers, progress=wait_for_pools(kb))
    assert report.chunks == notes
    assert (kb.indexer.pooled_texts > 0) == (workers > 1)
    assert set(report.cpu) == {"parse", "chunk", "keyword text", "encode", "write"}
    assert all(seconds >= 0 for seconds in report.cpu.values())
    # 192 USE encodes cost well over a millisecond each, wherever they ran; the rest is far cheaper.
    assert report.cpu["encode"] > 0.1
    assert report.cpu["encode"] > report.cpu["chunk"] + report.cpu["keyword text"]
    again = kb.ingest(folder, workers=workers)
    assert again.chunks == 0 and again.cpu["encode"] == 0.0  # nothing changed: nothing encoded
