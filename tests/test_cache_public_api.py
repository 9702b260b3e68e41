"""The public names of lastline.cache are pinned: removing or renaming one is a deliberate act."""

from __future__ import annotations

import lastline.cache as cache

EXPECTED = {
    "DEFAULT_FUZZY_MIN_RATIO", "DEFAULT_HNSW_THRESHOLD", "DEFAULT_KNN_K", "DEFAULT_MAX_BYTES",
    "DEFAULT_MAX_ENTRIES", "DEFAULT_TTL_S", "SHIPPED_THRESHOLDS", "CacheConfig", "LookupResult",
    "SemanticCache", "SlotGuard", "SyncReport", "Threshold", "context_hash", "default_threshold", "extract_slots",
    "slot_guard_ok",
}
CONTRACT_METHODS = {
    "put", "put_many", "lookup", "score", "delete", "invalidate", "feedback", "stats", "get_threshold",
    "set_threshold", "slot_guard_ok", "fuzzy_match", "get", "count", "rebuild", "reset_threshold", "sync",
}


def test_public_names_are_pinned_and_sorted() -> None:
    assert set(cache.__all__) >= EXPECTED
    assert list(cache.__all__) == sorted(cache.__all__, key=lambda n: (not n.isupper(), n))
    for name in cache.__all__:
        assert getattr(cache, name) is not None


def test_semantic_cache_has_the_contract_methods() -> None:
    missing = {m for m in CONTRACT_METHODS if not callable(getattr(cache.SemanticCache, m, None))}
    assert not missing


def test_lookup_result_carries_the_contract_fields() -> None:
    fields = set(cache.LookupResult.__dataclass_fields__)
    assert fields >= {"hit", "answer", "entry_id", "layer", "similarity", "confidence", "stale", "age_s",
                      "lookup_id", "reason", "best_similarity", "threshold"}
    assert set(cache.Threshold.__dataclass_fields__) >= {"value", "calibrated", "target", "bound",
                                                         "n_negatives", "model_id"}
