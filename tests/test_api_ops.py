"""Liveness, readiness and the OpenAPI document."""

from __future__ import annotations

from pathlib import Path

import httpx
from _cache_questions import QUESTIONS
from conftest import LiveServer, start_server, stop_server
from fastapi.testclient import TestClient

from lastline import Embedder, SQLiteStorage, load_settings, normalize_text
from lastline.api import create_app
from lastline.cache import SemanticCache


def test_readyz_reports_model_and_every_tier_built(live_server: LiveServer) -> None:
    r = httpx.get(live_server.url("/readyz"))
    assert r.status_code == 200
    body = r.json()
    assert body["status"] == "ready"
    assert body["checks"] == {"started": True, "model_loaded": True, "cache_built": True,
                              "kb_built": True, "rules_built": True, "cache_warm": True, "kb_warm": True}


def test_a_server_says_ready_once_its_model_has_prepared_for_the_stored_prompts(tmp_path: Path,
                                                                                embedder: Embedder) -> None:
    storage = SQLiteStorage(tmp_path / "server.db")
    cache = SemanticCache(storage, embedder)
    for i, question in enumerate(QUESTIONS):
        cache.put(question, f"answer {i}")
    storage.close()
    model = embedder.load()._model  # type: ignore[attr-defined]
    words = {t for row in model.tokenize([normalize_text(q) for q in QUESTIONS]) for t in row}
    server = start_server(tmp_path)
    try:
        body = httpx.get(server.url("/readyz")).json()
    finally:
        stop_server(server)
    assert body["checks"]["cache_warm"] is True
    assert body["warm_tokens"] == len(words)  # a new process's memo is empty: every token of the prompts


def test_readyz_is_503_until_start_up_has_run(tmp_path: Path) -> None:
    app = create_app(load_settings(db=tmp_path / "x.db"))
    client = TestClient(app)  # no context manager: the lifespan (model load, index build) has not run
    r = client.get("/readyz")
    assert r.status_code == 503 and r.json()["status"] == "starting"
    assert client.get("/healthz").json() == {"status": "ok"}
    app.state.runtime.close()


def test_openapi_documents_the_fallback_contract(live_server: LiveServer) -> None:
    spec = httpx.get(live_server.url("/openapi.json")).json()
    fallback = spec["paths"]["/v1/fallback"]["post"]
    assert {"401", "404", "409", "413", "422"} <= set(fallback["responses"])
    props = spec["components"]["schemas"]["FallbackRequest"]["properties"]
    assert {"prompt", "context", "task", "text", "operation", "idempotency_key"} <= set(props)
    answer = spec["components"]["schemas"]["Answer"]["properties"]
    assert {"answer", "source", "confidence", "degradation_depth", "stale", "age_s", "similarity",
            "citations", "fields", "notice"} <= set(answer)
    assert httpx.get(live_server.url("/docs")).status_code == 200
