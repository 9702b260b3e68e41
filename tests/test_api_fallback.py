"""``POST /v1/fallback`` on a real server: the envelope's field names are the v1 contract."""

from __future__ import annotations

import httpx
import pytest
from conftest import LiveServer

ENVELOPE = {"answer", "source", "confidence", "degradation_depth", "stale", "age_s", "similarity",
            "citations", "fields", "notice"}

pytestmark = pytest.mark.backends("sqlite", "postgresql")


def test_cache_answer_carries_the_full_envelope(live_server: LiveServer) -> None:
    prompt = "Which port does the fallback API listen on by default?"
    httpx.post(live_server.url("/v1/cache/entries"), json={"prompt": prompt, "response": "8765"}).raise_for_status()
    r = httpx.post(live_server.url("/v1/fallback"), json={"prompt": prompt.upper()})
    assert r.status_code == 200
    body = r.json()
    assert set(body) >= ENVELOPE
    assert body["answer"] == "8765" and body["source"] == "cache" and body["degradation_depth"] == 0
    assert body["confidence"] == "high" and body["stale"] is False and body["age_s"] >= 0


def test_rules_answer_over_http_has_fields(live_server: LiveServer) -> None:
    text = "Party A: Acme Corp\nParty B: Globex Ltd\nEffective Date: March 1, 2024\nThis agreement ..."
    r = httpx.post(live_server.url("/v1/fallback"),
                   json={"prompt": "Extract the parties of this agreement", "task": "contract_en", "text": text})
    assert r.status_code == 200, r.text
    body = r.json()
    assert (body["source"], body["degradation_depth"], body["confidence"]) == ("rules", 2, "medium")
    assert body["fields"]["party_a"] == "Acme Corp"


def test_write_refusal_body_is_exactly_error_detail_and_key(live_server: LiveServer) -> None:
    r = httpx.post(live_server.url("/v1/fallback"),
                   json={"prompt": "grant admin to eve", "operation": "write", "idempotency_key": "g-1"})
    assert r.status_code == 409
    assert set(r.json()) == {"error", "detail", "idempotency_key"}
    assert r.json()["error"] == "no_degraded_writes" and r.json()["idempotency_key"] == "g-1"


def test_unanswerable_is_404_no_fallback_answer(live_server: LiveServer) -> None:
    r = httpx.post(live_server.url("/v1/fallback"), json={"prompt": "zxqv unanswerable 98123", "task": "nothing"})
    assert r.status_code == 404 and r.json()["error"] == "no_fallback_answer"


def test_the_rungs_fit_in_the_callers_budget_and_the_default_answers_in_time(live_server: LiveServer) -> None:
    """A caller that waits 1 µs (``X-Lastline-Budget-Ms: 0.001``) leaves the rungs with a tier no time:
    each is skipped as timed out, and the declared default answers; a malformed budget is a 422 naming
    the header. (The cache's first look, on the event loop before them, is not a tier call. A budget of
    1 ms was not enough: a rung that began within 0.9 ms of the request's arrival could finish in what
    was left of it.)"""
    text = "Party A: Initech LLC\nParty B: Hooli Inc\nEffective Date: June 1, 2024\nThis agreement ..."
    body = {"prompt": "Extract the parties of this agreement", "task": "contract_en", "text": text}
    httpx.put(live_server.url("/v1/defaults/contract_en"),
              json={"answer": "Contract reading is unavailable; try again later."}).raise_for_status()
    assert httpx.post(live_server.url("/v1/fallback"), json=body).json()["source"] == "rules"
    r = httpx.post(live_server.url("/v1/fallback"), json=body, headers={"X-Lastline-Budget-Ms": "0.001"})
    assert r.status_code == 200, r.text
    assert r.json()["source"] == "default"
    path = httpx.get(live_server.url("/v1/events"), params={"limit": 1}).json()["events"][0]["path"]
    assert path.split()[1:3] == ["rules:timeout", "kb:timeout"], path
    malformed = httpx.post(live_server.url("/v1/fallback"), json=body, headers={"X-Lastline-Budget-Ms": "-5"})
    assert malformed.status_code == 422 and "x-lastline-budget-ms" in malformed.json()["detail"]
