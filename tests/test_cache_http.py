"""``/v1/cache/*`` against a real ``lastline serve`` process."""

from __future__ import annotations

import uuid

import httpx
import pytest
from conftest import LiveServer

pytestmark = pytest.mark.backends("sqlite", "postgresql")


def _ctx() -> str:
    return f"test-{uuid.uuid4().hex}"  # the session server is shared: each test gets its own context


def test_put_then_lookup_exact_and_feedback_and_delete(live_server: LiveServer) -> None:
    ctx = _ctx()
    created = httpx.post(live_server.url("/v1/cache/entries"),
                         json={"prompt": "What is the refund window?", "response": "30 days", "context": ctx,
                               "tags": ["faq"], "metadata": {"source": "test"}})
    assert created.status_code == 201
    entry = created.json()["id"]
    found = httpx.post(live_server.url("/v1/cache/lookup"),
                       json={"prompt": "what is the refund window", "context": ctx})
    body = found.json()
    assert found.status_code == 200
    assert {k: body[k] for k in ("hit", "answer", "entry_id", "layer", "similarity", "confidence", "stale")} == {
        "hit": True, "answer": "30 days", "entry_id": entry, "layer": "exact", "similarity": 1.0,
        "confidence": "high", "stale": False}
    assert body["age_s"] >= 0
    fb = httpx.post(live_server.url("/v1/cache/feedback"), json={"lookup_id": body["lookup_id"], "correct": False})
    assert fb.status_code == 204 and fb.content == b""
    assert httpx.get(live_server.url(f"/v1/cache/entries/{entry}")).json()["hit_count"] == 1
    assert httpx.delete(live_server.url(f"/v1/cache/entries/{entry}")).json() == {"deleted": 1}
    assert httpx.delete(live_server.url(f"/v1/cache/entries/{entry}")).status_code == 404
    miss = httpx.post(live_server.url("/v1/cache/lookup"),
                      json={"prompt": "What is the refund window?", "context": ctx})
    assert miss.json()["hit"] is False and miss.json()["reason"] == "empty"


def test_semantic_lookup_in_fallback_mode_with_a_threshold(live_server: LiveServer) -> None:
    ctx = {"system": _ctx(), "tools": ["search"]}
    httpx.post(live_server.url("/v1/cache/entries"),
               json={"prompt": "How do I reset my password?", "response": "Use the link.", "context": ctx})
    res = httpx.post(live_server.url("/v1/cache/lookup"),
                     json={"prompt": "How can I reset my password?", "context": ctx, "mode": "fallback",
                           "threshold": 0.9}).json()
    assert res["hit"] and res["layer"] == "semantic" and res["confidence"] in ("high", "medium")
    value_changed = httpx.post(live_server.url("/v1/cache/lookup"),
                               json={"prompt": "How do I reset my 2 passwords?", "context": ctx,
                                     "mode": "fallback", "threshold": 0.5}).json()
    assert not value_changed["hit"] and value_changed["reason"] == "slot_mismatch"


def test_invalidate_by_tags_and_context_returns_counts(live_server: LiveServer) -> None:
    ctx = _ctx()
    for n in range(3):
        httpx.post(live_server.url("/v1/cache/entries"),
                   json={"prompt": f"question {n}", "response": "x", "context": ctx, "tags": [f"t{n % 2}"]})
    gone = httpx.post(live_server.url("/v1/cache/invalidate"), json={"tags": ["t0"], "context": ctx})
    assert gone.json() == {"deleted": 2}
    assert httpx.post(live_server.url("/v1/cache/invalidate"), json={"context": ctx}).json() == {"deleted": 1}
    assert httpx.post(live_server.url("/v1/cache/invalidate"), json={}).status_code == 422


def test_stats_report_layers_hit_rate_and_calibration(live_server: LiveServer) -> None:
    stats = httpx.get(live_server.url("/v1/cache/stats")).json()
    for key in ("hits", "misses", "hit_rate", "entries", "calibrated", "threshold", "lookups"):
        assert key in stats
    assert set(stats["hits"]) == {"exact", "fuzzy", "semantic"}
    assert stats["calibrated"] is False
    assert httpx.get(live_server.url("/v1/cache/stats"), params={"window_s": 60}).json()["window_s"] == 60
    assert httpx.get(live_server.url("/v1/cache/stats"), params={"window_s": -1}).status_code == 422


@pytest.mark.parametrize(
    ("path", "body", "status"),
    [
        ("/v1/cache/entries", {"prompt": "", "response": "x"}, 422),
        ("/v1/cache/entries", {"prompt": "   ", "response": "x"}, 422),
        ("/v1/cache/entries", {"prompt": "x" * 40_000, "response": "x"}, 422),  # names max_prompt_chars
        ("/v1/cache/entries", {"prompt": "q", "response": "x", "ttl_s": 0}, 422),
        ("/v1/cache/entries", {"prompt": "q", "response": "x", "ttl_s": "soon"}, 422),
        ("/v1/cache/entries", {"prompt": "q"}, 422),
        ("/v1/cache/lookup", {"prompt": ""}, 422),
        # blank past the loop's first look (2,000 characters): refused from the lookup rounds (SQLite)
        # or the request thread (PostgreSQL)
        ("/v1/cache/lookup", {"prompt": " \n" * 1_500}, 422),
        ("/v1/cache/lookup", {"prompt": "q", "threshold": 1.2}, 422),
        ("/v1/cache/lookup", {"prompt": "q", "threshold": -0.5}, 422),
        ("/v1/cache/lookup", {"prompt": "q", "mode": "sometimes"}, 422),
        ("/v1/cache/feedback", {"correct": True}, 422),
        ("/v1/cache/feedback", {"correct": True, "entry_id": "nope"}, 404),
        ("/v1/cache/feedback", {"correct": True, "lookup_id": "nope"}, 404),
    ],
)
def test_bad_input_gets_a_clear_4xx(live_server: LiveServer, path: str, body: dict, status: int) -> None:  # type: ignore[type-arg]
    res = httpx.post(live_server.url(path), json=body)
    assert res.status_code == status, res.text
    assert set(res.json()) >= {"error", "detail"}


def test_tenants_are_isolated_and_unknown_keys_get_401(tenant_server: LiveServer) -> None:
    a = {"Authorization": "Bearer key-a"}
    b = {"Authorization": "Bearer key-b"}
    prompt = f"What is our secret plan {uuid.uuid4().hex[:6]}?"
    entry = httpx.post(tenant_server.url("/v1/cache/entries"), headers=a,
                       json={"prompt": prompt, "response": "acme only"}).json()["id"]
    assert httpx.post(tenant_server.url("/v1/cache/lookup"), headers=a, json={"prompt": prompt}).json()["hit"]
    other = httpx.post(tenant_server.url("/v1/cache/lookup"), headers=b,
                       json={"prompt": prompt, "mode": "fallback", "threshold": 0.0}).json()
    assert other["hit"] is False
    assert httpx.get(tenant_server.url(f"/v1/cache/entries/{entry}"), headers=b).status_code == 404
    assert httpx.delete(tenant_server.url(f"/v1/cache/entries/{entry}"), headers=b).status_code == 404
    for headers in ({}, {"Authorization": "Bearer wrong"}):
        assert httpx.post(tenant_server.url("/v1/cache/lookup"), headers=headers,
                          json={"prompt": prompt}).status_code == 401
        assert httpx.get(tenant_server.url("/v1/cache/stats"), headers=headers).status_code == 401
