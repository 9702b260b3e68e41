"""``/metrics`` exposes the promised names, and they count what the API did."""

from __future__ import annotations

import gc

import httpx
import pytest
from conftest import LiveServer
from prometheus_client.parser import text_string_to_metric_families

from lastline.api.app import GC_YOUNG_THRESHOLD, freeze_startup_heap
from lastline.api.ladder.metrics import Metrics


@pytest.fixture
def server(live_server: LiveServer) -> LiveServer:
    """The shared server: every assertion below is on a difference, so earlier traffic is fine."""
    return live_server


def samples(server: LiveServer) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    r = httpx.get(server.url("/metrics"))
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/plain")
    out = {}
    for family in text_string_to_metric_families(r.text):
        for s in family.samples:
            out[(s.name, tuple(sorted(s.labels.items())))] = s.value
    return out


def value(all_samples: dict, name: str, **labels: str) -> float:
    return all_samples.get((name, tuple(sorted(labels.items()))), 0.0)


def test_metric_names_from_the_design_are_exposed(server: LiveServer) -> None:
    text = httpx.get(server.url("/metrics")).text
    for name in ("lastline_cache_lookups_total", "lastline_lookup_duration_seconds", "lastline_answers_total",
                 "lastline_cache_entries", "lastline_http_requests_total", "lastline_fallback_total",
                 "lastline_gc_pause_seconds"):
        assert f"# TYPE {name.removesuffix('_total')}" in text, name


def test_lookups_answers_and_entries_are_counted(server: LiveServer) -> None:
    before = samples(server)
    prompt = "What is the metrics test's favourite number?"
    httpx.post(server.url("/v1/cache/entries"), json={"prompt": prompt, "response": "4"}).raise_for_status()
    assert httpx.post(server.url("/v1/fallback"), json={"prompt": prompt.lower()}).json()["answer"] == "4"
    assert httpx.post(server.url("/v1/cache/lookup"), json={"prompt": "unrelated words here"}).json()["hit"] is False
    assert httpx.post(server.url("/v1/fallback"), json={"prompt": "x", "operation": "write"}).status_code == 409
    after = samples(server)

    def delta(name: str, **labels: str) -> float:
        return value(after, name, **labels) - value(before, name, **labels)

    assert delta("lastline_cache_lookups_total", layer="exact", result="hit") == 1
    assert delta("lastline_cache_lookups_total", layer="exact", result="miss") == 1
    assert delta("lastline_cache_lookups_total", layer="semantic", result="miss") == 1
    assert delta("lastline_answers_total", source="cache", confidence="high") == 1
    assert delta("lastline_fallback_total", outcome="refused_write") == 1
    assert delta("lastline_lookup_duration_seconds_count", endpoint="fallback") == 1
    assert delta("lastline_lookup_duration_seconds_count", endpoint="cache") == 1
    assert delta("lastline_cache_entries", tenant="default") == 1
    assert delta("lastline_http_requests_total", method="POST", route="/v1/fallback", status="409") == 1


def test_the_server_times_its_garbage_collections(server: LiveServer) -> None:
    # the collection that precedes the start-up freeze is the first one timed: a full one
    assert value(samples(server), "lastline_gc_pause_seconds_count", generation="2") >= 1
    text = httpx.get(server.url("/metrics")).text
    for generation in "012":
        assert f'lastline_gc_pause_seconds_count{{generation="{generation}"}}' in text


def test_watch_gc_observes_each_collection_by_generation_until_stopped() -> None:
    metrics = Metrics()
    stop = metrics.watch_gc()
    try:
        gc.collect()
        assert metrics.value("lastline_gc_pause_seconds_count", generation="2") >= 1
        assert metrics.value("lastline_gc_pause_seconds_sum", generation="2") > 0
    finally:
        stop()
    seen = metrics.value("lastline_gc_pause_seconds_count", generation="2")
    gc.collect()
    assert metrics.value("lastline_gc_pause_seconds_count", generation="2") == seen


def test_start_up_heap_is_frozen_and_young_collections_are_rarer() -> None:
    threshold = gc.get_threshold()
    try:
        freeze_startup_heap()
        assert gc.get_freeze_count() > 1000  # this test process's modules, at the least
        assert gc.get_threshold() == (GC_YOUNG_THRESHOLD, *threshold[1:])
    finally:
        gc.unfreeze()
        gc.set_threshold(*threshold)
