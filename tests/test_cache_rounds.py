"""Lookups in rounds (``cache/_rounds.py``): one thread, one model call per round, the same decisions.

The real model and a real SQLite file. Rounds form from whatever is queued when one starts, so the
tests that count rounds hold the first round at its start (``before_round`` waits on a gate) while
they queue the rest: what the second round takes is then known.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Future
from pathlib import Path

import numpy as np
import pytest
from _cache_questions import PARAPHRASES, QUESTIONS

from lastline import Embedder, InvalidInput, Overloaded, normalize_text, open_storage
from lastline.admission import Bulkhead
from lastline.cache import LookupResult, SemanticCache
from lastline.cache._neighbours import Nearest, PartitionKey
from lastline.cache._rounds import LookupRounds

#: Lookups that all need a vector: paraphrases (hits), a typo, a changed value, unrelated questions.
PAST_EXACT = [
    *PARAPHRASES,
    "How do I reset my pasword?",
    "我想借一万元怎么操作",
    "What is the capital of Peru?",
    "怎么查询我的信用分",
    "Can I pay with a gift card?",
]


@pytest.fixture
def model_calls(embedder: Embedder) -> Embedder:
    """An Embedder over the session's loaded model with counters of its own and no vector memo, so
    every vector in a test comes from a model call it counts."""
    emb = Embedder("use", 1, memo_texts=0)
    emb._backend = embedder.load()
    return emb


@pytest.fixture
def cache(tmp_path: Path, model_calls: Embedder) -> Iterator[SemanticCache]:
    storage = open_storage(tmp_path / "cache.db")
    c = SemanticCache(storage, model_calls, past_exact=Bulkhead("semantic", 64))
    c.put_many([{"prompt": q, "response": f"answer {i}"} for i, q in enumerate(QUESTIONS)])
    c.put("What is the fee for order 12345?", "The fee for order 12345 is 3 USD.")
    yield c
    c.close()
    storage.close()


def _decision(res: LookupResult) -> tuple[object, ...]:
    sim = None if res.similarity is None else round(res.similarity, 4)
    best = None if res.best_similarity is None else round(res.best_similarity, 4)
    return res.hit, res.entry_id, res.layer, sim, res.confidence, res.reason, best


class _Gate:
    """``before_round`` for :class:`LookupRounds` that holds the first round until :meth:`open`."""

    def __init__(self) -> None:
        self.entered = threading.Event()
        self._open = threading.Event()

    def __call__(self) -> None:
        self.entered.set()
        assert self._open.wait(30), "the test never opened the gate"

    def open(self) -> None:
        self._open.set()


Search = Callable[[PartitionKey, np.ndarray, int], list[Nearest]]


def _held_rounds(cache: SemanticCache, encode: Callable[[Sequence[str]], np.ndarray] | None = None,
                 search: Search | None = None) -> tuple[LookupRounds, _Gate]:
    """Give ``cache`` rounds whose first round waits at a gate; the first lookup must be queued next."""
    gate = _Gate()
    cache.rounds.close()
    cache.rounds = LookupRounds(encode or cache.embedder.encode, search or cache.neighbours.nearest_many,
                                before_round=gate)
    return cache.rounds, gate


def _first_queued(cache: SemanticCache, gate: _Gate) -> Future[LookupResult]:
    first = cache.submit_lookup("How can I close my account?", mode="fallback")
    assert gate.entered.wait(30)
    return first


def test_lookups_in_rounds_decide_as_lookups_one_by_one(cache: SemanticCache) -> None:
    queries = [*PAST_EXACT, *QUESTIONS[:3], "   how do I RESET my password?  "]
    for mode in ("intercept", "fallback"):
        one_by_one = [_decision(cache.lookup(q, mode=mode)) for q in queries]
        together = [_decision(f.result(30)) for f in [cache.submit_lookup(q, mode=mode) for q in queries]]
        assert together == one_by_one
    assert sum(hit for hit, *_ in one_by_one) >= len(PARAPHRASES) + 3  # the set has hits to compare


def test_a_round_takes_every_queued_lookup_and_encodes_their_texts_in_one_call(
        cache: SemanticCache, model_calls: Embedder) -> None:
    expected = [_decision(cache.lookup(q)) for q in PAST_EXACT]
    rounds, gate = _held_rounds(cache)
    calls_before = model_calls.stats.calls
    first = _first_queued(cache, gate)
    queued = [cache.submit_lookup(q) for q in PAST_EXACT]
    gate.open()
    assert [_decision(f.result(30)) for f in queued] == expected
    assert first.result(30).hit
    stats = rounds.stats
    assert (stats.rounds, stats.lookups, stats.largest) == (2, len(PAST_EXACT) + 1, len(PAST_EXACT))
    typos = sum(layer == "fuzzy" for _, _, layer, *_ in expected)  # found by the scan, before any vector
    assert typos == 1
    assert stats.encode_calls == 2 and stats.texts == len(PAST_EXACT) - typos + 1
    assert model_calls.stats.calls - calls_before == 2
    assert stats.search_calls == 2 and stats.searched == stats.texts  # one search per round: one partition


def test_a_round_searches_each_partition_once_for_all_of_its_lookups(cache: SemanticCache) -> None:
    """Two tenants' lookups in one round: one search per partition, each lookup deciding as alone."""
    cache.put_many([{"prompt": q, "response": f"other {i}"} for i, q in enumerate(QUESTIONS)], tenant="other")
    asked = [(tenant, q) for q in PARAPHRASES for tenant in ("default", "other")]
    expected = [_decision(cache.lookup(q, tenant=tenant)) for tenant, q in asked]
    searched: list[tuple[PartitionKey, int]] = []

    def search(partition: PartitionKey, vectors: np.ndarray, k: int) -> list[Nearest]:
        searched.append((partition, len(vectors)))
        return cache.neighbours.nearest_many(partition, vectors, k)

    rounds, gate = _held_rounds(cache, search=search)
    first = _first_queued(cache, gate)
    queued = [cache.submit_lookup(q, tenant=tenant) for tenant, q in asked]
    gate.open()
    assert [_decision(f.result(30)) for f in queued] == expected
    assert sum(hit for hit, *_ in expected) >= 6  # hits in both partitions to compare
    first.result(30)
    assert searched[0] == (("default", "-"), 1)  # the first round: the first lookup alone
    assert sorted(searched[1:]) == [(("default", "-"), len(PARAPHRASES)), (("other", "-"), len(PARAPHRASES))]
    assert (rounds.stats.search_calls, rounds.stats.searched) == (3, 2 * len(PARAPHRASES) + 1)


def test_a_failed_search_is_tried_again_per_lookup_and_fails_only_its_own(cache: SemanticCache) -> None:
    expected = [_decision(cache.lookup(q)) for q in PARAPHRASES]
    poisoned = cache.embedder.encode([normalize_text(PARAPHRASES[1])])[0]

    def search(partition: PartitionKey, vectors: np.ndarray, k: int) -> list[Nearest]:
        if any(np.allclose(v, poisoned, atol=1e-5) for v in vectors):  # the batch moves a vector by ≈1e-7
            raise RuntimeError("the index failed on this vector")
        return cache.neighbours.nearest_many(partition, vectors, k)

    _, gate = _held_rounds(cache, search=search)
    first = _first_queued(cache, gate)
    queued = [cache.submit_lookup(q) for q in PARAPHRASES]
    gate.open()
    for i, (f, want) in enumerate(zip(queued, expected, strict=True)):
        if i == 1:
            with pytest.raises(RuntimeError, match="index failed"):
                f.result(30)
        else:
            assert _decision(f.result(30)) == want
    first.result(30)
    assert cache._lookup.past_exact is not None
    assert cache._lookup.past_exact.stats().in_flight == 0


def test_an_exact_hit_in_a_round_needs_no_vector(cache: SemanticCache) -> None:
    rounds, gate = _held_rounds(cache)
    first = _first_queued(cache, gate)
    queued = [cache.submit_lookup(q) for q in QUESTIONS[:4]]
    gate.open()
    assert all(f.result(30).layer == "exact" for f in queued)
    first.result(30)
    assert rounds.stats.texts == 1  # the first lookup's paraphrase only


def test_one_failing_lookup_fails_only_itself_and_every_slot_is_given_back(cache: SemanticCache) -> None:
    """A bad prompt fails before its vector; a text the model call fails on is encoded again alone."""
    expected = [_decision(cache.lookup(q)) for q in PAST_EXACT]
    poisoned = "What is the capital of Peru?"

    def encode(texts: Sequence[str]) -> np.ndarray:
        if any("capital of peru" in t for t in texts):
            raise RuntimeError("the model failed on this text")
        return cache.embedder.encode(texts)

    _, gate = _held_rounds(cache, encode)
    first = _first_queued(cache, gate)
    queued = [cache.submit_lookup(q) for q in PAST_EXACT]
    empty = cache.submit_lookup("   ")
    gate.open()
    for q, f, want in zip(PAST_EXACT, queued, expected, strict=True):
        if q == poisoned:
            with pytest.raises(RuntimeError, match="model failed"):
                f.result(30)
        else:
            assert _decision(f.result(30)) == want
    with pytest.raises(InvalidInput, match="prompt is empty"):
        empty.result(30)
    first.result(30)
    assert cache._lookup.past_exact is not None
    assert cache._lookup.past_exact.stats().in_flight == 0


def test_steps_that_took_their_own_slot_give_it_back_when_their_vector_fails(cache: SemanticCache) -> None:
    slots = cache._lookup.past_exact
    assert slots is not None

    def failing(texts: Sequence[str]) -> np.ndarray:
        raise RuntimeError("no model")

    cache.rounds.close()
    cache.rounds = LookupRounds(failing, cache.neighbours.nearest_many)
    steps = cache._lookup.steps("How can I reset my password?", tenant="default", context=None,
                                mode="intercept", threshold=None, exact_only=False)
    with pytest.raises(RuntimeError, match="no model"):
        cache.rounds.submit(steps).result(30)
    assert slots.stats().in_flight == 0


def test_a_lookup_finding_every_slot_taken_is_refused_and_holds_none(tmp_path: Path, model_calls: Embedder) -> None:
    storage = open_storage(tmp_path / "full.db")
    slots = Bulkhead("semantic", 2)
    c = SemanticCache(storage, model_calls, past_exact=slots)
    try:
        c.put("How do I reset my password?", "Use the link on the sign-in page.")
        slots.acquire("other")
        slots.acquire("other")
        with pytest.raises(Overloaded) as refused:
            c.submit_lookup("How can I reset my password?").result(30)
        assert refused.value.reason == "full" and refused.value.extra["limit"] == "semantic"
        assert c.submit_lookup("How do I reset my password?").result(30).layer == "exact"  # needs no slot
        slots.release("other")
        slots.release("other")
        assert c.submit_lookup("How can I reset my password?").result(30).hit
        assert slots.stats().in_flight == 0
    finally:
        c.close()
        storage.close()


def test_close_finishes_the_queued_lookups_then_refuses_new_ones(cache: SemanticCache) -> None:
    expected = [_decision(cache.lookup(q)) for q in PARAPHRASES]
    _, gate = _held_rounds(cache)
    first = _first_queued(cache, gate)
    queued = [cache.submit_lookup(q) for q in PARAPHRASES]
    closing = threading.Thread(target=cache.close)
    closing.start()
    gate.open()
    closing.join(30)
    assert not closing.is_alive()
    assert all(f.done() for f in [first, *queued])
    assert [_decision(f.result()) for f in queued] == expected
    with pytest.raises(RuntimeError, match="closed"):
        cache.submit_lookup("How can I reset my password?")


def test_a_round_that_fails_before_its_lookups_fails_them_all_and_the_next_round_runs(cache: SemanticCache) -> None:
    outcomes = iter([None, RuntimeError("the catch-up failed")])  # round 1 passes, round 2 fails, then all pass

    def before_round() -> None:
        gate()
        failure = next(outcomes, None)
        if failure is not None:
            raise failure

    gate = _Gate()
    cache.rounds.close()
    cache.rounds = LookupRounds(cache.embedder.encode, cache.neighbours.nearest_many, before_round=before_round)
    first = _first_queued(cache, gate)
    queued = [cache.submit_lookup(q) for q in PARAPHRASES]
    gate.open()
    assert first.result(30).hit
    for f in queued:
        with pytest.raises(RuntimeError, match="catch-up failed"):
            f.result(30)
    assert cache.submit_lookup(QUESTIONS[0]).result(30).layer == "exact"
    assert cache._lookup.past_exact is not None
    assert cache._lookup.past_exact.stats().in_flight == 0


def _lingering_rounds(cache: SemanticCache) -> tuple[LookupRounds, _Gate]:
    """Rounds of at most 3 lookups that linger 30 s for company: a round after a shared one starts
    only when 3 are queued (or at close), so what waits is known without timing."""
    gate = _Gate()
    cache.rounds.close()
    cache.rounds = LookupRounds(cache.embedder.encode, cache.neighbours.nearest_many, before_round=gate,
                                max_round=3, linger_s=30)
    return cache.rounds, gate


def test_a_round_after_a_shared_one_waits_for_company_until_its_round_is_full(cache: SemanticCache) -> None:
    expected = [_decision(cache.lookup(q)) for q in PARAPHRASES[:5]]
    rounds, gate = _lingering_rounds(cache)
    first = _first_queued(cache, gate)
    pair = [cache.submit_lookup(q) for q in PARAPHRASES[:2]]
    gate.open()
    assert first.result(30).hit and [_decision(f.result(30)) for f in pair] == expected[:2]
    assert (rounds.stats.rounds, rounds.stats.largest, rounds.stats.lingered) == (2, 2, 0)  # the first alone
    waiting = cache.submit_lookup(PARAPHRASES[2])
    with pytest.raises(TimeoutError):  # the round before was shared: this one waits for company
        waiting.result(0.5)
    company = [cache.submit_lookup(q) for q in PARAPHRASES[3:5]]
    assert [_decision(f.result(30)) for f in [waiting, *company]] == expected[2:]
    assert (rounds.stats.rounds, rounds.stats.largest, rounds.stats.lingered) == (3, 3, 1)
    last = cache.submit_lookup(PARAPHRASES[0])  # lingers too; close does not wait out the 30 s
    closing = threading.Thread(target=rounds.close)
    closing.start()
    closing.join(10)
    assert not closing.is_alive() and _decision(last.result(0)) == expected[0]


def test_a_lone_client_never_waits_for_company(cache: SemanticCache) -> None:
    expected = [_decision(cache.lookup(q)) for q in PARAPHRASES[:3]]
    rounds, gate = _lingering_rounds(cache)
    gate.open()
    for q, decided in zip(PARAPHRASES[:3], expected, strict=True):  # rounds of one: none lingers 30 s
        assert _decision(cache.submit_lookup(q).result(10)) == decided
    assert (rounds.stats.rounds, rounds.stats.lingered) == (3, 0)
