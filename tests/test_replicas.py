"""Two ``lastline serve`` replicas on one PostgreSQL database stay one service (docs/deploy.md).

The same checks run on two servers sharing one SQLite file, the single-machine variant.

Each replica is a separate process with its own in-memory FAISS accelerator and thresholds cache;
they never talk to each other, only to the database. What one writes, the other serves within the
replica delay docs/deploy.md states — so every cross-replica read polls with a deadline instead of
sleeping. Both have the same API keys: ``key-a`` → ``acme``, ``key-b`` → ``globex``.
"""

from __future__ import annotations

import csv
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, TypeVar

import httpx
import pytest
from conftest import LiveServer, server_database, start_server, stop_server

# PostgreSQL is the point; two servers on one SQLite file (one machine) must behave the same.
pytestmark = pytest.mark.backends("sqlite", "postgresql")

ACME = {"Authorization": "Bearer key-a"}
GLOBEX = {"Authorization": "Bearer key-b"}
#: Longer than the stated replica delay (docs/deploy.md) with room for a loaded test machine.
DEADLINE_S = 20.0

T = TypeVar("T")


@pytest.fixture(scope="module")
def replicas(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory,
             backend: str) -> Iterator[tuple[LiveServer, LiveServer]]:
    database = server_database(request, backend) or {"LASTLINE_DB": str(tmp_path_factory.mktemp("one") / "one.db")}
    env = {**database, "LASTLINE_API_KEYS": '{"key-a": "acme", "key-b": "globex"}',
           "LASTLINE_KB_ENGLISH_EMBEDDER": "none"}
    a = start_server(tmp_path_factory.mktemp("replica-a"), env, timeout_s=120)
    try:
        b = start_server(tmp_path_factory.mktemp("replica-b"), env, timeout_s=120)
    except BaseException:
        stop_server(a)
        raise
    yield a, b
    stop_server(a)
    stop_server(b)


def eventually(probe: Callable[[], T], done: Callable[[T], bool], deadline_s: float = DEADLINE_S) -> T:
    """Call ``probe`` until ``done`` holds for its result or the deadline passes; return the last result."""
    end = time.monotonic() + deadline_s
    while True:
        result = probe()
        if done(result) or time.monotonic() > end:
            return result
        time.sleep(0.2)


def _lookup(server: LiveServer, headers: dict[str, str], **body: Any) -> dict[str, Any]:
    r = httpx.post(server.url("/v1/cache/lookup"), json=body, headers=headers, timeout=30)
    assert r.status_code == 200, r.text
    return dict(r.json())


def test_the_replicas_share_one_database(replicas: tuple[LiveServer, LiveServer]) -> None:
    a, b = replicas
    assert (a.db, a.database_url) == (b.db, b.database_url) and a.base_url != b.base_url
    assert a.process.pid != b.process.pid


def test_an_entry_written_through_a_is_an_exact_and_a_semantic_hit_through_b(
        replicas: tuple[LiveServer, LiveServer]) -> None:
    a, b = replicas
    ctx = f"replicas-{uuid.uuid4().hex}"
    r = httpx.post(a.url("/v1/cache/entries"), headers=ACME,
                   json={"prompt": "How do I reset my password?", "response": "Use the link.", "context": ctx})
    assert r.status_code == 201, r.text
    entry = r.json()["id"]
    exact = eventually(lambda: _lookup(b, ACME, prompt="how do I reset my password", context=ctx),
                       lambda res: bool(res["hit"]))
    assert exact["hit"] and exact["layer"] == "exact" and exact["entry_id"] == entry
    semantic = eventually(lambda: _lookup(b, ACME, prompt="How can I reset my password?", context=ctx,
                                          mode="fallback", threshold=0.9),
                          lambda res: bool(res["hit"]))
    assert semantic["hit"] and semantic["layer"] == "semantic" and semantic["entry_id"] == entry
    # a deletion through B is seen by A too: A's accelerator never serves a deleted entry
    assert httpx.delete(b.url(f"/v1/cache/entries/{entry}"), headers=ACME).status_code == 200
    gone = eventually(lambda: _lookup(a, ACME, prompt="How can I reset my password?", context=ctx,
                                      mode="fallback", threshold=0.9),
                      lambda res: not res["hit"])
    assert not gone["hit"]


def test_the_same_prompt_stored_through_both_replicas_is_one_entry(replicas: tuple[LiveServer, LiveServer]) -> None:
    a, b = replicas
    ctx = f"replicas-{uuid.uuid4().hex}"
    body = {"prompt": "Which port does the API use?", "response": "8765", "context": ctx}
    ids = {httpx.post(s.url("/v1/cache/entries"), headers=ACME, json=body).json()["id"] for s in (a, b)}
    assert len(ids) == 1


def test_a_document_ingested_through_b_is_found_through_a(replicas: tuple[LiveServer, LiveServer]) -> None:
    a, b = replicas
    doc = {"id": f"policy-{uuid.uuid4().hex[:8]}", "title": "Travel policy",
           "text": "# Travel\n\n## Hotels\n\nHotel rooms are reimbursed up to 150 euros a night."}
    r = httpx.post(b.url("/v1/kb/documents"), json=doc, headers=ACME, timeout=60)
    assert r.status_code == 201, r.text

    def search() -> list[dict[str, Any]]:
        r = httpx.post(a.url("/v1/kb/search"), json={"query": "hotel reimbursement per night", "k": 3},
                       headers=ACME, timeout=30)
        assert r.status_code == 200, r.text
        return list(r.json()["results"])

    hits = eventually(search, lambda hits: any(h["doc_id"] == doc["id"] for h in hits))
    assert hits and hits[0]["doc_id"] == doc["id"]
    assert httpx.get(a.url(f"/v1/kb/documents/{doc['id']}"), headers=ACME).status_code == 200


def _pairs(shared_data: Path, n: int = 700) -> list[dict[str, object]]:
    with open(shared_data / "cache" / "qqp_val.csv", encoding="utf-8-sig", newline="") as fh:
        rows = [r for _, r in zip(range(n), csv.DictReader(fh), strict=False)]
    return [{"question1": r["question1"], "question2": r["question2"], "is_duplicate": r["is_duplicate"] == "1"}
            for r in rows]


def test_a_threshold_calibrated_through_a_is_used_by_b(replicas: tuple[LiveServer, LiveServer],
                                                       shared_data: Path) -> None:
    a, b = replicas
    before = _lookup(b, GLOBEX, prompt="anything at all")["threshold"]
    r = httpx.post(a.url("/v1/cache/calibrate"), headers=GLOBEX, timeout=300,
                   json={"pairs": _pairs(shared_data), "target_false_hit": 0.02})
    assert r.status_code == 200, r.text
    threshold = r.json()["threshold"]
    assert threshold != pytest.approx(before)  # else the test could not tell the two apart
    used = eventually(lambda: _lookup(b, GLOBEX, prompt="anything at all")["threshold"],
                      lambda value: value == pytest.approx(threshold))
    assert used == pytest.approx(threshold)
    listed = httpx.get(b.url("/v1/cache/thresholds"), headers=GLOBEX).json()["by_language"]["en"]["intercept"]
    assert listed["calibrated"] is True and listed["value"] == pytest.approx(threshold)
    # the other tenant keeps the shipped default on both replicas
    assert _lookup(b, ACME, prompt="anything at all")["threshold"] == pytest.approx(before)
    # forgetting it through B puts A back on the default
    assert httpx.delete(b.url("/v1/cache/thresholds"), headers=GLOBEX).json() == {"deleted": 1}
    back = eventually(lambda: _lookup(a, GLOBEX, prompt="anything at all")["threshold"],
                      lambda value: value == pytest.approx(before))
    assert back == pytest.approx(before)


def test_a_tenant_on_one_replica_never_sees_another_tenants_data_on_the_other(
        replicas: tuple[LiveServer, LiveServer]) -> None:
    a, b = replicas
    ctx = f"replicas-{uuid.uuid4().hex}"
    secret = "What is the salary of employee 4711?"
    httpx.post(a.url("/v1/cache/entries"), headers=ACME,
               json={"prompt": secret, "response": "90k", "context": ctx}).raise_for_status()
    doc = {"id": f"acme-only-{uuid.uuid4().hex[:8]}", "text": "Acme's merger code word is bluebird."}
    httpx.post(a.url("/v1/kb/documents"), json=doc, headers=ACME, timeout=60).raise_for_status()
    httpx.put(a.url("/v1/defaults/payroll"), json={"answer": "acme payroll is closed"},
              headers=ACME).raise_for_status()
    httpx.post(a.url("/v1/rules/packs"), headers=ACME,
               json={"yaml": "name: acme_pack\nrules:\n  - id: code\n    patterns: ['code (?P<value>\\w+)']\n"}
               ).raise_for_status()
    # acme sees its own data through B (so the misses below are isolation, not delay) ...
    assert eventually(lambda: _lookup(b, ACME, prompt=secret, context=ctx), lambda res: bool(res["hit"]))["hit"]
    assert httpx.get(b.url(f"/v1/kb/documents/{doc['id']}"), headers=ACME).status_code == 200
    # ... and globex, on B, sees none of it
    miss = _lookup(b, GLOBEX, prompt=secret, context=ctx, mode="fallback", threshold=0.0)
    assert not miss["hit"] and miss["reason"] == "empty"
    assert httpx.get(b.url(f"/v1/kb/documents/{doc['id']}"), headers=GLOBEX).status_code == 404
    found = httpx.post(b.url("/v1/kb/search"), json={"query": "merger code word", "k": 10}, headers=GLOBEX).json()
    assert all(h["doc_id"] != doc["id"] for h in found["results"])
    assert "payroll" not in httpx.get(b.url("/v1/defaults"), headers=GLOBEX).json()["defaults"]
    packs = httpx.get(b.url("/v1/rules/packs"), headers=GLOBEX).json()
    assert "acme_pack" not in str(packs)
    answer = httpx.post(b.url("/v1/fallback"), headers=GLOBEX, json={"prompt": secret, "task": "payroll"})
    assert answer.status_code in (200, 404) and "90k" not in answer.text and "acme payroll" not in answer.text
    events = httpx.get(b.url("/v1/events"), headers=GLOBEX).json()["events"]
    assert all(e["tenant"] == "globex" for e in events)
