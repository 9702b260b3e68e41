"""Value-aware candidates: an entry sharing the query's values is found even outside the k nearest."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from lastline import Embedder, PostgresStorage, SQLiteStorage, open_storage
from lastline.cache import CacheConfig, SemanticCache
from lastline.cache._lookup import _unseen_may_pass
from lastline.cache._neighbours import Nearest
from lastline.cache._values import values_key

pytestmark = pytest.mark.backends("sqlite", "postgresql")

STORED = "What is the payment status of invoice {n} that was issued to our company in the previous billing cycle?"
ASKED = "payment status for invoice {n}?"
#: Below every paraphrase's cosine to its own entry (≈0.55–0.70 with the bundled model) and far
#: below the shipped default, so only value agreement decides which entry may answer.
THRESHOLD = 0.45


@pytest.fixture(scope="module")
def templated(tmp_path_factory: pytest.TempPathFactory, embedder: Embedder) -> tuple[Path, list[int]]:
    """3,000 templated entries that differ only in their invoice number, on one SQLite file.

    Built once per module, so SQLite only; the value-candidate lookups are the same code on every
    backend, and the PostgreSQL store's ``value_candidates`` runs in the tests below.
    """
    path = tmp_path_factory.mktemp("templated") / "cache.db"
    numbers = random.Random(3).sample(range(1000, 9999), 3000)
    storage = open_storage(path)
    SemanticCache(storage, embedder).put_many(
        [{"prompt": STORED.format(n=n), "response": f"invoice {n}"} for n in numbers])
    storage.close()
    return path, numbers


def _served(cache: SemanticCache, numbers: list[int]) -> tuple[int, int]:
    """(lookups answered with their own invoice, lookups answered with another one)."""
    right = wrong = 0
    for n in numbers:
        res = cache.lookup(ASKED.format(n=n), threshold=THRESHOLD)
        right += res.hit and res.answer == f"invoice {n}"
        wrong += res.hit and res.answer != f"invoice {n}"
    return right, wrong


def test_paraphrases_of_templated_entries_find_the_entry_with_their_number(
        templated: tuple[Path, list[int]], embedder: Embedder) -> None:
    path, numbers = templated
    storage = open_storage(path)
    try:
        assert _served(SemanticCache(storage, embedder), numbers[:200]) == (200, 0)
    finally:
        storage.close()


def test_without_value_candidates_some_lookups_miss_because_every_neighbour_has_another_number(
        templated: tuple[Path, list[int]], embedder: Embedder) -> None:
    """The same set-up with the feature off: the case the feature exists for really occurs."""
    path, numbers = templated
    storage = open_storage(path)
    try:
        right, wrong = _served(SemanticCache(storage, embedder, CacheConfig(value_candidates=0)), numbers[:200])
    finally:
        storage.close()
    assert wrong == 0 and right < 200


def test_value_candidates_never_serve_an_entry_with_other_values(
        storage: SQLiteStorage | PostgresStorage, embedder: Embedder) -> None:
    cache = SemanticCache(storage, embedder, CacheConfig(knn_k=1))
    cache.put("Refund order 123 please", "order 123 refunded")
    cache.put("Refund order 456 please", "order 456 refunded")
    assert cache.lookup("Please refund my order 456", threshold=0.3).answer == "order 456 refunded"
    assert not cache.lookup("Please refund my order 789", threshold=0.3).hit


# SQLite only: the column came with migration cache_0006 there; PostgreSQL's schema has it from the start.
def test_entries_written_before_the_values_key_existed_get_it_at_start_up(
        db_path: Path, embedder: Embedder) -> None:
    storage = open_storage(db_path)
    SemanticCache(storage, embedder).put_many(
        [{"prompt": STORED.format(n=n), "response": f"invoice {n}"} for n in range(1000, 1040)])
    with storage.atomic() as conn:  # as rows written by a version without the column
        conn.execute("UPDATE cache_entries SET values_key = NULL")
    storage.close()
    storage = open_storage(db_path)
    try:
        cache = SemanticCache(storage, embedder, CacheConfig(knn_k=1))
        keys = {r[0] for r in storage.query("SELECT values_key FROM cache_entries")}
        assert None not in keys and len(keys) == 40
        assert all(cache.lookup(ASKED.format(n=n), threshold=THRESHOLD).answer == f"invoice {n}"
                   for n in range(1000, 1040))
    finally:
        storage.close()


def test_values_key_is_empty_without_values_and_equal_for_equal_normalized_values() -> None:
    assert values_key("How do I reset my password?") == ""
    assert values_key("借五千元") == values_key("借 5000 元") != ""
    assert values_key("refund order 123") != values_key("refund order 124")


def _statements(storage: SQLiteStorage) -> list[str]:
    """Every SQL statement this thread's connection runs from now on (SQLite's own trace hook)."""
    seen: list[str] = []
    storage.connection().set_trace_callback(seen.append)
    return seen


# SQLite only: the statements are read off SQLite's trace hook.
def test_a_lookup_no_entry_can_answer_neither_extracts_the_querys_values_nor_reads_rows(
        db_path: Path, embedder: Embedder) -> None:
    """Why: on most lookups nothing reaches the threshold, and the value key of the query (an entity
    extraction) and the candidate rows were a fifth of a semantic lookup's CPU, spent for nothing."""
    from lastline.cache.slot_guard import extract_slots

    storage = open_storage(db_path)
    try:
        cache = SemanticCache(storage, embedder)
        cache.put_many([{"prompt": STORED.format(n=n), "response": f"invoice {n}"} for n in range(1000, 1020)])
        query = "How long do I bake sourdough bread at 230 degrees for 45 minutes?"
        extracted = extract_slots.cache_info().misses
        statements = _statements(storage)
        res = cache.lookup(query, mode="fallback")
        storage.connection().set_trace_callback(None)
        assert not res.hit and res.reason == "below_threshold" and res.best_similarity is not None
        assert not any("values_key =" in s or "seq IN" in s for s in statements), statements
        assert extract_slots.cache_info().misses == extracted  # the query's values were never extracted
        assert values_key(query)  # though it has some: the skip is not for want of values
    finally:
        storage.close()


def test_value_candidates_are_still_found_when_every_neighbour_reaches_the_threshold(
        db_path: Path, embedder: Embedder) -> None:
    """A partition small enough for exact search (no fuzzy scan of neighbours): when the k nearest all
    reach the threshold, an entry left out of them may be the one the guard accepts."""
    numbers = random.Random(5).sample(range(1000, 9999), 1000)
    storage = open_storage(db_path)
    try:
        entries = [{"prompt": STORED.format(n=n), "response": f"invoice {n}"} for n in numbers]
        SemanticCache(storage, embedder).put_many(entries)
        with_values = _served(SemanticCache(storage, embedder, CacheConfig(knn_k=4)), numbers[:200])
        without = _served(SemanticCache(storage, embedder, CacheConfig(knn_k=4, value_candidates=0)), numbers[:200])
    finally:
        storage.close()
    assert with_values == (200, 0)
    assert without[1] == 0 and without[0] < 200  # the right entry was outside the k nearest for some


def test_unseen_entries_may_pass_only_after_an_approximate_search_or_a_full_k_reaching_the_threshold() -> None:
    hits = [(1, 0.99), (2, 0.97), (3, 0.95)]
    assert not _unseen_may_pass(Nearest(hits, exhaustive=True), k=4, threshold=0.9)  # all were returned
    assert not _unseen_may_pass(Nearest(hits, exhaustive=True), k=3, threshold=0.96)  # the last is below
    assert _unseen_may_pass(Nearest(hits, exhaustive=True), k=3, threshold=0.95)
    assert _unseen_may_pass(Nearest(hits, exhaustive=False), k=3, threshold=0.99)  # HNSW may miss better ones
