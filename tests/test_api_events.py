"""Degradation events over HTTP: recorded per fallback request, hashes only unless opted in."""

from __future__ import annotations

import time
from collections.abc import Iterator

import httpx
import psycopg
import pytest
from conftest import LiveServer, server_database, start_server, stop_server

from lastline import normalize_text, text_hash

SECRET = "What is the salary of employee 4711?"


pytestmark = pytest.mark.backends("sqlite", "postgresql")


@pytest.fixture(scope="module")
def content_server(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory,
                   backend: str) -> Iterator[LiveServer]:
    env = {**server_database(request, backend), "LASTLINE_LOG_CONTENT": "true"}
    server = start_server(tmp_path_factory.mktemp("content"), env)
    yield server
    stop_server(server)


def _latest(server: LiveServer, **params: object) -> list[dict]:
    r = httpx.get(server.url("/v1/events"), params=params)
    assert r.status_code == 200, r.text
    return r.json()["events"]


def test_events_store_hash_and_ids_but_no_text_by_default(live_server: LiveServer) -> None:
    httpx.put(live_server.url("/v1/defaults/salary"), json={"answer": "HR is offline."}).raise_for_status()
    r = httpx.post(live_server.url("/v1/fallback"),
                   json={"prompt": SECRET, "task": "salary", "reason": "upstream_429"})
    assert r.status_code == 200 and r.json()["source"] == "default"
    event = _latest(live_server, limit=1)[0]
    assert event["prompt_hash"] == text_hash(normalize_text(SECRET))
    assert (event["tier"], event["depth"], event["confidence"]) == ("default", 4, "low")
    assert (event["reason"], event["task"], event["entry_id"]) == ("upstream_429", "salary", "default:salary")
    assert event["prompt"] is None and event["answer"] is None
    if live_server.db is not None:  # SQLite: nowhere in the file's bytes
        raw = live_server.db.read_bytes() + (live_server.db.parent / "server.db-wal").read_bytes()
        assert b"employee 4711" not in raw
    else:  # PostgreSQL: no stored event of any tenant carries text (read as the owner)
        with psycopg.connect(live_server.owner_url) as conn:
            assert conn.execute("SELECT count(*) FROM api_events WHERE prompt IS NOT NULL"
                                " OR answer IS NOT NULL").fetchone() == (0,)


def test_events_keep_text_when_operator_opts_in(content_server: LiveServer) -> None:
    httpx.put(content_server.url("/v1/defaults/*"), json={"answer": "Offline."}).raise_for_status()
    httpx.post(content_server.url("/v1/fallback"), json={"prompt": SECRET}).raise_for_status()
    event = _latest(content_server, limit=1)[0]
    assert event["prompt"] == SECRET and event["answer"] == "Offline."


def test_refused_writes_and_unanswered_requests_are_events_too(content_server: LiveServer) -> None:
    r = httpx.post(content_server.url("/v1/fallback"),
                   json={"prompt": "delete account 9", "operation": "write", "idempotency_key": "del-9"})
    assert r.status_code == 409 and r.json()["idempotency_key"] == "del-9"
    event = _latest(content_server, limit=1)[0]
    assert event["tier"] == "refused" and event["path"] == "guard:write" and event["depth"] is None


def test_events_limit_and_since_filter(content_server: LiveServer) -> None:
    mark = time.time()
    time.sleep(0.01)
    for i in range(3):
        httpx.post(content_server.url("/v1/fallback"), json={"prompt": f"question {i}"}).raise_for_status()
    assert len(_latest(content_server, since=mark)) == 3
    newest = _latest(content_server, since=mark, limit=2)
    assert len(newest) == 2 and newest[0]["ts"] >= newest[1]["ts"]
    assert _latest(content_server, since=time.time() + 60) == []
