"""API keys map to tenants; the ladder, events and defaults never cross a tenant."""

from __future__ import annotations

import httpx
import pytest
from conftest import LiveServer

A = {"Authorization": "Bearer key-a"}  # tenant acme
B = {"Authorization": "Bearer key-b"}  # tenant globex

pytestmark = pytest.mark.backends("sqlite", "postgresql")


@pytest.mark.parametrize("path", ["/v1/fallback", "/v1/events", "/v1/defaults", "/v1/reports/hit-rate"])
def test_missing_key_is_401(tenant_server: LiveServer, path: str) -> None:
    method = "POST" if path == "/v1/fallback" else "GET"
    r = httpx.request(method, tenant_server.url(path), json={"prompt": "hi"} if method == "POST" else None)
    assert r.status_code == 401 and r.json()["error"] == "unauthorized"


def test_unknown_key_is_401(tenant_server: LiveServer) -> None:
    r = httpx.post(tenant_server.url("/v1/fallback"), json={"prompt": "hi"},
                   headers={"Authorization": "Bearer nope"})
    assert r.status_code == 401 and r.json()["detail"] == "unknown API key"


def test_wrong_scheme_is_401(tenant_server: LiveServer) -> None:
    r = httpx.post(tenant_server.url("/v1/fallback"), json={"prompt": "hi"}, headers={"Authorization": "key-a"})
    assert r.status_code == 401


def test_health_and_metrics_need_no_key(tenant_server: LiveServer) -> None:
    for path in ("/healthz", "/readyz", "/metrics", "/dashboard"):
        assert httpx.get(tenant_server.url(path)).status_code == 200


def test_ladder_answers_only_from_the_callers_tenant(tenant_server: LiveServer) -> None:
    prompt = "What is the acme wifi password?"
    httpx.post(tenant_server.url("/v1/cache/entries"), json={"prompt": prompt, "response": "hunter2"},
               headers=A).raise_for_status()
    got = httpx.post(tenant_server.url("/v1/fallback"), json={"prompt": prompt}, headers=A)
    assert got.status_code == 200 and got.json()["answer"] == "hunter2"
    other = httpx.post(tenant_server.url("/v1/fallback"), json={"prompt": prompt}, headers=B)
    assert other.status_code == 404 and other.json()["error"] == "no_fallback_answer"


def test_defaults_and_events_are_per_tenant(tenant_server: LiveServer) -> None:
    httpx.put(tenant_server.url("/v1/defaults/billing"), json={"answer": "acme billing is down"},
              headers=A).raise_for_status()
    assert "billing" in httpx.get(tenant_server.url("/v1/defaults"), headers=A).json()["defaults"]
    assert "billing" not in httpx.get(tenant_server.url("/v1/defaults"), headers=B).json()["defaults"]
    r = httpx.post(tenant_server.url("/v1/fallback"), json={"prompt": "invoice?", "task": "billing"}, headers=B)
    assert r.status_code == 404
    events_b = httpx.get(tenant_server.url("/v1/events"), headers=B).json()["events"]
    assert events_b and all(e["tenant"] == "globex" for e in events_b)
    events_a = httpx.get(tenant_server.url("/v1/events"), headers=A).json()["events"]
    assert all(e["tenant"] == "acme" for e in events_a)
