"""No lookup, in any layer and any mode, returns another tenant's (or another context's) entry."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lastline import Embedder, PostgresStorage, SQLiteStorage
from lastline.cache import CacheConfig, SemanticCache

pytestmark = pytest.mark.backends("sqlite", "postgresql")

TENANTS = ["acme", "globex", "initech"]
PROMPTS = [
    "How do I reset my password?", "How can I reset my password?", "How do I reset my pasword?",
    "What is the refund window?", "What's the refund window?", "我想借五千元", "我想借五千元？",
    "Where is my parcel?", "where is my parcel", "Book 2 tickets to Paris",
]


@pytest.fixture
def shared_cache(storage: SQLiteStorage | PostgresStorage, backend: str, embedder: Embedder) -> SemanticCache:
    """One cache for all of a test's examples: entries of earlier examples stay, as in a real service.

    On PostgreSQL with kNN in the database (no FAISS partitions): there the SQL filters and the
    row-level security alone keep tenants and contexts apart; the FAISS path is the SQLite run's.
    """
    index = "store" if backend == "postgresql" else "faiss"
    return SemanticCache(storage, embedder, CacheConfig(fuzzy_scan_limit=3, vector_index=index))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    writes=st.lists(st.tuples(st.sampled_from(TENANTS), st.sampled_from(PROMPTS), st.sampled_from([None, "c1"])),
                    min_size=1, max_size=6),
    probe=st.tuples(st.sampled_from(TENANTS), st.sampled_from(PROMPTS), st.sampled_from([None, "c1"])),
    mode=st.sampled_from(["intercept", "fallback"]),
    threshold=st.sampled_from([None, 0.0, 0.5]),
)
def test_no_lookup_crosses_a_tenant_or_context(shared_cache: SemanticCache, writes, probe, mode, threshold) -> None:  # type: ignore[no-untyped-def]
    owner: dict[str, tuple[str, object]] = {}
    for tenant, prompt, context in writes:
        entry = shared_cache.put(prompt, f"{tenant}:{prompt}", tenant=tenant, context=context)
        owner[entry] = (tenant, context)
    tenant, prompt, context = probe
    res = shared_cache.lookup(prompt, tenant=tenant, context=context, mode=mode, threshold=threshold)
    if res.hit:
        assert res.answer is not None and res.answer.startswith(f"{tenant}:")
        got = shared_cache.get(res.entry_id, tenant=tenant)  # type: ignore[arg-type]
        assert got["id"] == res.entry_id
        if res.entry_id in owner:
            assert owner[res.entry_id] == (tenant, context)
    found, _ = shared_cache.score(prompt, tenant=tenant, context=context)
    if found is not None:
        shared_cache.get(found, tenant=tenant)  # raises NotFound if it belonged to someone else
    for other in TENANTS:
        if other != tenant:
            for entry in owner:
                assert not shared_cache.delete(entry, tenant=other) or owner[entry][0] == other


def test_tenant_cannot_read_delete_or_give_feedback_on_another_tenants_entry(shared_cache: SemanticCache) -> None:
    from lastline import NotFound

    entry = shared_cache.put("private question", "secret", tenant="acme")
    res = shared_cache.lookup("private question", tenant="acme")
    with pytest.raises(NotFound):
        shared_cache.get(entry, tenant="globex")
    with pytest.raises(NotFound):
        shared_cache.feedback(tenant="globex", correct=False, entry_id=entry)
    with pytest.raises(NotFound):
        shared_cache.feedback(tenant="globex", correct=False, lookup_id=res.lookup_id)
    assert shared_cache.invalidate(tenant="globex", everything=True) >= 0
    assert shared_cache.get(entry, tenant="acme")["response"] == "secret"
    assert not shared_cache.lookup("private question", tenant="globex", mode="fallback", threshold=0.0).hit
