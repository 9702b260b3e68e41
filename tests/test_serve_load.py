"""``lastline serve`` under load, over real HTTP: 503 overloaded at once, draining on SIGTERM, workers."""

from __future__ import annotations

import json
import os
import signal
import socket
import sqlite3
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from conftest import LiveServer, start_server, stop_server
from prometheus_client.parser import text_string_to_metric_families

LONG_TEXT = "\n\n".join(
    f"## Section {i}\n\nThe fallback ladder answers from the cache, the rules, the knowledge base "
    f"and the declared default; paragraph {i} says so again in other words, at some length." for i in range(400))


def _send(server: LiveServer, path: str, bodies: list[dict[str, object]],
          headers: dict[str, str] | None = None) -> list[socket.socket]:
    """POST every body on a connection of its own, all written within a few milliseconds (connections
    opened first, then one write each), so they reach the server together; the replies unread (the
    server closes each connection after its reply): the caller reads or closes them."""
    host, port = server.base_url.removeprefix("http://").split(":")
    extra = "".join(f"{name}: {value}\r\n" for name, value in (headers or {}).items())
    conns = [socket.create_connection((host, int(port)), timeout=60) for _ in bodies]
    for conn, body in zip(conns, bodies, strict=True):
        payload = json.dumps(body).encode()
        conn.sendall(f"POST {path} HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json\r\n{extra}"
                     f"Content-Length: {len(payload)}\r\nConnection: close\r\n\r\n".encode() + payload)
    return conns


def _read(conns: list[socket.socket]) -> list[httpx.Response]:
    """The replies on connections of :func:`_send`, in order; the connections closed."""
    try:
        replies = []
        for conn in conns:
            chunks = []
            while chunk := conn.recv(65536):  # the server closes the connection after its reply
                chunks.append(chunk)
            head, _, content = b"".join(chunks).partition(b"\r\n\r\n")
            status, *fields = head.decode("latin-1").split("\r\n")
            headers = [tuple(field.split(": ", 1)) for field in fields]
            replies.append(httpx.Response(int(status.split(" ", 2)[1]), headers=headers, content=content))
        return replies
    finally:
        for conn in conns:
            conn.close()


def _burst(server: LiveServer, path: str, bodies: list[dict[str, object]]) -> list[httpx.Response]:
    """:func:`_send`, then the replies in order."""
    return _read(_send(server, path, bodies))


def _counted(server: LiveServer, sample: str, **labels: str) -> float:
    """``sample``'s value in ``server``'s ``/metrics``, summed over the series carrying ``labels``."""
    families = text_string_to_metric_families(httpx.get(server.url("/metrics")).text)
    return sum(s.value for f in families for s in f.samples
               if s.name == sample and labels.items() <= s.labels.items())


@pytest.fixture(scope="module")
def tight(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    """A server whose KB and ladder take one request at a time, and whose KB keeps no line."""
    env = {"LASTLINE_LIMIT_KB": "1", "LASTLINE_QUEUE_KB": "0", "LASTLINE_LIMIT_LADDER": "1",
           "LASTLINE_KB_ENGLISH_EMBEDDER": "none", "LASTLINE_KB_NICE": "10"}
    server = start_server(tmp_path_factory.mktemp("tight"), env)
    yield server
    stop_server(server)


def test_past_the_kb_limit_requests_get_503_overloaded_with_retry_after(tight: LiveServer) -> None:
    httpx.post(tight.url("/v1/kb/documents"), json={"title": "ladder", "text": LONG_TEXT[:4000]},
               timeout=60).raise_for_status()
    replies = _burst(tight, "/v1/kb/search", [{"query": f"fallback ladder {i}", "k": 5} for i in range(16)])
    statuses = [r.status_code for r in replies]
    assert set(statuses) <= {200, 503}
    assert 200 in statuses and 503 in statuses
    shed = next(r for r in replies if r.status_code == 503)
    assert shed.json()["error"] == "overloaded"
    assert shed.json()["limit"] == "kb"
    retry_after = int(shed.headers["retry-after"])
    assert retry_after >= 1
    assert shed.json()["detail"] == f"kb: full (1 in flight at most); retry after {retry_after} s"
    metrics = httpx.get(tight.url("/metrics")).text
    assert f'lastline_shed_total{{bulkhead="kb",reason="full"}} {statuses.count(503)}.0' in metrics


def test_kb_searches_past_the_limit_wait_in_a_short_line_and_past_it_are_refused(tmp_path: Path) -> None:
    """One KB slot and a line of 4: of 16 searches at once, the line's are answered after a wait, the rest
    refused at once; a line of 32 answers them all."""
    env = {"LASTLINE_LIMIT_KB": "1", "LASTLINE_QUEUE_KB": "4", "LASTLINE_KB_ENGLISH_EMBEDDER": "none"}
    server = start_server(tmp_path, env)
    try:
        bodies: list[dict[str, object]] = [{"query": f"fallback ladder {i}", "k": 5} for i in range(16)]
        statuses = [r.status_code for r in _burst(server, "/v1/kb/search", bodies)]
        metrics = httpx.get(server.url("/metrics")).text
    finally:
        stop_server(server)
    assert set(statuses) == {200, 503} and statuses.count(200) >= 5  # the one in its slot and 4 in line
    assert f'lastline_shed_total{{bulkhead="kb",reason="full"}} {statuses.count(503)}.0' in metrics
    server = start_server(tmp_path, {**env, "LASTLINE_QUEUE_KB": "32"})  # the same file, restarted
    try:
        assert [r.status_code for r in _burst(server, "/v1/kb/search", bodies)] == [200] * 16
    finally:
        stop_server(server)


def test_writes_past_the_limit_wait_in_a_short_line_and_without_one_are_refused(tmp_path: Path) -> None:
    """One write slot: 12 inserts at once all land with the default line (32), some are refused without."""
    env = {"LASTLINE_LIMIT_WRITES": "1", "LASTLINE_KB_ENGLISH_EMBEDDER": "none"}
    bodies: list[dict[str, object]] = [{"prompt": f"What is the refund window for plan {i}?", "response": f"{i} days."}
                                       for i in range(12)]
    server = start_server(tmp_path, env)
    try:
        assert [r.status_code for r in _burst(server, "/v1/cache/entries", bodies)] == [201] * 12
        found = [httpx.post(server.url("/v1/cache/lookup"), json={"prompt": b["prompt"], "exact_only": True}).json()
                 for b in bodies]
        assert [f["answer"] for f in found] == [b["response"] for b in bodies]
    finally:
        stop_server(server)
    server = start_server(tmp_path, {**env, "LASTLINE_QUEUE_WRITES": "0"})  # the same file, restarted
    try:
        statuses = [r.status_code for r in _burst(server, "/v1/cache/entries", bodies)]
        assert set(statuses) == {201, 503}
        assert _counted(server, "lastline_shed_total", bulkhead="writes", reason="full") == statuses.count(503)
    finally:
        stop_server(server)


def test_a_kb_flood_does_not_shed_cache_lookups(tight: LiveServer) -> None:
    bodies: list[dict[str, object]] = [{"prompt": f"question {i}"} for i in range(12)]
    kb = threading.Thread(target=_burst, args=(tight, "/v1/kb/search", [{"query": "ladder"}] * 12))
    kb.start()
    lookups = _burst(tight, "/v1/cache/lookup", bodies)
    kb.join()
    assert [r.status_code for r in lookups] == [200] * 12


def test_past_the_exact_key_lookups_are_bounded_apart_and_exact_hits_are_never_shed_for_them(
        tmp_path: Path) -> None:
    server = start_server(tmp_path, {"LASTLINE_LIMIT_SEMANTIC": "1", "LASTLINE_KB_ENGLISH_EMBEDDER": "none"})
    try:
        stored = [f"What is the refund policy for order number {i}?" for i in range(16)]
        for prompt in stored:
            httpx.post(server.url("/v1/cache/entries"), json={"prompt": prompt, "response": "30 days."},
                       timeout=60).raise_for_status()
        # Long unseen questions: each encode takes tens of milliseconds, so sixteen sent at once overlap.
        unseen = [{"prompt": "Which warehouse ships " + " ".join(f"part{i}x{j}" for j in range(150)) + "?"}
                  for i in range(16)]
        exact_replies: list[httpx.Response] = []
        exact = threading.Thread(target=lambda: exact_replies.extend(
            _burst(server, "/v1/cache/lookup", [{"prompt": p} for p in stored])))
        exact.start()
        replies = _burst(server, "/v1/cache/lookup", unseen)
        exact.join()
        assert [(r.status_code, r.json()["layer"]) for r in exact_replies] == [(200, "exact")] * 16
        statuses = [r.status_code for r in replies]
        assert set(statuses) == {200, 503}
        shed = next(r for r in replies if r.status_code == 503)
        assert shed.json()["error"] == "overloaded" and shed.json()["limit"] == "semantic"
        assert int(shed.headers["retry-after"]) >= 1
        metrics = httpx.get(server.url("/metrics")).text
        assert f'lastline_shed_total{{bulkhead="semantic",reason="full"}} {statuses.count(503)}.0' in metrics
        assert "overloaded on POST" not in (tmp_path / "server.log").read_text()  # counted, never logged
    finally:
        stop_server(server)


def test_by_default_a_wave_of_unseen_questions_waits_in_the_lookup_rounds_instead_of_being_shed(
        tight: LiveServer) -> None:
    # 120 long unseen questions written at once are in flight together: past the 48 `semantic` (and 64
    # door) slots of the old default, which refused 36 and 46 of them in two runs here; within the 144 on SQLite.
    unseen = [{"prompt": f"Which depot {i} restocks " + " ".join(f"item{i}y{j}" for j in range(200)) + "?"}
              for i in range(120)]
    shed_before = _counted(tight, "lastline_shed_total")
    replies = _burst(tight, "/v1/cache/lookup", unseen)
    assert [r.status_code for r in replies] == [200] * 120
    assert not any(r.json()["hit"] for r in replies)
    assert _counted(tight, "lastline_shed_total") == shed_before


def _status_of_reply(conn: socket.socket) -> int:
    with conn:
        return int(conn.recv(65536).split(b" ", 2)[1])


def _a_long_round(server: LiveServer) -> list[socket.socket]:
    """Store one entry (an empty cache answers a lookup without the model), then send a lookup of
    12,000 distinct characters — the model computes each token's own stages, ≈0.5 s for its round — and
    return once that round has started: what is sent next waits for the round after it. Its connection,
    unread."""
    stored = {"prompt": "Who signs off refund requests?", "response": "The finance desk."}
    httpx.post(server.url("/v1/cache/entries"), json=stored, timeout=60).raise_for_status()
    busy = _send(server, "/v1/cache/lookup", [{"prompt": "".join(map(chr, range(0x4E00, 0x4E00 + 12_000)))}])
    time.sleep(0.05)
    return busy


def test_lookups_whose_client_left_before_their_round_are_dropped_unrun(tmp_path: Path) -> None:
    """Clients that close their connections while their unseen questions wait for the round after a
    long one are not answered for nobody: their lookups never run, their slots are free again at once."""
    server = start_server(tmp_path, {"LASTLINE_LIMIT_SEMANTIC": "17", "LASTLINE_KB_ENGLISH_EMBEDDER": "none"})
    try:
        busy = _a_long_round(server)
        leaving = _send(server, "/v1/cache/lookup",
                        [{"prompt": f"Who signs off refund request {i} of the north region?"} for i in range(16)])
        time.sleep(0.05)  # read and queued, then their clients go
        for conn in leaving:
            conn.close()
        assert _status_of_reply(busy[0]) == 200
        assert _counted(server, "lastline_abandoned_total", bulkhead="semantic") == 16
        assert _counted(server, "lastline_http_requests_total", route="/v1/cache/lookup", status="499") == 16
        assert _counted(server, "lastline_lookup_duration_seconds_count", endpoint="cache") == 1  # run: the long one
        # Every one of the 17 `semantic` slots is free again: 17 unseen questions at once are all answered.
        again = [{"prompt": f"Which courier {i} collects the parcels of depot {i}?"} for i in range(17)]
        assert [r.status_code for r in _burst(server, "/v1/cache/lookup", again)] == [200] * 17
        assert "Exception in ASGI application" not in (tmp_path / "server.log").read_text()
    finally:
        stop_server(server)


def test_lookups_whose_deadline_passes_before_their_round_are_refused_unrun(tmp_path: Path) -> None:
    """A caller that says it waits 20 ms (``X-Lastline-Budget-Ms``, or the OpenAI SDKs' read timeout)
    for an unseen question queued behind a long round gets ``503 overloaded`` when its deadline
    passes, and its lookup never runs; a caller without a budget waits for the round and is answered."""
    server = start_server(tmp_path, {"LASTLINE_LIMIT_SEMANTIC": "8", "LASTLINE_KB_ENGLISH_EMBEDDER": "none"})
    try:
        busy = _a_long_round(server)
        hurried = _send(server, "/v1/cache/lookup",
                        [{"prompt": f"Who signs off refund request {i} of the east region?"} for i in range(3)],
                        headers={"X-Lastline-Budget-Ms": "20"})
        sdk = _send(server, "/v1/cache/lookup", [{"prompt": "Who signs off refunds in the west region?"}],
                    headers={"X-Stainless-Read-Timeout": "0.02"})
        patient = _send(server, "/v1/cache/lookup", [{"prompt": "Who signs off refunds in the south region?"}])
        refused = _read(hurried + sdk)
        assert [r.status_code for r in refused] == [503] * 4
        assert refused[0].json()["error"] == "overloaded" and refused[0].json()["limit"] == "semantic"
        assert "deadline" in refused[0].json()["detail"] and int(refused[0].headers["retry-after"]) >= 1
        assert [r.status_code for r in _read(busy + patient)] == [200, 200]
        assert _counted(server, "lastline_shed_total", bulkhead="semantic", reason="deadline") == 4
        assert _counted(server, "lastline_lookup_duration_seconds_count", endpoint="cache") == 2  # never ran
        malformed = httpx.post(server.url("/v1/cache/lookup"), json={"prompt": "Who signs off refund requests?"},
                               headers={"X-Lastline-Budget-Ms": "soon"})
        assert malformed.status_code == 422 and "x-lastline-budget-ms" in malformed.json()["detail"]
        # The SDK's header is not ours to define: one that does not read as a budget is no budget.
        assert httpx.post(server.url("/v1/cache/lookup"), json={"prompt": "Who signs off refund requests?"},
                          headers={"X-Stainless-Read-Timeout": "None"}).status_code == 200
    finally:
        stop_server(server)


def test_writes_whose_client_left_while_in_line_are_dropped_unwritten(tmp_path: Path) -> None:
    """With one write slot busy with a long KB document, inserts whose clients leave while in line
    leave it: nothing of theirs is written, and the insert after them lands."""
    server = start_server(tmp_path, {"LASTLINE_LIMIT_WRITES": "1", "LASTLINE_KB_ENGLISH_EMBEDDER": "none"})
    try:
        document = _send(server, "/v1/kb/documents", [{"title": "ladder", "text": LONG_TEXT}])
        time.sleep(0.05)  # it holds the one slot
        bodies: list[dict[str, object]] = [
            {"prompt": f"What is the refund window for plan {i}?", "response": f"{i} days."} for i in range(8)]
        leaving = _send(server, "/v1/cache/entries", bodies)
        time.sleep(0.05)  # in line, then their clients go
        for conn in leaving:
            conn.close()
        staying = _send(server, "/v1/cache/entries", [{"prompt": "What is the refund window for plan 99?",
                                                        "response": "99 days."}])
        assert _status_of_reply(document[0]) == 201
        assert _status_of_reply(staying[0]) == 201
        assert _counted(server, "lastline_abandoned_total", bulkhead="writes") == 8
        assert _counted(server, "lastline_http_requests_total", status="499") == 8
        found = [httpx.post(server.url("/v1/cache/lookup"), json={"prompt": b["prompt"], "exact_only": True}).json()
                 for b in bodies]
        assert not any(f["hit"] for f in found)
        assert httpx.post(server.url("/v1/cache/lookup"), json={"prompt": "What is the refund window for plan 99?",
                                                                 "exact_only": True}).json()["answer"] == "99 days."
    finally:
        stop_server(server)


def test_the_openai_face_sheds_in_the_openai_error_shape(tight: LiveServer) -> None:
    body = {"model": "lastline", "messages": [{"role": "user", "content": "what is the fallback ladder?"}]}
    replies = _burst(tight, "/v1/chat/completions", [body] * 12)
    shed = [r for r in replies if r.status_code == 503]
    assert shed, [r.status_code for r in replies]
    error = shed[0].json()["error"]
    assert error["code"] == "overloaded" and error["type"] == "server_error"
    assert "retry-after" in shed[0].headers
    assert all(r.status_code in (200, 422, 503) for r in replies)


def test_health_and_metrics_are_never_shed(tight: LiveServer) -> None:
    assert httpx.get(tight.url("/healthz")).status_code == 200
    assert httpx.get(tight.url("/readyz")).status_code == 200


def test_sigterm_drains_in_flight_work_flushes_telemetry_and_checkpoints(tmp_path: Path) -> None:
    env = {"LASTLINE_WRITER_INTERVAL_S": "10", "LASTLINE_KB_ENGLISH_EMBEDDER": "none"}
    server = start_server(tmp_path, env)
    try:
        with httpx.Client(timeout=60) as client:
            httpx.put(server.url("/v1/defaults/*"), json={"answer": "on it"}).raise_for_status()
            for i in range(20):  # their events wait in the writer (10 s interval)
                assert client.post(server.url("/v1/fallback"), json={"prompt": f"q {i}"}).status_code == 200
        slow: dict[str, int] = {}

        def ingest() -> None:
            res = httpx.post(server.url("/v1/kb/documents"), json={"title": "long", "text": LONG_TEXT}, timeout=120)
            slow["status"] = res.status_code

        writer = threading.Thread(target=ingest)
        writer.start()
        time.sleep(0.5)  # the ingest is being embedded now
        server.process.send_signal(signal.SIGTERM)
        time.sleep(0.2)
        try:
            refused = httpx.post(server.url("/v1/cache/lookup"), json={"prompt": "late"}, timeout=10)
            assert refused.status_code == 503 and refused.json()["error"] == "overloaded"
            assert refused.json()["detail"].startswith("cache: the server is shutting down; retry after")
        except httpx.ConnectError:
            pass  # the ingest already finished and the server stopped listening: also a refusal
        writer.join()
        assert slow["status"] == 201
        server.process.wait(timeout=60)
    finally:
        stop_server(server)
    with sqlite3.connect(server.db) as conn:
        assert conn.execute("SELECT count(*) FROM api_events").fetchone()[0] == 20
    wal = Path(str(server.db) + "-wal")
    assert not wal.exists() or wal.stat().st_size == 0


def _until_both_workers_answered(server: LiveServer) -> Iterator[httpx.Client]:
    """Fresh connections (either worker may take each), one at a time, until both workers have answered."""
    pids: set[int] = set()
    deadline = time.monotonic() + 120
    while len(pids) < 2 and time.monotonic() < deadline:
        with httpx.Client(timeout=10) as client:
            pids.add(client.get(server.url("/readyz")).json()["pid"])
            yield client
    assert len(pids) == 2, "the second worker never answered"


def test_workers_share_one_file_and_metrics_sum_over_them(tmp_path: Path) -> None:
    server = start_server(tmp_path, {"LASTLINE_WORKERS": "2", "LASTLINE_KB_ENGLISH_EMBEDDER": "none"}, timeout_s=180)
    try:
        for _ in _until_both_workers_answered(server):
            pass
        entry = httpx.post(server.url("/v1/cache/entries"), json={"prompt": "where is my order?", "response": "x"})
        entry.raise_for_status()
        for _ in range(20):
            with httpx.Client(timeout=10) as client:
                hit = client.post(server.url("/v1/cache/lookup"), json={"prompt": "where is my order"}).json()
                assert hit["hit"] and hit["entry_id"] == entry.json()["id"]
        metrics = httpx.get(server.url("/metrics")).text
        assert 'lastline_http_requests_total{method="POST",route="/v1/cache/lookup",status="200"} 20.0' in metrics
        assert 'lastline_cache_lookups_total{layer="exact",result="hit"} 20.0' in metrics
    finally:
        stop_server(server)
        server.process.wait(timeout=60)  # a supervisor with two workers may outlast stop_server's wait


def test_requests_are_counted_in_metrics_without_an_access_line_each(tight: LiveServer) -> None:
    """The access log is off by default (formatting it was a share of every exact hit's time)."""
    for _ in range(3):
        httpx.post(tight.url("/v1/cache/lookup"), json={"prompt": "no access line for me"}).raise_for_status()
    metrics = httpx.get(tight.url("/metrics")).text
    assert 'lastline_http_requests_total{method="POST",route="/v1/cache/lookup",status="200"}' in metrics
    assert "POST /v1/cache/lookup" not in tight.log_path.read_text()


def _children(pid: int) -> list[int]:
    """The processes whose parent is ``pid``, from /proc."""
    out = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            if int(stat[stat.rindex(")") + 2 :].split()[1]) == pid:
                out.append(int(entry.name))
    return out


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_kb_searches_run_in_a_process_of_their_own_below_the_servers_priority(tight: LiveServer) -> None:
    """The server spawns its KB process at start-up; once it is warm the searches are counted there."""
    deadline = time.monotonic() + 90
    counted = 0.0
    while time.monotonic() < deadline and not counted:
        httpx.post(tight.url("/v1/kb/search"), json={"query": "fallback ladder"}, timeout=60).raise_for_status()
        counted = _counted(tight, "lastline_kb_calls_total", ran_in="process")
        time.sleep(0.1)
    assert counted, "no KB search ran in the KB's process"
    pid = tight.process.pid
    (child,) = [c for c in _children(pid) if "spawn_main" in Path(f"/proc/{c}/cmdline").read_text()]
    assert os.getpriority(os.PRIO_PROCESS, child) == min(19, os.getpriority(os.PRIO_PROCESS, pid) + 10)


def test_workers_starting_on_an_empty_file_seed_the_knowledge_base_once(tmp_path: Path) -> None:
    """The seed runs in one process before the workers: none of them finds the KB empty and ingests it again."""
    seed = tmp_path / "seed"
    seed.mkdir()
    for i, topic in enumerate(("refunds", "passwords", "shipping")):
        (seed / f"{topic}.md").write_text(f"# {topic.title()}\n\nHow {topic} work, part {i}.\n", encoding="utf-8")
    server = start_server(tmp_path, {"LASTLINE_WORKERS": "2", "LASTLINE_KB_SEED": str(seed),
                                     "LASTLINE_KB_ENGLISH_EMBEDDER": "none"}, timeout_s=180)
    try:
        for client in _until_both_workers_answered(server):
            found = client.post(server.url("/v1/kb/search"), json={"query": "shipping"}).json()["results"]
            assert found, "a worker answered with an empty knowledge base"
    finally:
        stop_server(server)
    log = (tmp_path / "server.log").read_text()
    assert log.count("knowledge base: 3 documents before the workers start") == 1, log
    with sqlite3.connect(server.db) as conn:
        documents, chunks, last_chunk = conn.execute(
            "SELECT (SELECT count(*) FROM kb_documents), count(*), max(rowid) FROM kb_chunks").fetchone()
    assert documents == 3 and last_chunk == chunks, "documents were written more than once"
