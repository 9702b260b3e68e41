"""The ladder under load: a tier whose bulkhead is full, or that overruns its timeout, is skipped."""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from _bulkheads import release_once_someone_waits

from lastline import Embedder, NoDegradedWrites, Overloaded, Settings, load_settings
from lastline.api import Runtime
from lastline.api.ladder.defaults import DeclaredDefault
from lastline.api.ladder.ladder import FallbackRequest, first_answer, run_ladder

PROMPT = "How do I reset my password?"


def _runtime(db_path: Path, **overrides: Any) -> Runtime:
    settings: Settings = load_settings(db=db_path, kb_english_embedder="none", **overrides)
    rt = Runtime.open(settings)
    rt.defaults.put(tenant="default", task="*", default=DeclaredDefault(answer="We are on it."))
    return rt


@pytest.fixture
def runtime(db_path: Path, embedder: Embedder) -> Iterator[Runtime]:
    rt = _runtime(db_path, limit_kb=1, queue_wait_s=0.05)
    yield rt
    rt.close()


def _last_path(rt: Runtime) -> str:
    rt.flush_telemetry()
    return str(rt.events.list(tenant="default")[0].path)


def test_a_full_kb_bulkhead_skips_the_kb_and_the_default_answers(runtime: Runtime) -> None:
    runtime.bulkheads["kb"].acquire("default")  # another request holds the KB's only slot
    try:
        answer = run_ladder(runtime, "default", FallbackRequest(prompt=PROMPT))
    finally:
        runtime.bulkheads["kb"].release("default")
    assert answer.source.value == "default"
    assert "kb:overloaded" in _last_path(runtime)  # after its 50 ms in the KB's line
    assert runtime.metrics.value("lastline_tier_skips_total", tier="kb", reason="overloaded") == 1
    assert runtime.bulkheads["kb"].stats().shed_wait == 1


def test_the_kb_rung_waits_in_the_kbs_line_and_answers_once_a_slot_comes_free(db_path: Path,
                                                                              embedder: Embedder) -> None:
    """Refused at once, a fallback whose only answer is the KB's got the default (or 404) while the
    KB's slots were busy for a few more milliseconds."""
    rt = _runtime(db_path, limit_kb=1, queue_wait_s=5.0)
    try:
        rt.kb.add_document(title="Passwords", text="To reset your password, open Settings and choose Reset password.")
        kb = rt.bulkheads["kb"]
        kb.acquire("default")  # another request holds the KB's only slot until the rung is in line
        release_once_someone_waits(kb, "default")
        answer = run_ladder(rt, "default", FallbackRequest(prompt=PROMPT))
        assert answer.source.value == "kb"
        assert kb.stats().waited == 1 and kb.stats().in_flight == 0
    finally:
        rt.close()


def test_a_tier_past_its_timeout_is_skipped_with_the_reason_in_the_event(db_path: Path, embedder: Embedder) -> None:
    # A prompt no other test embeds, so the session embedder's memo cannot answer it, and long enough
    # that its encode takes tens of milliseconds: a lookup of a few milliseconds can run start to end
    # while the waiting thread is still queued for the GIL (a 5 ms switch interval), and then its
    # answer is there, on time or not, when that thread looks.
    words = " ".join(uuid.uuid4().hex[:8] for _ in range(150))
    unseen = f"How do I reset the password of workspace {words}?"
    rt = _runtime(db_path, tier_timeout_s=1e-6)
    try:
        rt.cache.put("something else entirely", "x")
        answer = run_ladder(rt, "default", FallbackRequest(prompt=unseen))
        assert answer.source.value == "default"
        path = _last_path(rt)
        assert "cache:timeout" in path
        assert rt.metrics.value("lastline_tier_skips_total", tier="cache", reason="timeout") == 1
    finally:
        rt.close()


def test_a_request_past_its_deadline_skips_every_bounded_tier(db_path: Path, embedder: Embedder) -> None:
    rt = _runtime(db_path, request_deadline_s=1e-9)
    try:
        answer = run_ladder(rt, "default", FallbackRequest(prompt=PROMPT))
        assert answer.source.value == "default"
        assert _last_path(rt).split() == ["cache:timeout", "rules:timeout", "kb:timeout", "default:*"]
    finally:
        rt.close()


def test_bulkheads_are_built_from_the_settings(runtime: Runtime) -> None:
    assert {name: b.limit for name, b in runtime.bulkheads.items()} == {
        "cache": 160, "semantic": 144, "kb": 1, "rules": 8, "writes": 8, "ladder": 32}  # SQLite's defaults
    assert {name: b.queue for name, b in runtime.bulkheads.items() if b.queue} == {"kb": 32, "writes": 32}
    runtime.bulkheads["kb"].acquire("default")
    with pytest.raises(Overloaded):
        runtime.bulkheads["kb"].acquire("default")
    runtime.bulkheads["kb"].release("default")


@pytest.fixture
def semantic_full(db_path: Path, embedder: Embedder) -> Iterator[Runtime]:
    """A runtime whose one slot past the exact key another request holds."""
    rt = _runtime(db_path, limit_semantic=1)
    rt.bulkheads["semantic"].acquire("default")
    yield rt
    rt.bulkheads["semantic"].release("default")
    rt.close()


def test_with_every_slot_past_the_exact_key_taken_exact_hits_are_still_served(semantic_full: Runtime) -> None:
    entry = semantic_full.cache.put(PROMPT, "Use the reset link.")
    res = semantic_full.cache.lookup(PROMPT)
    assert res.hit and res.layer == "exact" and res.entry_id == entry
    with pytest.raises(Overloaded) as refused:
        semantic_full.cache.lookup("How can I reset my password?")
    assert refused.value.extra["limit"] == "semantic" and refused.value.reason == "full"
    semantic_full.bulkheads["semantic"].release("default")  # the slot is free again: the same lookup runs
    try:
        assert semantic_full.cache.lookup("How can I reset my password?", mode="fallback").best_similarity
    finally:
        semantic_full.bulkheads["semantic"].acquire("default")
    assert semantic_full.bulkheads["semantic"].stats().in_flight == 1  # the refused and the run one gave theirs back


def test_with_every_slot_past_the_exact_key_taken_the_ladder_skips_the_cache(semantic_full: Runtime) -> None:
    answer = run_ladder(semantic_full, "default", FallbackRequest(prompt="How can I reset my password?"))
    assert answer.source.value == "default"
    assert "cache:overloaded" in _last_path(semantic_full)


def test_an_expired_exact_answer_beats_a_refusal_in_fallback_mode(semantic_full: Runtime) -> None:
    semantic_full.cache.put(PROMPT, "Use the reset link.", ttl_s=1)
    time.sleep(1.1)
    res = semantic_full.cache.lookup(PROMPT, mode="fallback")
    assert res.hit and res.stale and res.layer == "exact" and res.confidence == "low"
    with pytest.raises(Overloaded):  # intercept mode never serves it stale: refused as any other lookup
        semantic_full.cache.lookup(PROMPT)


def test_first_look_refuses_at_once_a_lookup_that_needs_a_slot_past_the_exact_key(semantic_full: Runtime) -> None:
    """What the server decides on its event loop, before any thread: an exact hit is served, an unseen
    question is refused (counted, no slot taken), and an expired exact answer in fallback mode is
    left to the lookup, which serves it stale rather than refuse."""
    semantic = semantic_full.bulkheads["semantic"]
    entry = semantic_full.cache.put(PROMPT, "Use the reset link.")
    hit = semantic_full.cache.first_look(PROMPT)
    assert hit is not None and hit.hit and hit.entry_id == entry
    shed_before = semantic.stats().shed_full
    with pytest.raises(Overloaded) as refused:
        semantic_full.cache.first_look("How can I reset my password?")
    assert refused.value.extra["limit"] == "semantic" and refused.value.reason == "full"
    assert semantic.stats().shed_full == shed_before + 1 and semantic.stats().in_flight == 1
    semantic.release("default")  # with the slot free, the question goes on to the lookup
    try:
        assert semantic_full.cache.first_look("How can I reset my password?") is None
    finally:
        semantic.acquire("default")

    semantic_full.cache.put("How do I change my email?", "Settings, then Account.", ttl_s=1)
    time.sleep(1.1)
    assert semantic_full.cache.first_look("How do I change my email?", mode="fallback") is None
    with pytest.raises(Overloaded):  # intercept mode never serves it stale
        semantic_full.cache.first_look("How do I change my email?")


def _counts(rt: Runtime) -> tuple[float, float, float]:
    m = rt.metrics
    return (m.value("lastline_answers_total", source="cache", confidence="high"),
            m.value("lastline_cache_lookups_total", layer="exact", result="hit"),
            m.value("lastline_fallback_total", outcome="answered"))


def test_first_answer_serves_a_fresh_exact_hit_as_the_ladder_would_without_a_cache_slot(
        db_path: Path, embedder: Embedder) -> None:
    """What the server answers on its event loop before the ladder's thread: one read, no bulkhead slot,
    and the same answer, event and counts as the ladder's own exact hit."""
    rt = _runtime(db_path, limit_cache=1)
    try:
        entry = rt.cache.put(PROMPT, "Use the reset link.")
        ladder = run_ladder(rt, "default", FallbackRequest(prompt=PROMPT))
        rt.bulkheads["cache"].acquire("default")  # every cache slot taken: the ladder itself skips the cache
        try:
            assert run_ladder(rt, "default", FallbackRequest(prompt=PROMPT)).source.value == "default"
            counts = _counts(rt)
            first = first_answer(rt, "default", FallbackRequest(prompt="  how do I RESET my password"))
        finally:
            rt.bulkheads["cache"].release("default")
        assert first is not None and first.entry_id == entry
        assert first.model_dump(exclude={"age_s"}) == ladder.model_dump(exclude={"age_s"})
        assert _counts(rt) == tuple(c + 1 for c in counts)
        rt.flush_telemetry()
        newest = rt.events.list(tenant="default")[0]
        assert (newest.tier, newest.path, newest.entry_id, newest.route) == ("exact", "cache:exact", entry, "fallback")
        assert rt.cache.get(entry)["hit_count"] == 2  # the ladder's and the first answer's, not the skipped one
    finally:
        rt.close()


def test_first_answer_leaves_everything_but_an_exact_hit_to_the_ladder_with_nothing_recorded(
        runtime: Runtime) -> None:
    runtime.cache.put("How do I change my email?", "Settings, then Account.", ttl_s=1)
    time.sleep(1.1)
    runtime.flush_telemetry()
    lookups, counts = runtime.cache.stats()["lookups"], _counts(runtime)
    for req in (FallbackRequest(prompt=PROMPT),  # unseen: the semantic layer and the rungs below
                FallbackRequest(prompt=PROMPT, exact_only=True),  # an exact-only miss: the rungs below
                FallbackRequest(prompt="How do I change my email?")):  # expired: the ladder serves it stale
        assert first_answer(runtime, "default", req) is None
    runtime.flush_telemetry()
    assert runtime.cache.stats()["lookups"] == lookups and _counts(runtime) == counts
    assert runtime.events.list(tenant="default") == []
    stale = run_ladder(runtime, "default", FallbackRequest(prompt="How do I change my email?"))
    assert stale.stale and stale.source.value == "cache"


def test_first_answer_refuses_writes_and_side_effect_tasks_with_their_keys(runtime: Runtime) -> None:
    runtime.cache.put("Transfer 100 EUR to Bob", "Done.")
    runtime.defaults.put(tenant="default", task="pay", default=DeclaredDefault(side_effects=True))
    for req, path in ((FallbackRequest(prompt="Transfer 100 EUR to Bob", operation="write", idempotency_key="k1"),
                       "guard:write"),
                      (FallbackRequest(prompt="Transfer 100 EUR to Bob", task="pay", idempotency_key="k2"),
                       "guard:side_effects")):
        with pytest.raises(NoDegradedWrites) as refused:
            first_answer(runtime, "default", req)
        assert refused.value.extra["idempotency_key"] == req.idempotency_key
        assert _last_path(runtime) == path


@pytest.mark.backends("postgresql")
def test_first_answer_never_reads_a_database_across_the_network(
        pg_urls: tuple[str, str], embedder: Embedder) -> None:
    app, owner = pg_urls
    rt = Runtime.open(load_settings(database_url=app, database_owner_url=owner, kb_english_embedder="none"))
    try:
        rt.cache.put(PROMPT, "Use the reset link.")
        assert first_answer(rt, "default", FallbackRequest(prompt=PROMPT)) is None
        assert first_answer(rt, "default", FallbackRequest(prompt=PROMPT, operation="write")) is None
        assert run_ladder(rt, "default", FallbackRequest(prompt=PROMPT)).layer == "exact"
    finally:
        rt.close()


def test_a_lookup_writes_nothing_until_the_writer_flushes(db_path: Path, embedder: Embedder) -> None:
    rt = Runtime.open(load_settings(db=db_path, kb_english_embedder="none", writer_interval_s=10), background=True)
    try:
        entry = rt.cache.put(PROMPT, "Use the reset link.")
        answer = run_ladder(rt, "default", FallbackRequest(prompt=PROMPT))
        assert answer.entry_id == entry
        stored = rt.cache.store.by_id("default", entry)  # the store itself: the cache's own reads flush first
        assert stored is not None and stored.to_dict()["hit_count"] == 0  # bookkeeping and the event wait
        assert rt.events.list(tenant="default") == []
        assert rt.writer.stats().written == 0
        rt.flush_telemetry()
        assert rt.cache.get(entry)["hit_count"] == 1
        assert [e.tier for e in rt.events.list(tenant="default")] == ["exact"]
        assert rt.writer.stats().written == 2
    finally:
        rt.close()


def test_close_writes_the_queued_telemetry(db_path: Path, embedder: Embedder) -> None:
    rt = Runtime.open(load_settings(db=db_path, kb_english_embedder="none", writer_interval_s=10), background=True)
    entry = rt.cache.put(PROMPT, "Use the reset link.")
    for _ in range(5):
        rt.cache.lookup(PROMPT)
    rt.close()
    again = Runtime.open(load_settings(db=db_path, kb_english_embedder="none"))
    try:
        assert again.cache.get(entry)["hit_count"] == 5
    finally:
        again.close()
