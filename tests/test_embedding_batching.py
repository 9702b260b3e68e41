"""Micro-batching in the one embedder: concurrent requests share model calls, vectors unchanged."""

from __future__ import annotations

import threading
from collections.abc import Sequence

import numpy as np
import pytest

from lastline import Embedder, get_embedder
from lastline.embedding import EncodeStats

TEXTS = [f"how do I reset the password of account {i}?" for i in range(48)] + [
    "我的银行卡丢了怎么办", "银行卡丢失了该如何处理", "怎么修改登录密码", "what is the refund policy",
]


@pytest.fixture
def fresh(embedder: Embedder) -> Embedder:
    """A second Embedder over the session's loaded backend, with its own queue and counters (no memo:
    these tests are about model calls)."""
    emb = Embedder("use", 1, memo_texts=0)
    emb._backend = embedder.load()  # the weights are loaded once per session; the batcher is new
    return emb


def _concurrently(emb: Embedder, groups: Sequence[Sequence[str]]) -> list[np.ndarray]:
    results: list[np.ndarray | None] = [None] * len(groups)
    barrier = threading.Barrier(len(groups))

    def work(i: int) -> None:
        barrier.wait()
        results[i] = emb.encode(groups[i])

    threads = [threading.Thread(target=work, args=(i,)) for i in range(len(groups))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert all(r is not None for r in results)
    return [r for r in results if r is not None]


def test_concurrent_callers_get_the_vectors_of_single_calls(fresh: Embedder) -> None:
    singles = np.stack([fresh.encode_one(t) for t in TEXTS])
    together = _concurrently(fresh, [[t] for t in TEXTS])
    np.testing.assert_allclose(np.stack([r[0] for r in together]), singles, atol=1e-5)


def test_concurrent_requests_share_model_calls(fresh: Embedder) -> None:
    _concurrently(fresh, [[t] for t in TEXTS])
    stats = fresh.stats
    assert stats.requests == len(TEXTS)
    assert stats.texts == len(TEXTS)
    assert stats.calls < len(TEXTS) / 2
    assert stats.shared_calls >= 1


def test_requests_of_several_texts_keep_their_rows_in_order(fresh: Embedder) -> None:
    groups = [TEXTS[i : i + 5] for i in range(0, len(TEXTS), 5)]
    expected = [fresh.encode(g) for g in groups]
    for got, want in zip(_concurrently(fresh, groups), expected, strict=True):
        assert got.shape == want.shape
        np.testing.assert_allclose(got, want, atol=1e-5)


def test_a_lone_caller_runs_at_once_one_call_per_request(fresh: Embedder) -> None:
    for text in TEXTS[:10]:
        fresh.encode([text])
    assert fresh.stats.calls == 10
    assert fresh.stats.shared_calls == 0


def test_no_shared_call_exceeds_max_batch(embedder: Embedder) -> None:
    emb = Embedder("use", 1, max_batch=8, memo_texts=0)
    emb._backend = embedder.load()
    _concurrently(emb, [[t] for t in TEXTS])
    assert emb.stats.largest <= 8
    assert emb.stats.texts == len(TEXTS)


def test_one_bad_input_fails_only_its_own_caller(fresh: Embedder) -> None:
    expected = fresh.encode(TEXTS[:15])
    outcomes: dict[int, object] = {}
    barrier = threading.Barrier(16)

    def work(i: int) -> None:
        barrier.wait()
        try:
            outcomes[i] = fresh.encode([TEXTS[i]] if i < 15 else [None])  # type: ignore[list-item]
        except Exception as exc:
            outcomes[i] = exc

    threads = [threading.Thread(target=work, args=(i,)) for i in range(16)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert isinstance(outcomes[15], Exception)
    for i in range(15):
        got = outcomes[i]
        assert isinstance(got, np.ndarray), got
        np.testing.assert_allclose(got[0], expected[i], atol=1e-5)


def test_the_process_wide_embedder_counts_its_calls() -> None:
    assert isinstance(get_embedder("use", 1).stats, EncodeStats)


def test_callers_arriving_while_calls_run_are_all_served_and_the_embedder_ends_idle(fresh: Embedder) -> None:
    """Rounds of callers that keep arriving mid-call: each gets its own rows, none is left waiting,
    and afterwards a lone caller runs its call at once."""
    singles = {t: fresh.encode_one(t) for t in TEXTS}
    failures: list[str] = []

    def work(i: int) -> None:
        for r in range(6):
            text = TEXTS[(i * 7 + r) % len(TEXTS)]
            row = fresh.encode([text])[0]
            if not np.allclose(row, singles[text], atol=1e-5):
                failures.append(text)

    threads = [threading.Thread(target=work, args=(i,), daemon=True) for i in range(24)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    assert not any(t.is_alive() for t in threads), "a caller was never woken"
    assert not failures
    assert fresh.stats.requests == len(TEXTS) + 24 * 6
    assert fresh.stats.shared_calls >= 1
    calls = fresh.stats.calls
    fresh.encode([TEXTS[0]])
    assert fresh.stats.calls == calls + 1


# -- the vector memo ----------------------------------------------------------------------------
@pytest.fixture
def memo(embedder: Embedder) -> Embedder:
    """A fresh Embedder over the session's backend with a small memo (4 texts)."""
    emb = Embedder("use", 1, memo_texts=4)
    emb._backend = embedder.load()
    return emb


def test_a_repeated_text_is_answered_from_the_memo_without_a_model_call(memo: Embedder) -> None:
    first = memo.encode(["how do I reset my password?"])
    again = memo.encode(["how do I reset my password?"])
    assert memo.stats.calls == 1
    assert memo.stats.memo_hits == 1
    np.testing.assert_array_equal(first, again)


def test_a_mixed_call_encodes_only_the_unknown_texts_once_and_keeps_the_order(memo: Embedder,
                                                                             embedder: Embedder) -> None:
    memo.encode([TEXTS[0]])
    got = memo.encode([TEXTS[1], TEXTS[0], TEXTS[1], TEXTS[2]])
    assert memo.stats.calls == 2
    assert memo.stats.texts == 3  # TEXTS[1] once, TEXTS[2] once, TEXTS[0] from the memo
    want = embedder.encode([TEXTS[1], TEXTS[0], TEXTS[1], TEXTS[2]])
    np.testing.assert_allclose(got, want, atol=1e-5)


def test_the_memo_keeps_the_most_recently_used_texts_up_to_its_capacity(memo: Embedder) -> None:
    memo.encode(TEXTS[:4])
    memo.encode([TEXTS[0]])  # now the most recent
    memo.encode([TEXTS[4]])  # evicts TEXTS[1], the least recently used
    calls = memo.stats.calls
    memo.encode([TEXTS[0], TEXTS[2], TEXTS[3], TEXTS[4]])
    assert memo.stats.calls == calls
    memo.encode([TEXTS[1]])
    assert memo.stats.calls == calls + 1


def test_long_texts_are_never_memoized(memo: Embedder) -> None:
    chunk = "a passage of a document " * 60  # 1,440 characters
    memo.encode([chunk])
    memo.encode([chunk])
    assert memo.stats.calls == 2
    assert memo.stats.memo_hits == 0


def test_a_caller_changing_its_rows_does_not_change_what_the_memo_hands_out(memo: Embedder) -> None:
    first = memo.encode([TEXTS[0]])
    kept = first.copy()
    first[:] = 0.0
    np.testing.assert_array_equal(memo.encode([TEXTS[0]]), kept)
    memo.encode([TEXTS[0]])[0][:] = 0.0
    np.testing.assert_array_equal(memo.encode([TEXTS[0]]), kept)


def test_concurrent_callers_of_repeated_texts_get_the_vectors_of_single_calls(memo: Embedder,
                                                                              embedder: Embedder) -> None:
    groups = [[TEXTS[i % 6]] for i in range(24)]
    singles = {t: embedder.encode_one(t) for t in TEXTS[:6]}
    for got, group in zip(_concurrently(memo, groups), groups, strict=True):
        np.testing.assert_allclose(got[0], singles[group[0]], atol=1e-5)
    assert memo.stats.texts + memo.stats.memo_hits == 24
