"""The int8 ONNX export of USE (``use-onnx``): close to the numpy model, its own model id, a working KB space."""

from __future__ import annotations

import numpy as np
import pytest

from lastline import Embedder, SQLiteStorage, get_embedder
from lastline.kb import KnowledgeBase

TEXTS = [
    "How do I reset my password?", "Refunds are paid back within five working days.", "lastline 的降级顺序是什么？",
    "退款多久到账", "Vitamin D deficiency is associated with a higher risk of fractures in older adults.",
    "发票可以在订单详情页下载。",
]


@pytest.fixture(scope="module")
def use_onnx() -> Embedder:
    emb = get_embedder("use-onnx", 1)
    emb.load()
    return emb


def test_use_onnx_agrees_with_numpy_use_but_is_a_different_model(embedder: Embedder, use_onnx: Embedder) -> None:
    a, b = embedder.encode(TEXTS), use_onnx.encode(TEXTS)
    agreement = np.sum(a * b, axis=1)
    assert agreement.min() > 0.95  # int8 weights: close, not equal
    assert use_onnx.model_id != embedder.model_id and use_onnx.dim == embedder.dim == 512
    assert np.allclose(np.linalg.norm(b, axis=1), 1.0, atol=1e-5)
    # the same pairs rank alike: each text is its own nearest neighbour in the other model's space
    assert list(np.argmax(a @ b.T, axis=1)) == list(range(len(TEXTS)))


def test_a_kb_on_use_onnx_finds_documents_in_both_languages(storage: SQLiteStorage, use_onnx: Embedder) -> None:
    kb = KnowledgeBase(storage, use_onnx)
    kb.add_document(title="Refunds", text="Refunds are paid back within five working days.", doc_id="en")
    kb.add_document(title="发票", text="发票可以在订单详情页下载。", doc_id="zh")
    assert kb.search("when do I get my money back", mode="vector", k=1)[0].doc_id == "en"
    assert kb.search("在哪里下载发票", mode="vector", k=1)[0].doc_id == "zh"


def test_the_onnx_use_session_can_run_without_idle_spinning_and_batches_in_one_run() -> None:
    from lastline.embedders import OnnxUseBackend

    default, still = OnnxUseBackend(1), OnnxUseBackend(1, spinning=False)
    assert default.spinning() and not still.spinning()  # onnxruntime's default stays the shipped one
    one_by_one = still.encode(TEXTS[:3])
    assert np.allclose(default.encode(TEXTS[:3]), one_by_one, atol=1e-5)  # spinning changes speed only
    assert np.allclose(still.run(TEXTS[:1]), one_by_one[:1], atol=1e-5)
    padded = still.run(TEXTS[:3])  # one run pads every text to the longest: close to, not equal to, alone
    cosines = np.sum(padded * one_by_one, axis=1) / np.linalg.norm(padded, axis=1) / np.linalg.norm(one_by_one, axis=1)
    assert padded.shape == (3, 512) and cosines.min() > 0.99
